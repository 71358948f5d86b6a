"""Image download and undistortion helpers for the algorithms (Qt image I/O, numpy maths)."""

from __future__ import annotations

import os
import re
from typing import Dict

import numpy as np
from qgis.PyQt.QtGui import QImage

from ...core.errors import FetchCancelled, PartialFetchError
from .base import ProgressAdapter

_UNSAFE = re.compile(r"[^0-9A-Za-z._-]+")


def safe_name(key: str, url: str) -> str:
    """A file name for an image: the key made safe plus the URL's extension."""
    ext = os.path.splitext(url.split("?", 1)[0])[1].lower()
    if ext not in (".jpg", ".jpeg", ".png", ".webp"):
        ext = ".jpg"
    return (_UNSAFE.sub("_", str(key)).strip("._") or "image")[:120] + ext


def download_all(client, jobs: Dict[str, str], folder: str, cancel, feedback,
                 concurrency: int = 4) -> Dict[str, str]:
    """Download {key: signed url} into folder; return {key: local path} of the files written.

    Files that cannot be downloaded are reported as warnings: the records themselves are
    complete, only their image_path stays empty.
    """
    from ...core.images import download_images

    key_of = {url: key for key, url in jobs.items() if url}
    names = {url: safe_name(key, url) for url, key in key_of.items()}
    progress = ProgressAdapter(feedback, start=90.0, span=10.0, unit="images")
    try:
        by_url = download_images(names, folder, client, concurrency=concurrency,
                                 cancel=cancel, progress=progress)
    except PartialFetchError as exc:
        by_url = exc.result or {}
        feedback.pushWarning(f"{exc}")
    except FetchCancelled:
        # files are renamed into place only when complete: those present are whole
        by_url = {url: os.path.join(folder, name) for url, name in names.items()
                  if os.path.isfile(os.path.join(folder, name))}
        feedback.pushWarning(f"Image download cancelled after {len(by_url)} of {len(names)} "
                             "files; the records are written, the others without image_path.")
    return {key_of[url]: path for url, path in by_url.items() if url in key_of}


def read_image(path: str) -> np.ndarray:
    """An image file as an H×W×3 uint8 RGB array."""
    img = QImage(path)
    if img.isNull():
        raise ValueError("not a readable image")
    img = img.convertToFormat(QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    ptr = img.constBits()
    ptr.setsize(h * bpl)
    arr = np.frombuffer(ptr, np.uint8).reshape(h, bpl)[:, : w * 3].reshape(h, w, 3)
    return arr.copy()


def write_image(arr: np.ndarray, path: str, quality: int = 92) -> None:
    """Write an H×W×3 uint8 array as JPEG (or the format the extension names)."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    h, w = arr.shape[:2]
    img = QImage(arr.data, w, h, 3 * w, QImage.Format.Format_RGB888)
    if not img.save(path, None, quality):
        raise OSError(f"could not write {path}")


def undistort_array(arr: np.ndarray, intr) -> np.ndarray:
    """Undistort an image array with the camera's lens model (bilinear, numpy only)."""
    from ...core.undistort import undistort

    return np.clip(np.rint(np.asarray(undistort(arr, intr), dtype=np.float64)), 0, 255
                   ).astype(np.uint8)


def undistort_file(src: str, dst: str, intr) -> None:
    """Read, undistort and write one image."""
    write_image(undistort_array(read_image(src), intr), dst)
