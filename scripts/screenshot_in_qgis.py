"""Runs inside QGIS (qgis.bin --code): load the demo layers, show the panel, grab the screen."""

import os

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsProject,
    QgsRectangle,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import Qt, QTimer
from qgis.PyQt.QtWidgets import QApplication, QDockWidget
from qgis.utils import iface

GPKG = os.environ["FLEET_STREET_DEMO_GPKG"]
OUT = os.environ["FLEET_STREET_SCREENSHOT"]
STYLES = {"trips": "trips", "latest_imagery": "frames", "map_features": "map_features",
          "device_locations": "locations"}


def load():
    """Add the demo tables with the plugin's styles and zoom to the demo block."""
    from fleet_street.processing_provider.styling import apply_style

    window = iface.mainWindow()
    # no window manager under Xvfb: place the window on the screen by hand
    window.setGeometry(0, 0, 1600, 1000)
    project = QgsProject.instance()
    project.setCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    for table, style in STYLES.items():
        layer = QgsVectorLayer(f"{GPKG}|layername={table}", table.replace("_", " "), "ogr")
        if layer.isValid():
            apply_style(layer, style)
            project.addMapLayer(layer)
    dock = window.findChild(QDockWidget, "FleetStreetDock")
    if dock is not None:
        dock.show()
        dock.raise_()
        window.resizeDocks([dock], [400], Qt.Orientation.Horizontal)
    QTimer.singleShot(1500, zoom)


def zoom():
    """Zoom to part of the demo block once the layers have settled."""
    project = QgsProject.instance()
    to_map = QgsCoordinateTransform(QgsCoordinateReferenceSystem("EPSG:4326"),
                                    project.crs(), project)
    iface.mapCanvas().setExtent(to_map.transformBoundingBox(
        QgsRectangle(13.395, 52.5135, 13.407, 52.5205)))
    iface.mapCanvas().refresh()
    QTimer.singleShot(4000, grab)


def grab():
    """Save the whole screen and quit."""
    QApplication.primaryScreen().grabWindow(0).save(OUT, "PNG")
    QApplication.instance().exit(0)


QTimer.singleShot(2500, load)
