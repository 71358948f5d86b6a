"""Plugin entry object: wires the Processing provider, the dock panel and the actions."""

from __future__ import annotations

import os

from qgis.core import QgsApplication
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import QAction

from .processing_provider.provider import FleetStreetProvider

PLUGIN_DIR = os.path.dirname(os.path.abspath(__file__))
MENU = "&Fleet Street"


def plugin_icon() -> QIcon:
    """The plugin's icon."""
    return QIcon(os.path.join(PLUGIN_DIR, "icons", "fleet_street.svg"))


class FleetStreetPlugin:
    """QGIS plugin object: created by classFactory, driven by QGIS through initGui/unload."""

    def __init__(self, iface):
        self.iface = iface
        self.provider: FleetStreetProvider | None = None
        self.dock = None
        self.actions: list[QAction] = []
        self.toolbar = None

    def initProcessing(self):  # noqa: N802 - QGIS API name
        """Register the Processing provider (also called by qgis_process, with no iface)."""
        if self.provider is None:
            self.provider = FleetStreetProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self):  # noqa: N802 - QGIS API name
        """Create the dock, the menu entries and the toolbar button."""
        from .ui.dock import FleetStreetDock

        self.initProcessing()
        main_window = self.iface.mainWindow()
        self.dock = FleetStreetDock(self.iface, main_window)
        self.dock.setObjectName("FleetStreetDock")
        self.iface.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)

        panel = QAction(plugin_icon(), "Fleet Street", main_window)
        panel.setObjectName("FleetStreetPanelAction")
        panel.setToolTip("Show or hide the Fleet Street panel")
        panel.setCheckable(True)
        panel.setChecked(self.dock.isVisible())
        panel.toggled.connect(self.dock.setVisible)
        self.dock.visibilityChanged.connect(panel.setChecked)

        settings = QAction(QgsApplication.getThemeIcon("/mActionOptions.svg"),
                           "Connection Settings…", main_window)
        settings.setObjectName("FleetStreetSettingsAction")
        settings.triggered.connect(self.show_settings)

        self.toolbar = self.iface.addToolBar("Fleet Street")
        self.toolbar.setObjectName("FleetStreetToolbar")
        self.toolbar.addAction(panel)
        for action in (panel, settings):
            self.iface.addPluginToWebMenu(MENU, action)
        self.actions = [panel, settings]

    def show_settings(self):
        """Open the connection settings dialog."""
        from .ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.iface.mainWindow())
        dialog.exec()
        dialog.deleteLater()

    def unload(self):
        """Remove everything initGui and initProcessing added."""
        for action in self.actions:
            self.iface.removePluginWebMenu(MENU, action)
            action.deleteLater()
        self.actions = []
        if self.toolbar is not None:
            self.toolbar.deleteLater()
            self.toolbar = None
        if self.dock is not None:
            self.dock.shutdown()
            self.iface.removeDockWidget(self.dock)
            self.dock.deleteLater()
            self.dock = None
        if self.provider is not None:
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None
