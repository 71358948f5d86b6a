"""Helpers shared by the algorithm tests: input layers, runs, output checks."""

from __future__ import annotations

from qgis.core import (
    QgsFeature,
    QgsGeometry,
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProject,
    QgsVectorLayer,
)

# Central San Francisco: the emulator's world has street data here.
LON, LAT = -122.4194, 37.7749
# A ~0.6 km² square around it, in lon/lat.
SQUARE_4326 = (f"POLYGON(({LON - 0.004} {LAT - 0.003}, {LON + 0.004} {LAT - 0.003}, "
               f"{LON + 0.004} {LAT + 0.003}, {LON - 0.004} {LAT + 0.003}, "
               f"{LON - 0.004} {LAT - 0.003}))")


def layer(wkt_list, crs="EPSG:4326", kind="Polygon", fields="&field=name:string"):
    """A memory layer holding the given WKT geometries."""
    lyr = QgsVectorLayer(f"{kind}?crs={crs}{fields}", "area", "memory")
    feats = []
    for n, wkt in enumerate(wkt_list):
        f = QgsFeature(lyr.fields())
        f.setGeometry(QgsGeometry.fromWkt(wkt))
        f.setAttributes([f"f{n}"])
        feats.append(f)
    lyr.dataProvider().addFeatures(feats)
    lyr.updateExtents()
    assert lyr.isValid() and lyr.featureCount() == len(wkt_list)
    return lyr


def square(lon=LON, lat=LAT, dx=0.004, dy=0.003):
    """WKT of a lon/lat rectangle centred on (lon, lat)."""
    return (f"POLYGON(({lon - dx} {lat - dy}, {lon + dx} {lat - dy}, {lon + dx} {lat + dy}, "
            f"{lon - dx} {lat + dy}, {lon - dx} {lat - dy}))")


def run(alg_id, params, context=None):
    """processing.run with a fresh context; returns (results, context)."""
    import processing

    context = context or QgsProcessingContext()
    context.setProject(QgsProject.instance())
    feedback = QgsProcessingFeedback()
    results = processing.run(f"fleetstreet:{alg_id}", params, context=context,
                             feedback=feedback)
    return results, context


def out_layer(results, context, key="OUTPUT"):
    """The output layer of a processing result (memory or file)."""
    value = results[key]
    if isinstance(value, QgsVectorLayer):
        return value
    lyr = context.getMapLayer(value) if context is not None else None
    if lyr is None:
        lyr = QgsVectorLayer(value, key, "ogr")
    assert lyr is not None and lyr.isValid(), value
    return lyr


def field_types(lyr):
    """{field name: QVariant/QMetaType type name} of a layer."""
    return {f.name(): f.typeName().lower() for f in lyr.fields()}


def requests(emulator, method, path):
    """How many requests the emulator saw for a data API path (e.g. "/latest/poly")."""
    endpoints = emulator.stats().get("endpoints", {})
    return sum(v.get("requests", 0) for k, v in endpoints.items()
               if k.startswith(method + " ") and k.endswith(path))


def wait_idle(emulator, timeout_s: float = 10.0) -> None:
    """Wait until the emulator has no API request in flight (it logs each when answered)."""
    import time

    deadline = time.monotonic() + timeout_s
    while emulator.stats()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert emulator.stats()["in_flight"] == 0, "the emulator still has requests in flight"
