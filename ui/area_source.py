"""Turn the panel's area choice into the INPUT value of a Processing algorithm."""

from __future__ import annotations

from qgis.core import (
    QgsFeature,
    QgsGeometry,
    QgsProcessingFeatureSourceDefinition,
    QgsRectangle,
    QgsVectorLayer,
    QgsWkbTypes,
)

SELECTED = "selected"
LAYER = "layer"
EXTENT = "extent"
DRAWN = "drawn"

AREA_CHOICES = [
    (SELECTED, "Selected features of the active layer"),
    (LAYER, "All features of the active layer"),
    (EXTENT, "Current map extent"),
    (DRAWN, "Rectangle drawn on the map"),
]


class AreaError(ValueError):
    """The chosen area cannot be used; the message says why and what to do."""


def rectangle_layer(rect: QgsRectangle, crs, name: str = "Fleet Street area") -> QgsVectorLayer:
    """A one-feature memory polygon layer holding rect in crs."""
    layer = QgsVectorLayer(f"Polygon?crs={crs.authid() or crs.toWkt()}", name, "memory")
    if not crs.authid():
        layer.setCrs(crs)
    feature = QgsFeature()
    feature.setGeometry(QgsGeometry.fromRect(rect))
    layer.dataProvider().addFeatures([feature])
    return layer


def area_input(choice: str, active_layer, canvas, drawn: QgsRectangle | None):
    """The INPUT value for the choice, plus a memory layer to keep alive during the run."""
    if choice in (SELECTED, LAYER):
        if not isinstance(active_layer, QgsVectorLayer) or not active_layer.isValid():
            raise AreaError("Select a vector layer in the Layers panel to use as the area.")
        if choice == SELECTED and active_layer.selectedFeatureCount() == 0:
            raise AreaError(f"No feature of '{active_layer.name()}' is selected. Select the "
                            "features that outline the area, or choose all features.")
        if active_layer.featureCount() == 0:
            raise AreaError(f"The layer '{active_layer.name()}' has no features.")
        return QgsProcessingFeatureSourceDefinition(active_layer.id(), choice == SELECTED), None
    crs = canvas.mapSettings().destinationCrs()
    if choice == EXTENT:
        rect = canvas.extent()
    else:
        if drawn is None or drawn.isEmpty():
            raise AreaError("Draw a rectangle on the map first (the Draw button).")
        rect = drawn
    layer = rectangle_layer(rect, crs)
    return layer, layer


def geometry_kind(active_layer) -> str:
    """'point', 'line' or 'polygon' for a vector layer, '' otherwise."""
    if not isinstance(active_layer, QgsVectorLayer):
        return ""
    # the display string API is stable across QGIS 3 and 4, unlike the enum's location
    name = QgsWkbTypes.geometryDisplayString(active_layer.geometryType()).lower()
    return name if name in ("point", "line", "polygon") else ""
