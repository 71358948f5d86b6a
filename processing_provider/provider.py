"""The Fleet Street Processing provider (id ``fleetstreet``)."""

from __future__ import annotations

import os

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

ICON_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "icons", "fleet_street.svg")


class FleetStreetProvider(QgsProcessingProvider):
    """Holds every Fleet Street algorithm."""

    def id(self) -> str:
        """Provider id used in algorithm ids (fleetstreet:...)."""
        return "fleetstreet"

    def name(self) -> str:
        """Name shown in the Processing toolbox."""
        return "Fleet Street"

    def longName(self) -> str:  # noqa: N802 - QGIS API name
        """Name with a short description."""
        return "Fleet Street (street-level data and fleet telemetry)"

    def icon(self) -> QIcon:
        """Provider icon."""
        return QIcon(ICON_PATH)

    def svgIconPath(self) -> str:  # noqa: N802 - QGIS API name
        """Path of the provider icon."""
        return ICON_PATH

    def loadAlgorithms(self):  # noqa: N802 - QGIS API name
        """Add a fresh instance of each algorithm."""
        from .algorithms import algorithm_classes

        for cls in algorithm_classes():
            self.addAlgorithm(cls())
