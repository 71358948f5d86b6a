"""Default styles: every shipped QML loads, and map features are drawn with the class icons."""

import os

import pytest
from qgis.core import QgsVectorLayer

from fleet_street.processing_provider.styling import (
    FEATURE_ICONS_DIR,
    STYLES_DIR,
    apply_style,
)

FEATURE_CLASSES = ["speed-sign", "stop-sign", "parking-restriction-sign",
                   "turn-restriction-sign", "highway-sign", "fire-hydrant", "traffic-light",
                   "lane-line"]
STYLE_LAYERS = {
    "map_features": "Point?field=class:string&field=confidence:double",
    "frames": "Point?field=heading:double",
    "trips": "LineString?field=distance_km:double",
    "bursts": "Point?field=status:string",
    "ai_events": "Point?field=type:string",
    "locations": "Point?field=device_name:string&field=speed_kmh:double",
}


@pytest.mark.parametrize("style", sorted(STYLE_LAYERS))
def test_each_shipped_style_loads(qgis_app, style):
    assert os.path.exists(os.path.join(STYLES_DIR, f"{style}.qml"))
    layer = QgsVectorLayer(f"{STYLE_LAYERS[style]}&crs=EPSG:4326", style, "memory")
    assert apply_style(layer, style)
    assert layer.renderer() is not None


def test_map_features_get_one_svg_icon_per_class(qgis_app):
    layer = QgsVectorLayer(f"{STYLE_LAYERS['map_features']}&crs=EPSG:4326", "f", "memory")
    assert apply_style(layer, "map_features")
    renderer = layer.renderer()
    assert renderer.type() == "categorizedSymbol"
    icons = {}
    for category in renderer.categories():
        symbol_layer = category.symbol().symbolLayer(0)
        if symbol_layer.layerType() == "SvgMarker":
            icons[category.value()] = symbol_layer.path()
    assert sorted(icons) == sorted(FEATURE_CLASSES)
    for name, path in icons.items():
        assert path == os.path.join(FEATURE_ICONS_DIR, f"{name}.svg")
        assert os.path.isfile(path)


def _expand(layer, template, feature):
    from qgis.core import QgsExpression, QgsExpressionContext, QgsExpressionContextUtils

    context = QgsExpressionContext(QgsExpressionContextUtils.globalProjectLayerScopes(layer))
    context.setFeature(feature)
    return QgsExpression.replaceExpressionText(template, context)


@pytest.mark.parametrize("style,fields,link", [
    ("map_features", "class:string&field=image_url:string&field=image_path:string",
     "image_url"),
    ("frames", "sequence:string&field=url:string&field=image_path:string", "url"),
])
def test_open_image_action_prefers_the_downloaded_file(qgis_app, style, fields, link):
    from qgis.core import QgsFeature

    layer = QgsVectorLayer(f"Point?crs=EPSG:4326&field={fields}", style, "memory")
    assert apply_style(layer, style)
    actions = [a for a in layer.actions().actions() if a.name() == "Open image"]
    assert len(actions) == 1
    feature = QgsFeature(layer.fields())
    feature[link] = "https://cdn.example/img.jpg?Expires=1"
    assert _expand(layer, actions[0].command(), feature) == \
        "https://cdn.example/img.jpg?Expires=1"
    feature["image_path"] = "/data/images/img.jpg"
    assert _expand(layer, actions[0].command(), feature) == "file:///data/images/img.jpg"
    assert 'src="file:///data/images/img.jpg"' in _expand(layer, layer.mapTipTemplate(),
                                                          feature)


def test_events_get_an_open_video_action(qgis_app):
    from qgis.core import QgsFeature

    layer = QgsVectorLayer("Point?crs=EPSG:4326&field=type:string&field=video_url:string",
                           "events", "memory")
    assert apply_style(layer, "ai_events")
    (action,) = [a for a in layer.actions().actions() if a.name() == "Open video"]
    feature = QgsFeature(layer.fields())
    feature["video_url"] = "https://cdn.example/v.avi"
    assert _expand(layer, action.command(), feature) == "https://cdn.example/v.avi"
