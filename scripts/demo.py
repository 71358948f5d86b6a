"""`make demo`: fetch a demo area into a GeoPackage and render a PNG map of the result.

Runs against the local emulator unless FLEETSTREET_DATA_URL / FLEETSTREET_FLEET_URL point
at a real service (then the keys come from FLEETSTREET_DATA_KEY / FLEETSTREET_FLEET_KEY).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import pathlib
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PROJ_DATA", "/usr/share/proj")

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Berlin Mitte, about 9 km²: two to three query tiles
DEMO_AREA_WKT = ("POLYGON((13.380 52.510, 13.425 52.510, 13.425 52.528, "
                 "13.380 52.528, 13.380 52.510))")
STYLES = {"map_features": "map_features", "latest_imagery": "frames",
          "imagery_by_week": "frames", "trips": "trips", "device_locations": "locations"}
STEPS = [
    ("fleetstreet:fetchmapfeatures", "map_features", {"MIN_CONFIDENCE": 0.5,
                                                      "DOWNLOAD_IMAGES": True}),
    ("fleetstreet:fetchlatestimagery", "latest_imagery", {"HEADINGS": True}),
    ("fleetstreet:fetchimagerybyweek", "imagery_by_week", {"WEEKS": 3}),
    ("fleetstreet:trips", "trips", {"DAYS": 3}),
    ("fleetstreet:latestlocations", "device_locations", {}),
]


def start_qgis():
    """A headless QgsApplication with Processing and the Fleet Street provider."""
    from qgis.core import QgsApplication

    app = QgsApplication([], False)
    app.initQgis()
    sys.path.append(os.path.join(app.pkgDataPath(), "python", "plugins"))
    from processing.core.Processing import Processing

    Processing.initialize()
    from fleet_street.processing_provider.provider import FleetStreetProvider

    provider = FleetStreetProvider()
    QgsApplication.processingRegistry().addProvider(provider)
    return app, provider


def area_layer():
    """The demo area as a memory layer in EPSG:4326."""
    from qgis.core import QgsFeature, QgsGeometry, QgsVectorLayer

    layer = QgsVectorLayer("Polygon?crs=EPSG:4326", "Demo area", "memory")
    feature = QgsFeature()
    feature.setGeometry(QgsGeometry.fromWkt(DEMO_AREA_WKT))
    layer.dataProvider().addFeatures([feature])
    return layer


def parameters(extra: dict, area, today: dt.date) -> dict:
    """Fill the date parameters the demo steps ask for in relative terms."""
    params = {k: v for k, v in extra.items() if k not in ("WEEKS", "DAYS")}
    if "WEEKS" in extra:
        params["INPUT"] = area
        params["START_DATE"] = (today - dt.timedelta(weeks=extra["WEEKS"])).isoformat()
        params["END_DATE"] = today.isoformat()
    elif "DAYS" in extra:
        params["START_DATE"] = (today - dt.timedelta(days=extra["DAYS"])).isoformat()
        params["END_DATE"] = today.isoformat()
    elif "MIN_CONFIDENCE" in extra or "HEADINGS" in extra:
        params["INPUT"] = area
    return params


def run_steps(gpkg: pathlib.Path, images: pathlib.Path) -> list[tuple[str, str]]:
    """Run every demo algorithm into its GeoPackage table; return (table, layer source)."""
    import processing
    from qgis.core import QgsProcessingFeedback

    class Printer(QgsProcessingFeedback):
        def pushInfo(self, info):  # noqa: N802 - QGIS API name
            print(f"    {info}", flush=True)

    area = area_layer()
    today = dt.date.today()
    written = []
    for alg_id, table, extra in STEPS:
        params = parameters(extra, area, today)
        if params.get("DOWNLOAD_IMAGES"):
            params["IMAGE_FOLDER"] = str(images)
        params["OUTPUT"] = f"ogr:dbname='{gpkg}' table=\"{table}\" (geom)"
        started = time.perf_counter()
        print(f"- {alg_id}", flush=True)
        result = processing.run(alg_id, params, feedback=Printer())
        print(f"  -> {table} ({time.perf_counter() - started:.1f} s)", flush=True)
        written.append((table, result["OUTPUT"]))
    balance = processing.run("fleetstreet:creditbalance", {})["BALANCE"]
    print(f"- credits remaining: {balance:,.0f}")
    return written


def render(gpkg: pathlib.Path, tables: list[str], png: pathlib.Path) -> None:
    """Render the GeoPackage tables with the plugin's default styles into a PNG."""
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransform,
        QgsFillSymbol,
        QgsMapRendererParallelJob,
        QgsMapSettings,
        QgsProject,
        QgsRectangle,
        QgsVectorLayer,
    )
    from qgis.PyQt.QtCore import QSize
    from qgis.PyQt.QtGui import QColor, QFont, QPainter

    from fleet_street.processing_provider.styling import apply_style

    by_table = {}
    for table in tables:
        layer = QgsVectorLayer(f"{gpkg}|layername={table}", table, "ogr")
        if layer.isValid() and layer.featureCount():
            apply_style(layer, STYLES[table])
            by_table[table] = layer
    area = area_layer()
    area.renderer().setSymbol(QgsFillSymbol.createSimple(
        {"style": "no", "outline_color": "#333333", "outline_width": "0.6",
         "outline_style": "dash"}))
    mercator = QgsCoordinateReferenceSystem("EPSG:3857")
    to_mercator = QgsCoordinateTransform(area.crs(), mercator, QgsProject.instance())
    extent = QgsRectangle(to_mercator.transformBoundingBox(area.extent()))
    extent.scale(1.1)
    settings = QgsMapSettings()
    # first is drawn on top; weekly frames repeat the latest ones' places, so not drawn
    order = ["device_locations", "map_features", "latest_imagery", "trips"]
    settings.setLayers([by_table[t] for t in order if t in by_table] + [area])
    settings.setDestinationCrs(mercator)
    settings.setExtent(extent)
    settings.setOutputSize(QSize(1400, 900))
    settings.setBackgroundColor(QColor("#f4f1ea"))
    job = QgsMapRendererParallelJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    painter = QPainter(image)
    painter.setFont(QFont("DejaVu Sans", 14))
    counts = ", ".join(f"{layer.featureCount()} {t.replace('_', ' ')}"
                       for t, layer in by_table.items())
    painter.drawText(16, 28, f"Fleet Street demo (emulator): {counts}")
    painter.end()
    image.save(str(png), "PNG")


def summarise(gpkg: pathlib.Path, tables: list[str], png: pathlib.Path) -> None:
    """Print the feature count of each table and where the results are."""
    from qgis.core import QgsVectorLayer

    print("\nResult:")
    for table in tables:
        count = QgsVectorLayer(f"{gpkg}|layername={table}", table, "ogr").featureCount()
        print(f"  {table:18s} {count:6d} features")
    print(f"  GeoPackage: {gpkg}\n  Map:        {png}")


def main() -> int:
    """Start the emulator unless a real service is configured, fetch, render, summarise."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(ROOT / "demo_output"))
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    gpkg = out / "fleet_street_demo.gpkg"
    gpkg.unlink(missing_ok=True)

    with contextlib.ExitStack() as stack:
        if not os.environ.get("FLEETSTREET_DATA_URL"):
            from emulator.testing import start_emulator

            emulator = stack.enter_context(start_emulator())
            os.environ.update(emulator.env())
            print(f"emulator: fleet API {emulator.fleet_url}, data API {emulator.data_url}")
        os.environ.setdefault("FLEETSTREET_CACHE_DIR", str(out / "cache"))
        app, _provider = start_qgis()
        written = run_steps(gpkg, out / "images")
        png = out / "fleet_street_demo.png"
        render(gpkg, [t for t, _ in written], png)
        summarise(gpkg, [t for t, _ in written], png)
        # every layer object is gone by now: layers outliving exitQgis crash on deletion
        app.exitQgis()
    return 0


if __name__ == "__main__":
    sys.exit(main())
