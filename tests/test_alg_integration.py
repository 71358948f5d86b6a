"""The algorithms inside QGIS: batches, models, qgis_process, PostGIS and styled results."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from alg_helpers import (
    LAT,
    LON,
    layer,
    out_layer,
    run,
    square,
)
from qgis.core import (
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProcessingModelAlgorithm,
    QgsProject,
    QgsVectorLayer,
)

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
QGIS_PROCESS = shutil.which("qgis_process.bin") or "/usr/bin/qgis_process.bin"


def _ids(lyr) -> list:
    return [f["id"] for f in lyr.getFeatures()]


def test_batch_over_three_areas(fs_provider, fs_env, tmp_path):  # noqa: F811
    # Three squares 0.008° wide, 0.01° apart: they do not overlap.
    areas = [square(LON + dx, LAT) for dx in (-0.01, 0.0, 0.01)]
    per_area = []
    for n, wkt in enumerate(areas):
        out = tmp_path / f"area{n}.gpkg"
        results, _ = run("fetchmapfeatures", {"INPUT": layer([wkt]), "OUTPUT": str(out)})
        per_area.append(_ids(QgsVectorLayer(results["OUTPUT"], "x", "ogr")))
    counts = [len(ids) for ids in per_area]
    assert all(c > 0 for c in counts)
    assert all(len(set(ids)) == len(ids) for ids in per_area)
    # Running the middle area again gives the same features (served from the cache).
    results, ctx = run("fetchmapfeatures", {"INPUT": layer([areas[1]]),
                                            "OUTPUT": "TEMPORARY_OUTPUT"})
    assert sorted(_ids(out_layer(results, ctx))) == sorted(per_area[1])
    # One run over the three areas gives exactly the features of the three runs.
    results, ctx = run("fetchmapfeatures", {"INPUT": layer(areas),
                                            "OUTPUT": "TEMPORARY_OUTPUT"})
    union = _ids(out_layer(results, ctx))
    batch = set().union(*per_area)
    assert len(batch) == sum(counts), "the areas do not overlap: no feature is in two"
    assert len(union) == sum(counts)
    assert set(union) == batch


def test_model_chains_fetch_and_buffer(fs_provider, fs_env, tmp_path):  # noqa: F811
    import processing

    model = QgsProcessingModelAlgorithm()
    assert model.fromFile(str(DATA / "features_buffer.model3"))
    out = tmp_path / "buffered.gpkg"
    context = QgsProcessingContext()
    context.setProject(QgsProject.instance())
    results = processing.run(model, {"area": layer([square()]),
                                     "buffer:buffered": str(out)},
                             context=context, feedback=QgsProcessingFeedback())
    buffered = QgsVectorLayer(results["buffer:buffered"], "b", "ogr")
    assert buffered.isValid() and buffered.featureCount() > 0
    assert buffered.geometryType() == 2  # polygons around the feature points
    assert "class" in buffered.fields().names()


def test_result_layers_get_name_and_style(fs_provider, fs_env):  # noqa: F811
    import processing
    from qgis.core import QgsProcessingAlgRunnerTask  # noqa: F401 - runs the post-processor

    project = QgsProject.instance()
    context = QgsProcessingContext()
    context.setProject(project)
    feedback = QgsProcessingFeedback()
    alg = fs_provider.algorithm("fetchlatestimagery")
    params = {"INPUT": layer([square()]), "OUTPUT": "TEMPORARY_OUTPUT"}
    results = processing.runAndLoadResults(alg, params, context=context, feedback=feedback)
    loaded = project.mapLayer(results["OUTPUT"])  # this run's layer, not one of the same name
    try:
        assert loaded is not None
        assert loaded.name() == "Imagery frames"
        from qgis.core import QgsSymbolLayer

        marker = loaded.renderer().symbol().symbolLayer(0)
        assert marker.shape() == marker.Arrow, "frames.qml draws arrows"
        angle = marker.dataDefinedProperties().property(QgsSymbolLayer.PropertyAngle)
        assert "heading" in angle.expressionString()
    finally:
        if loaded is not None:
            project.removeMapLayer(loaded.id())


def _vendor_dir(tmp: Path) -> Path:
    """A folder with httpx, polyline and friends for the system Python of qgis_process."""
    vendor = tmp / "vendor"
    vendor.mkdir()
    for name in ("httpx", "httpcore", "h11", "anyio", "sniffio", "idna", "certifi", "polyline",
                 "exceptiongroup", "typing_extensions"):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        src = origin.parent if origin.name == "__init__.py" else origin
        if "dist-packages" in str(src):
            continue  # the system Python already sees it
        (vendor / src.name).symlink_to(src)
    return vendor


@pytest.mark.skipif(not os.path.exists(QGIS_PROCESS), reason="qgis_process.bin not installed")
def test_qgis_process_writes_geopackage(fs_env, tmp_path):  # noqa: F811
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "fleet_street").symlink_to(REPO)
    area = tmp_path / "area.geojson"
    area.write_text('{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},'
                    '"geometry":' + _geojson_of(square()) + "}]}")
    env = dict(os.environ)
    env.update(fs_env.env())
    env.update({
        "QGIS_PLUGINPATH": str(plugins),
        "QGIS_CUSTOM_CONFIG_PATH": str(tmp_path / "profile"),
        "PYTHONPATH": str(_vendor_dir(tmp_path)),
        "FLEETSTREET_CACHE_DIR": str(tmp_path / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
        "PROJ_DATA": "/usr/share/proj",
    })
    enable = subprocess.run([QGIS_PROCESS, "plugins", "enable", "fleet_street"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert enable.returncode == 0, enable.stderr
    out = tmp_path / "x.gpkg"
    proc = subprocess.run([QGIS_PROCESS, "run", "fleetstreet:fetchmapfeatures", "--",
                           f"INPUT={area}", f"OUTPUT={out}"], env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "data-demo-key" not in proc.stdout + proc.stderr
    written = QgsVectorLayer(str(out), "x", "ogr")
    assert written.isValid() and written.featureCount() > 0
    assert written.crs().authid() == "EPSG:4326"
    # An error reaches the command line with the server's message and a failing exit code.
    env["FLEETSTREET_DATA_KEY"] = "wrong"
    env["FLEETSTREET_CACHE_DIR"] = str(tmp_path / "cache2")
    bad = subprocess.run([QGIS_PROCESS, "run", "fleetstreet:fetchmapfeatures", "--",
                          f"INPUT={area}", f"OUTPUT={tmp_path / 'bad.gpkg'}"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0
    assert "couldn't extract valid API key" in bad.stdout + bad.stderr


def _geojson_of(wkt: str) -> str:
    from qgis.core import QgsGeometry

    return QgsGeometry.fromWkt(wkt).asJson()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(args, **kwargs):
    """Run a PostgreSQL binary, as the postgres user when we are root."""
    if os.geteuid() == 0:
        args = ["runuser", "-u", "postgres", "--", *args]
    return subprocess.run(args, check=True, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="session")
def postgis_db():
    """A throw-away PostgreSQL cluster with PostGIS on a free loopback port."""
    if not (PG_BIN / "initdb").exists() or not shutil.which("psql"):
        pytest.skip("PostgreSQL binaries are not installed")
    root = Path(tempfile.mkdtemp(prefix="fs_pg_"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = root / "data", _free_port()
    _as_postgres([str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust"])
    _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w",
                  "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start"])
    try:
        psql = ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-v",
                "ON_ERROR_STOP=1"]
        subprocess.run([*psql, "-c", "CREATE DATABASE fleet"], check=True, capture_output=True)
        ext = subprocess.run([*psql, "-d", "fleet", "-c", "CREATE EXTENSION postgis"],
                             capture_output=True, text=True)
        if ext.returncode != 0:
            pytest.skip(f"PostGIS is not available: {ext.stderr.strip()}")
        yield {"port": port, "dbname": "fleet", "psql": [*psql, "-d", "fleet"]}
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.postgis
def test_output_to_postgis(fs_provider, fs_env, postgis_db):  # noqa: F811
    uri = (f"dbname='{postgis_db['dbname']}' host=127.0.0.1 port={postgis_db['port']} "
           "user='postgres' table=\"public\".\"map_features\" (geom)")
    results, _ = run("fetchmapfeatures", {"INPUT": layer([square()]), "OUTPUT": "postgis:" + uri})
    pg = QgsVectorLayer(uri, "pg", "postgres")
    assert pg.isValid()
    assert pg.featureCount() > 0
    assert pg.crs().authid() == "EPSG:4326"
    types = {f.name(): f.typeName().lower() for f in pg.fields()}
    assert types["first_seen"].startswith("timestamp")
    assert types["confidence"].startswith("float8") or types["confidence"].startswith("double")
    count = subprocess.run([*postgis_db["psql"], "-tAc",
                            "SELECT count(*) FROM public.map_features WHERE "
                            "ST_SRID(geom) = 4326"], capture_output=True, text=True, check=True)
    assert int(count.stdout.strip()) == pg.featureCount()
