"""Default QML styles applied to result layers when Processing loads them."""

from __future__ import annotations

import os
from collections import deque

from qgis.core import QgsProcessingLayerPostProcessorInterface

# QgsProcessingAlgorithm.run() executes and then deletes a copy of the algorithm, while the
# layer details keep only a raw pointer to the post-processor: processors stay referenced here
# (a bounded window, long after their layer is loaded) so that pointer never dangles.
_KEEP_ALIVE: deque = deque(maxlen=256)

PLUGIN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STYLES_DIR = os.path.join(PLUGIN_DIR, "styles")
FEATURE_ICONS_DIR = os.path.join(PLUGIN_DIR, "icons", "features")
ICON_SIZE_MM = 5.0


def style_path(name: str) -> str:
    """Absolute path of a QML style shipped in styles/."""
    return os.path.join(STYLES_DIR, name if name.endswith(".qml") else name + ".qml")


def release_post_processors() -> None:
    """Forget the kept post-processors (when no run can still be loading a layer)."""
    _KEEP_ALIVE.clear()


def apply_style(layer, style: str) -> bool:
    """Load the shipped QML style `style` onto layer; False when it cannot be applied."""
    path = style_path(style)
    if not os.path.exists(path):
        return False
    _message, ok = layer.loadNamedStyle(path)
    if ok and os.path.basename(path) == "map_features.qml":
        use_feature_icons(layer)
    add_media_actions(layer)
    layer.triggerRepaint()
    return bool(ok)


# field holding the local file, field holding the signed link, what it is
_MEDIA_FIELDS = [("image_path", "image_url", "image"), ("image_path", "url", "image"),
                 (None, "video_url", "video")]


def add_media_actions(layer) -> bool:
    """Give layers with images or videos an "Open" action and an image map tip.

    The downloaded file is preferred: signed links expire within hours.
    """
    from qgis.core import QgsAction

    names = set(layer.fields().names())
    for local, link, kind in _MEDIA_FIELDS:
        if link not in names:
            continue
        target = f'"{link}"'
        if local in names:
            # file:// plus a POSIX path, file:/// plus a Windows drive path
            target = (f"""if("{local}" is not null, if(left("{local}", 1) = '/', """
                      f"""'file://', 'file:///') || "{local}", "{link}")""")
        manager = layer.actions()
        if not any(a.name() == f"Open {kind}" for a in manager.actions()):
            manager.addAction(QgsAction(
                _open_url_type(), f"Open {kind}", f"[% {target} %]", "", False,
                f"Open the {kind}", {"Feature", "Canvas"}))
        if kind == "image":
            layer.setMapTipTemplate(
                f'<b>[% "{"class" if "class" in names else "sequence"}" %]</b><br>'
                f'<img src="[% {target} %]" width="320"/>')
        return True
    return False


def _open_url_type():
    """The 'open URL' action type under its QGIS 3 or QGIS 4 name."""
    from qgis.core import Qgis, QgsAction

    scoped = getattr(Qgis, "AttributeActionType", None)
    return scoped.OpenUrl if scoped is not None else QgsAction.OpenUrl


def use_feature_icons(layer) -> int:
    """Draw each feature class with the plugin's SVG icon; return how many classes got one.

    A QML file stores SVG paths as written, which would break once the plugin is installed
    elsewhere, so the icons are attached here with their path on this machine.
    """
    from qgis.core import QgsMarkerSymbol, QgsSvgMarkerSymbolLayer

    renderer = layer.renderer()
    if renderer is None or renderer.type() != "categorizedSymbol":
        return 0
    changed = 0
    for index, category in enumerate(renderer.categories()):
        icon = os.path.join(FEATURE_ICONS_DIR, f"{category.value()}.svg")
        if not category.value() or not os.path.exists(icon):
            continue
        symbol = QgsMarkerSymbol()
        symbol.changeSymbolLayer(0, QgsSvgMarkerSymbolLayer(icon, ICON_SIZE_MM))
        renderer.updateCategorySymbol(index, symbol)
        changed += 1
    return changed


class StylePostProcessor(QgsProcessingLayerPostProcessorInterface):
    """Loads a QML style onto a result layer once Processing adds it to the project."""

    def __init__(self, style: str):
        super().__init__()
        self.path = style_path(style)
        _KEEP_ALIVE.append(self)

    def postProcessLayer(self, layer, context, feedback):  # noqa: N802 - QGIS API name
        """Apply the style; a missing or broken style only logs a warning."""
        if layer is None:
            return
        if not apply_style(layer, self.path) and feedback is not None:
            feedback.pushInfo(f"Could not apply the default style {self.path}.")
