"""The release zip: what it holds, and that QGIS loads it from a profile folder."""

import configparser
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = pathlib.Path(__file__).parent / "data"


def _version() -> str:
    meta = configparser.ConfigParser()
    meta.read(ROOT / "metadata.txt", encoding="utf-8")
    return meta["general"]["version"]


@pytest.fixture(scope="module")
def plugin_zip() -> pathlib.Path:
    """Build the zip with `make package`'s script."""
    subprocess.run([sys.executable, str(ROOT / "scripts" / "package.py")], check=True,
                   cwd=ROOT, capture_output=True)
    path = ROOT / "dist" / f"fleet_street-{_version()}.zip"
    assert path.exists()
    return path


@pytest.fixture(scope="module")
def profile_dir(plugin_zip, tmp_path_factory) -> pathlib.Path:
    """A throw-away QGIS profiles folder with the zip unpacked into it and the plugin enabled."""
    root = tmp_path_factory.mktemp("qgis-profiles")
    profile = root / "profiles" / "default"
    plugins = profile / "python" / "plugins"
    plugins.mkdir(parents=True)
    with zipfile.ZipFile(plugin_zip) as zf:
        zf.extractall(plugins)
    (profile / "QGIS").mkdir()
    (profile / "QGIS" / "QGIS3.ini").write_text("[PythonPlugins]\nfleet_street=true\n")
    return root


def _qgis_env(profile_dir: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # the system QGIS Python, not the test venv: the zip must bring its own dependencies
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":") if ".venv" not in p)
    env["QGIS_CUSTOM_CONFIG_PATH"] = str(profile_dir)
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def test_zip_holds_the_plugin_and_vendored_dependencies_only(plugin_zip):
    names = zipfile.ZipFile(plugin_zip).namelist()
    assert all(n.startswith("fleet_street/") for n in names)
    for required in ("metadata.txt", "__init__.py", "plugin.py", "icons/fleet_street.svg",
                     "core/fetch.py", "processing_provider/provider.py", "ui/dock.py",
                     "_vendor/httpx/__init__.py", "_vendor/httpcore/__init__.py",
                     "_vendor/polyline/__init__.py", "LICENSE", "styles/map_features.qml",
                     "icons/features/stop-sign.svg", "processing_provider/compat.py"):
        assert f"fleet_street/{required}" in names, required
    forbidden = ("tests/", "emulator/", "benchmarks/", "scripts/", ".venv", "__pycache__",
                 ".pyc", "Makefile", "pyproject.toml", ".ci/", ".git")
    leaked = [n for n in names if any(f in n for f in forbidden)]
    assert leaked == []


def test_metadata_is_complete():
    meta = configparser.ConfigParser()
    meta.read(ROOT / "metadata.txt", encoding="utf-8")
    general = meta["general"]
    for key in ("name", "description", "about", "version", "author", "email", "homepage",
                "tracker", "repository", "tags", "qgisMinimumVersion", "icon"):
        assert general.get(key, "").strip(), key
    assert general["name"] == "Fleet Street"
    assert general["qgisMinimumVersion"] == "3.22"
    assert general["qgisMaximumVersion"] == "4.99"
    assert general["hasProcessingProvider"] == "yes"
    assert (ROOT / general["icon"]).is_file()


@pytest.mark.skipif(not shutil.which("qgis_process.bin"), reason="QGIS is not installed")
def test_qgis_process_lists_the_plugin_with_its_provider(profile_dir):
    out = subprocess.run(["qgis_process.bin", "plugins"], env=_qgis_env(profile_dir),
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert "* fleet_street" in out.splitlines()
    listed = subprocess.run(["qgis_process.bin", "list"], env=_qgis_env(profile_dir),
                            capture_output=True, text=True, timeout=120, check=True).stdout
    assert "fleetstreet:creditbalance" in listed


@pytest.mark.skipif(not (shutil.which("qgis.bin") and shutil.which("xvfb-run")),
                    reason="QGIS desktop or Xvfb is not installed")
def test_desktop_qgis_loads_the_zip_and_shows_menu_toolbar_and_dock(profile_dir, tmp_path):
    report = tmp_path / "report.json"
    env = _qgis_env(profile_dir)
    env.pop("QT_QPA_PLATFORM")
    env["FLEET_STREET_DESKTOP_REPORT"] = str(report)
    subprocess.run(["xvfb-run", "-a", "qgis.bin", "--nologo", "--noversioncheck",
                    "--profiles-path", str(profile_dir), "--code",
                    str(DATA / "desktop_check.py")],
                   env=env, capture_output=True, timeout=180, check=False)
    result = json.loads(report.read_text())
    assert result["loaded"]
    assert result["module_file"].startswith(str(profile_dir))
    assert result["provider"]
    assert "fleetstreet:fetchmapfeatures" in result["algorithms"]
    assert result["dock"]
    assert result["toolbar_actions"] == ["Fleet Street"]
    assert "&Fleet Street" in result["web_menus"]
    assert result["fleet_menu"] == ["Fleet Street", "Connection Settings…"]
