"""Take docs/screenshot.png: QGIS desktop under Xvfb with the packaged plugin and the demo data."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    """Install the zip into a throw-away profile, start QGIS on a virtual screen, grab it."""
    from package import build

    gpkg = ROOT / "demo_output" / "fleet_street_demo.gpkg"
    if not gpkg.exists():
        print("run `make demo` first", file=sys.stderr)
        return 1
    archive = build()
    with tempfile.TemporaryDirectory() as tmp:
        profile = pathlib.Path(tmp) / "profiles" / "default"
        (profile / "python" / "plugins").mkdir(parents=True)
        (profile / "QGIS").mkdir()
        (profile / "QGIS" / "QGIS3.ini").write_text(
            "[PythonPlugins]\nfleet_street=true\n[qgis]\nshowTips=false\n")
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(profile / "python" / "plugins")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "VIRTUAL_ENV", "QT_QPA"))}
        env.update(FLEET_STREET_DEMO_GPKG=str(gpkg),
                   FLEET_STREET_SCREENSHOT=str(ROOT / "docs" / "screenshot.png"))
        subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", "qgis.bin",
                        "--nologo", "--noversioncheck", "--profiles-path", tmp,
                        "--code", str(ROOT / "scripts" / "screenshot_in_qgis.py")],
                       env=env, check=False, timeout=180, capture_output=True)
    print(ROOT / "docs" / "screenshot.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
