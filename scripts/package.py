"""Build dist/fleet_street-<version>.zip: the plugin folder with its vendored dependencies."""

from __future__ import annotations

import configparser
import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = "fleet_street"
SHIPPED = ["metadata.txt", "__init__.py", "plugin.py", "vendor_path.py", "LICENSE", "README.md",
           "core", "ui", "processing_provider", "icons", "styles"]
SKIPPED_PARTS = {"__pycache__", ".pytest_cache", ".hypothesis"}
# Oldest Python a supported QGIS ships; vendored wheels must suit it (adds backports).
TARGET_PYTHON = "3.9"


def plugin_version() -> str:
    """The version declared in metadata.txt."""
    meta = configparser.ConfigParser()
    meta.read(ROOT / "metadata.txt", encoding="utf-8")
    return meta["general"]["version"]


def copy_sources(dest: pathlib.Path) -> None:
    """Copy the shipped files, leaving caches behind."""
    for name in SHIPPED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name,
                            ignore=shutil.ignore_patterns(*SKIPPED_PARTS, "*.pyc"))
        elif src.exists():
            shutil.copy2(src, dest / name)


def vendor(dest: pathlib.Path) -> None:
    """Install the pure-Python runtime requirements into dest/_vendor."""
    target = dest / "_vendor"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-compile", "--only-binary=:all:", "--implementation", "py",
         "--python-version", TARGET_PYTHON, "--target", str(target),
         "-r", str(ROOT / "requirements-runtime.txt")],
        check=True,
    )
    shutil.rmtree(target / "bin", ignore_errors=True)
    for tests in [p for p in target.rglob("tests") if p.is_dir()]:
        shutil.rmtree(tests)


def build() -> pathlib.Path:
    """Assemble build/fleet_street and zip it into dist/."""
    stage = ROOT / "build" / NAME
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    copy_sources(stage)
    vendor(stage)
    dist = ROOT / "dist"
    dist.mkdir(exist_ok=True)
    archive = dist / f"{NAME}-{plugin_version()}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(stage.rglob("*")):
            if path.is_file() and not SKIPPED_PARTS.intersection(path.parts):
                zf.write(path, path.relative_to(stage.parent))
    return archive


if __name__ == "__main__":
    print(build())
