"""Make the repository importable as the package ``fleet_street`` inside .venv."""

import pathlib
import sys
import sysconfig

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> None:
    """Link .venv/src/fleet_street to the repository and add .venv/src to the venv's path."""
    src = ROOT / ".venv" / "src"
    src.mkdir(parents=True, exist_ok=True)
    link = src / "fleet_street"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(ROOT, target_is_directory=True)
    site = pathlib.Path(sysconfig.get_paths()["purelib"])
    (site / "fleet_street_dev.pth").write_text(f"{src}\n")
    print(f"fleet_street -> {ROOT}", file=sys.stderr)


if __name__ == "__main__":
    main()
