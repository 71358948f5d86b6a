"""The cell grid of the procedural world: ~1 km cells and the arterial street lattice.

Rows are 0.01 degree of latitude. Within each 1-degree latitude band the columns share one
longitude step (scaled by the cosine of the band's latitude), so vertical arterials run
unbroken through a whole band and horizontal arterials through a whole row: trips can
follow them across cells.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

from emulator.util import hash_unit

ROW_DEG = 0.01
ROWS_PER_BAND = 100
M_PER_DEG_LAT = 111_320.0


class Cell(NamedTuple):
    """A grid cell, identified by its row j and column i (the band follows from j)."""

    j: int
    i: int

    @property
    def band(self) -> int:
        """The 1-degree latitude band holding this cell."""
        return self.j // ROWS_PER_BAND


@functools.lru_cache(maxsize=512)
def n_columns(band: int) -> int:
    """Number of columns around the globe in a latitude band."""
    lat_c = (band + 0.5) * ROWS_PER_BAND * ROW_DEG
    return max(1, int(round(36000 * math.cos(math.radians(lat_c)))))


def col_step(band: int) -> float:
    """Longitude width of the cells in a band."""
    return 360.0 / n_columns(band)


def cell_of(lon: float, lat: float) -> Cell:
    """Return the cell that holds a point."""
    j = min(int(math.floor(lat / ROW_DEG)), int(90 / ROW_DEG) - 1)
    band = j // ROWS_PER_BAND
    n = n_columns(band)
    i = min(int(math.floor((lon + 180.0) / (360.0 / n))), n - 1)
    return Cell(j, i)


def cell_bounds(cell: Cell) -> tuple[float, float, float, float]:
    """Return (lon0, lat0, lon1, lat1) of a cell."""
    step = col_step(cell.band)
    lon0 = -180.0 + cell.i * step
    lat0 = cell.j * ROW_DEG
    return lon0, lat0, lon0 + step, lat0 + ROW_DEG


def cells_in_bbox(minx: float, miny: float, maxx: float, maxy: float) -> list[Cell]:
    """Return every cell whose area meets the bounding box."""
    out = []
    j0 = int(math.floor(miny / ROW_DEG))
    j1 = min(int(math.floor(maxy / ROW_DEG)), int(90 / ROW_DEG) - 1)
    for j in range(j0, j1 + 1):
        band = j // ROWS_PER_BAND
        n = n_columns(band)
        step = 360.0 / n
        i0 = max(0, int(math.floor((minx + 180.0) / step)))
        i1 = min(n - 1, int(math.floor((maxx + 180.0) / step)))
        out.extend(Cell(j, i) for i in range(i0, i1 + 1))
    return out


def arterial_lat(seed: int, j: int) -> float:
    """Latitude of the horizontal arterial of row j."""
    return j * ROW_DEG + ROW_DEG * (0.2 + 0.6 * hash_unit(seed, "hart", j))


def arterial_lon(seed: int, band: int, i: int) -> float:
    """Longitude of the vertical arterial of column i in a band."""
    step = col_step(band)
    return -180.0 + i * step + step * (0.2 + 0.6 * hash_unit(seed, "vart", band, i))


def metres_per_deg_lon(lat: float) -> float:
    """Metres per degree of longitude at a latitude."""
    return M_PER_DEG_LAT * max(math.cos(math.radians(lat)), 1e-6)


def cell_area_km2(cell: Cell) -> float:
    """Approximate area of a cell in km^2."""
    lon0, lat0, lon1, lat1 = cell_bounds(cell)
    lat_c = (lat0 + lat1) / 2
    return (lon1 - lon0) * metres_per_deg_lon(lat_c) * (lat1 - lat0) * M_PER_DEG_LAT / 1e6
