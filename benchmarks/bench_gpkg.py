"""Write 200,000 map features to a GeoPackage: the algorithms' sink path against ogr2ogr."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

N = int(os.environ.get("BENCH_GPKG_N", "200000"))
CLASSES = ["speed-sign", "stop-sign", "parking-restriction-sign", "turn-restriction-sign",
           "highway-sign", "fire-hydrant", "traffic-light", "lane-line"]


def synthetic_records(n: int, seed: int = 7) -> list:
    """n map-feature JSON records shaped like the data API's answers."""
    rnd = random.Random(seed)
    base = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out = []
    for i in range(n):
        cls = CLASSES[i % len(CLASSES)]
        first = base + timedelta(seconds=rnd.randrange(0, 300 * 86400))
        props = {}
        if cls == "speed-sign":
            props = {"speedLimit": rnd.choice([20, 30, 40, 50, 60, 70]), "unit": "mph"}
        elif cls == "parking-restriction-sign":
            props = {"signType": "no-parking", "hours": "8-18"}
        elif cls == "lane-line":
            props = {"laneCount": rnd.randint(1, 4), "widthM": round(rnd.uniform(2.8, 3.8), 2)}
        out.append({
            "id": f"mf-{i:07d}",
            "class": cls,
            "status": "active",
            "position": {"lat": 37.70 + rnd.random() * 0.1, "lon": -122.50 + rnd.random() * 0.1,
                         "azimuth": rnd.uniform(0, 360)},
            "properties": props,
            "confidence": round(rnd.uniform(0.5, 1.0), 3),
            "observed": {"firstSeen": first.isoformat().replace("+00:00", "Z"),
                         "lastSeen": (first + timedelta(days=rnd.randint(0, 60)))
                         .isoformat().replace("+00:00", "Z")},
            "n_detections": rnd.randint(1, 40),
            "image": {"url": f"https://img.example/{i}.jpg?sig=abc",
                      "bbox": {"x": rnd.random(), "y": rnd.random(), "w": 0.05, "h": 0.08}},
        })
    return out


def flat_geojson(records: list, path: str) -> None:
    """The same features as a GeoJSON file with the flattened attributes ours writes."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('{"type":"FeatureCollection","features":[\n')
        for n, r in enumerate(records):
            pos, img, obs = r["position"], r["image"], r["observed"]
            props = {
                "id": r["id"], "class": r["class"], "status": r["status"],
                "confidence": r["confidence"], "azimuth": pos["azimuth"],
                "first_seen": obs["firstSeen"], "last_seen": obs["lastSeen"],
                "n_detections": r["n_detections"], "lat": pos["lat"], "lon": pos["lon"],
                "image_url": img["url"], "image_path": None,
                "bbox_x": img["bbox"]["x"], "bbox_y": img["bbox"]["y"],
                "bbox_w": img["bbox"]["w"], "bbox_h": img["bbox"]["h"],
                "properties": json.dumps(r["properties"], separators=(",", ":")),
            }
            feat = {"type": "Feature", "properties": props,
                    "geometry": {"type": "Point", "coordinates": [pos["lon"], pos["lat"]]}}
            fh.write(("," if n else "") + json.dumps(feat, separators=(",", ":")) + "\n")
        fh.write("]}\n")


def write_ours(features: list, path: str) -> int:
    """Write MapFeature models to a GeoPackage through the algorithms' fields and sink code."""
    from qgis.core import QgsProcessingContext, QgsProcessingUtils, QgsProject, QgsWkbTypes

    from fleet_street.processing_provider.fields import (
        WGS84,
        map_feature_features,
        map_feature_fields,
        write_features,
    )

    context = QgsProcessingContext()
    context.setProject(QgsProject.instance())
    fields, plan = map_feature_fields(features)
    sink, _dest = QgsProcessingUtils.createFeatureSink(path, context, fields, QgsWkbTypes.Point,
                                                       WGS84)
    count = write_features(sink, map_feature_features(features, fields, plan))
    del sink  # closing the writer flushes the GeoPackage
    return count


def main() -> None:
    """Run the benchmark and print both timings and their ratio."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PROJ_DATA", "/usr/share/proj")
    from qgis.core import QgsApplication

    from fleet_street.core.models import MapFeature

    app = QgsApplication([], False)
    app.initQgis()
    ogr2ogr = shutil.which("ogr2ogr")
    tmp = tempfile.mkdtemp(prefix="bench_gpkg_")
    try:
        records = synthetic_records(N)
        t0 = time.perf_counter()
        features = [MapFeature.from_json(r) for r in records]
        t_parse = time.perf_counter() - t0

        ours_path = os.path.join(tmp, "ours.gpkg")
        t0 = time.perf_counter()
        count = write_ours(features, ours_path)
        t_ours = time.perf_counter() - t0
        print(f"records: {N}")
        print(f"parse JSON -> MapFeature: {t_parse:.2f} s")
        print(f"ours (features -> GeoPackage): {t_ours:.2f} s, {count / t_ours:,.0f} features/s")
        if ogr2ogr is None:
            print("ogr2ogr not found: no comparison")
            return
        gj = os.path.join(tmp, "features.geojson")
        flat_geojson(records, gj)
        ref_path = os.path.join(tmp, "ogr.gpkg")
        t0 = time.perf_counter()
        subprocess.run([ogr2ogr, "-f", "GPKG", ref_path, gj, "-nln", "features"], check=True)
        t_ogr = time.perf_counter() - t0
        print(f"ogr2ogr (GeoJSON -> GeoPackage): {t_ogr:.2f} s, {N / t_ogr:,.0f} features/s")
        ratio = t_ogr / t_ours
        print(f"speed ratio ours/ogr2ogr: {ratio:.2f}x (target >= 0.70x)")
        print(f"incl. JSON parsing: {t_ogr / (t_ours + t_parse):.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        app.exitQgis()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
