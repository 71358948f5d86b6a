"""Run inside a real QGIS desktop (qgis.bin --code): report what the plugin added, then quit."""

import json
import os
import sys

import qgis.utils
from qgis.core import QgsApplication
from qgis.PyQt.QtCore import QTimer
from qgis.PyQt.QtWidgets import QDockWidget, QToolBar
from qgis.utils import iface

REPORT = os.environ["FLEET_STREET_DESKTOP_REPORT"]


def report():
    """Write what is on screen to the report file and quit QGIS."""
    window = iface.mainWindow()
    dock = window.findChild(QDockWidget, "FleetStreetDock")
    toolbar = window.findChild(QToolBar, "FleetStreetToolbar")
    web_menus = [a.text() for a in iface.webMenu().actions()]
    fleet_menu = next((a.menu() for a in iface.webMenu().actions()
                       if a.text() == "&Fleet Street"), None)
    result = {
        "loaded": "fleet_street" in qgis.utils.plugins,
        "module_file": getattr(sys.modules.get("fleet_street"), "__file__", None),
        "provider": QgsApplication.processingRegistry().providerById("fleetstreet") is not None,
        "algorithms": [a.id() for a in QgsApplication.processingRegistry().algorithms()
                       if a.provider() and a.provider().id() == "fleetstreet"],
        "dock": dock is not None,
        "dock_visible": bool(dock and dock.isVisible()),
        "toolbar_actions": [a.text() for a in toolbar.actions()] if toolbar else [],
        "web_menus": web_menus,
        "fleet_menu": [a.text() for a in fleet_menu.actions()] if fleet_menu else [],
    }
    with open(REPORT, "w", encoding="utf-8") as f:
        json.dump(result, f)
    QgsApplication.exit(0)


QTimer.singleShot(2000, report)
