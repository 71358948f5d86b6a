"""Shared fixtures: the emulator plugin and a throw-away QGIS configuration."""

import os

os.environ.setdefault("PROJ_DATA", "/usr/share/proj")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest_plugins = ["emulator.pytest_plugin"]
