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


class StylePostProcessor(QgsProcessingLayerPostProcessorInterface):
    """Loads a QML style onto a result layer once Processing adds it to the project."""

    def __init__(self, style: str):
        super().__init__()
        self.path = style_path(style)
        _KEEP_ALIVE.append(self)

    def postProcessLayer(self, layer, context, feedback):  # noqa: N802 - QGIS API name
        """Apply the style; a missing or broken style only logs a warning."""
        if layer is None or not os.path.exists(self.path):
            return
        message, ok = layer.loadNamedStyle(self.path)
        if not ok and feedback is not None:
            feedback.pushInfo(f"Could not apply the default style: {message}")
        layer.triggerRepaint()
