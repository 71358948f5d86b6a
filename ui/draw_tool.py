"""A map tool to draw the query polygon: click the corners, right-click or Enter to finish."""

from __future__ import annotations

from qgis.core import QgsGeometry, QgsPointXY
from qgis.gui import QgsMapTool, QgsRubberBand
from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QColor

from ..processing_provider.compat import GEOMETRY_POLYGON


class PolygonDrawTool(QgsMapTool):
    """Collects polygon corners on the canvas and emits the polygon in the canvas CRS."""

    finished = pyqtSignal(QgsGeometry)

    def __init__(self, canvas):
        super().__init__(canvas)
        self.points: list[QgsPointXY] = []
        self.band = QgsRubberBand(canvas, GEOMETRY_POLYGON)
        self.band.setColor(QColor(255, 107, 53, 200))
        self.band.setFillColor(QColor(255, 107, 53, 50))
        self.band.setWidth(2)
        self.setCursor(Qt.CursorShape.CrossCursor)

    def _redraw(self, moving: QgsPointXY | None = None) -> None:
        points = self.points + ([moving] if moving is not None else [])
        self.band.setToGeometry(QgsGeometry.fromPolygonXY([points]) if len(points) > 2
                                else QgsGeometry.fromPolylineXY(points), None)

    def canvasMoveEvent(self, event):  # noqa: N802 - QGIS API name
        """Show the polygon with the pointer as its next corner."""
        if self.points:
            self._redraw(self.toMapCoordinates(event.pos()))

    def canvasReleaseEvent(self, event):  # noqa: N802 - QGIS API name
        """Left click adds a corner; right click finishes."""
        if event.button() == Qt.MouseButton.RightButton:
            self.finish()
            return
        self.points.append(self.toMapCoordinates(event.pos()))
        self._redraw()

    def keyPressEvent(self, event):  # noqa: N802 - QGIS API name
        """Enter finishes, Escape starts again, Backspace removes the last corner."""
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.finish()
        elif key == Qt.Key.Key_Escape:
            self.reset()
        elif key == Qt.Key.Key_Backspace and self.points:
            self.points.pop()
            self._redraw()

    def finish(self) -> None:
        """Emit the polygon when it has at least three corners."""
        if len(self.points) < 3:
            return
        geometry = QgsGeometry.fromPolygonXY([self.points + [self.points[0]]])
        if not geometry.isGeosValid():  # a crossing outline still means an area: repair it
            geometry = geometry.makeValid()
        self.reset()
        self.finished.emit(geometry)

    def reset(self) -> None:
        """Forget the corners and hide the outline."""
        self.points = []
        self.band.reset(GEOMETRY_POLYGON)

    def deactivate(self):
        """Clear the outline when another tool takes over."""
        self.reset()
        super().deactivate()
