"""Undistortion of camera images with the lens model from /devices (numpy only)."""

from __future__ import annotations

from typing import Any

from .models import CameraIntrinsics


def undistort(array: Any, intr: CameraIntrinsics, interpolation: str = "bilinear") -> Any:
    """Undistorted copy of an H×W(×C) image array, same size, principal point at the centre.

    For each output pixel the ideal (pinhole) ray is pushed through the distortion model
    (radial k1..k4 on r², r⁴, r⁶, r⁸; tangential p1, p2) to find where it fell in the source.
    """
    import numpy as np

    img = np.asarray(array)
    if img.ndim not in (2, 3):
        raise ValueError("expected an H×W or H×W×C image array")
    height, width = img.shape[:2]
    focal = float(intr.focal) * width  # focal is normalised by image width
    if focal <= 0:
        raise ValueError("camera intrinsics have no focal length")
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
    x = (xs - cx) / focal
    y = (ys - cy) / focal
    r2 = x * x + y * y
    radial = 1.0 + r2 * (intr.k1 + r2 * (intr.k2 + r2 * (intr.k3 + r2 * intr.k4)))
    xd = x * radial + 2.0 * intr.p1 * x * y + intr.p2 * (r2 + 2.0 * x * x)
    yd = y * radial + intr.p1 * (r2 + 2.0 * y * y) + 2.0 * intr.p2 * x * y
    src_x = xd * focal + cx
    src_y = yd * focal + cy
    if interpolation == "nearest":
        return _nearest(img, src_x, src_y)
    if interpolation != "bilinear":
        raise ValueError("interpolation must be 'nearest' or 'bilinear'")
    return _bilinear(img, src_x, src_y)


def _nearest(img: Any, sx: Any, sy: Any) -> Any:
    import numpy as np

    h, w = img.shape[:2]
    xi = np.rint(sx).astype(np.int64)
    yi = np.rint(sy).astype(np.int64)
    valid = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    out = np.zeros_like(img)
    out[valid] = img[yi[valid], xi[valid]]
    return out


def _bilinear(img: Any, sx: Any, sy: Any) -> Any:
    import numpy as np

    h, w = img.shape[:2]
    valid = (sx >= 0) & (sx <= w - 1) & (sy >= 0) & (sy <= h - 1)
    x0 = np.clip(np.floor(sx).astype(np.int64), 0, w - 1)
    y0 = np.clip(np.floor(sy).astype(np.int64), 0, h - 1)
    x1 = np.clip(x0 + 1, 0, w - 1)
    y1 = np.clip(y0 + 1, 0, h - 1)
    fx = np.clip(sx - x0, 0.0, 1.0)
    fy = np.clip(sy - y0, 0.0, 1.0)
    if img.ndim == 3:
        fx, fy = fx[..., None], fy[..., None]
        mask = valid[..., None]
    else:
        mask = valid
    src = img.astype(np.float64)
    top = src[y0, x0] * (1 - fx) + src[y0, x1] * fx
    bottom = src[y1, x0] * (1 - fx) + src[y1, x1] * fx
    out = (top * (1 - fy) + bottom * fy) * mask
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(img.dtype)
