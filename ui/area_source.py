"""Turn the panel's area choice into the INPUT value of a Processing algorithm."""

from __future__ import annotations

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsGeometry,
    QgsProcessingFeatureSourceDefinition,
    QgsRectangle,
    QgsVectorLayer,
)

SELECTED = "selected"
LAYER = "layer"
EXTENT = "extent"
DRAWN = "drawn"
#: above this many features the panel shows no size estimate (it runs on the main thread)
ESTIMATE_MAX_FEATURES = 2000
#: drawn areas are kept in lon/lat, so a later change of the map's CRS cannot shift them
DRAWN_CRS = QgsCoordinateReferenceSystem("EPSG:4326")

AREA_CHOICES = [
    (SELECTED, "Selected features of the active layer"),
    (LAYER, "All features of the active layer"),
    (EXTENT, "Current map extent"),
    (DRAWN, "Polygon drawn on the map"),
]


class AreaError(ValueError):
    """The chosen area cannot be used; the message says why and what to do."""


def polygon_layer(geometry: QgsGeometry, crs, name: str = "Fleet Street area") -> QgsVectorLayer:
    """A one-feature memory polygon layer holding geometry in crs."""
    layer = QgsVectorLayer("Polygon", name, "memory")
    layer.setCrs(crs)
    feature = QgsFeature()
    feature.setGeometry(geometry)
    layer.dataProvider().addFeatures([feature])
    return layer


def area_input(choice: str, active_layer, canvas, drawn: QgsGeometry | None):
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
    if choice == EXTENT:
        geometry = QgsGeometry.fromRect(QgsRectangle(canvas.extent()))
        crs = canvas.mapSettings().destinationCrs()
    else:
        if drawn is None or drawn.isEmpty():
            raise AreaError("Draw the area on the map first: press Draw, click its corners, "
                            "right-click to finish.")
        geometry, crs = drawn, DRAWN_CRS
    layer = polygon_layer(geometry, crs)
    return layer, layer


def area_km2(choice: str, active_layer, canvas, drawn: QgsGeometry | None) -> float:
    """Ellipsoidal area in km² of the chosen area (lines and points count as zero)."""
    from qgis.core import QgsDistanceArea, QgsProject

    measure = QgsDistanceArea()
    measure.setEllipsoid("WGS84")
    if choice in (SELECTED, LAYER):
        if not isinstance(active_layer, QgsVectorLayer):
            return 0.0
        measure.setSourceCrs(active_layer.crs(), QgsProject.instance().transformContext())
        count = (active_layer.selectedFeatureCount() if choice == SELECTED
                 else active_layer.featureCount())
        if count > ESTIMATE_MAX_FEATURES:
            return 0.0  # an estimate must not freeze the map; the fetch itself will tell
        features = (active_layer.getSelectedFeatures() if choice == SELECTED
                    else active_layer.getFeatures())
        return sum(measure.measureArea(f.geometry()) for f in features
                   if f.hasGeometry()) / 1e6
    if choice == EXTENT:
        geometry, crs = QgsGeometry.fromRect(canvas.extent()), canvas.mapSettings().destinationCrs()
    else:
        geometry, crs = drawn, DRAWN_CRS
    measure.setSourceCrs(crs, QgsProject.instance().transformContext())
    return measure.measureArea(geometry) / 1e6 if geometry is not None else 0.0
