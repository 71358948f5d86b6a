"""Default QML styles applied to result layers when Processing loads them."""

from __future__ import annotations

import os
from collections import deque

from qgis.core import QgsProcessingLayerPostProcessorInterface

# QgsProcessingAlgorithm.run() executes and then deletes a copy of the algorithm, while the
# layer details keep only a raw pointer to the post-processor: processors stay referenced here
# (a bounded window, long after their layer is loaded) so that pointer never dangles.
_KEEP_ALIVE: deque = deque(maxlen=256)

STYLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "styles")


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
    layer.triggerRepaint()
    return bool(ok)


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
