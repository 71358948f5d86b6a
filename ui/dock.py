"""The Fleet Street dock panel."""

from __future__ import annotations

from qgis.gui import QgsDockWidget
from qgis.PyQt.QtWidgets import QLabel, QVBoxLayout, QWidget


class FleetStreetDock(QgsDockWidget):
    """Panel from which the fetch algorithms are run on an area."""

    def __init__(self, iface, parent=None):
        super().__init__("Fleet Street", parent)
        self.iface = iface
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.addWidget(QLabel("Fleet Street"))
        layout.addStretch(1)
        self.setWidget(body)

    def shutdown(self) -> None:
        """Cancel running work before the plugin unloads."""
