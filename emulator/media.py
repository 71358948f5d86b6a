"""Small generated JPEG images and MJPEG AVI clips served behind signed URLs."""

from __future__ import annotations

import functools
import io
import struct

from PIL import Image, ImageDraw

from emulator.util import rng
from emulator.world import FRAME_H, FRAME_W

VIDEO_W, VIDEO_H, VIDEO_FPS, VIDEO_FRAMES = 320, 180, 5, 10


def _scene(key: str, w: int, h: int, shift: float = 0.0) -> Image.Image:
    """A simple street scene: sky, buildings, road toward a vanishing point, lane dashes."""
    r = rng("scene", key)
    img = Image.new("RGB", (w, h), (135, 170, 210))
    d = ImageDraw.Draw(img)
    horizon = int(h * 0.45)
    x = 0
    while x < w:
        bw = r.randint(w // 12, w // 5)
        bh = r.randint(h // 8, horizon - 5)
        grey = r.randint(90, 200)
        d.rectangle([x, horizon - bh, x + bw, horizon], fill=(grey, grey - 10, grey - 25))
        x += bw + r.randint(0, 8)
    d.rectangle([0, horizon, w, h], fill=(95, 125, 80))
    vx = w // 2 + int(r.uniform(-0.05, 0.05) * w)
    d.polygon([(vx - 4, horizon), (vx + 4, horizon), (w, h), (0, h)], fill=(70, 70, 74))
    for k in range(6):
        f0 = ((k + shift) % 6) / 6.0
        f1 = f0 + 0.07
        y0, y1 = horizon + (h - horizon) * f0 ** 2, horizon + (h - horizon) * f1 ** 2
        d.line([(vx, y0), (vx, y1)], fill=(235, 235, 235), width=max(1, int(1 + 6 * f1)))
    return img


def _draw_object(img: Image.Image, cls: str, box: tuple[int, int, int, int], key: str) -> None:
    x, y, w, h = box
    d = ImageDraw.Draw(img)
    x1, y1 = x + w, y + h
    if cls == "stop-sign":
        d.regular_polygon((x + w / 2, y + h / 2, min(w, h) / 2), 8, fill=(200, 20, 20))
        d.text((x + w * 0.2, y + h * 0.4), "STOP", fill="white")
    elif cls == "speed-sign":
        d.ellipse([x, y, x1, y1], fill="white", outline=(210, 20, 20), width=max(2, w // 8))
        d.text((x + w * 0.3, y + h * 0.4), str(rng(key).choice([30, 50, 70])), fill="black")
    elif cls == "traffic-light":
        d.rectangle([x, y, x1, y1], fill=(25, 25, 25))
        for k, col in enumerate(((220, 30, 30), (230, 180, 20), (30, 200, 60))):
            cy = y + h * (k + 0.5) / 3
            rad = min(w, h / 3) * 0.35
            d.ellipse([x + w / 2 - rad, cy - rad, x + w / 2 + rad, cy + rad], fill=col)
    elif cls == "fire-hydrant":
        d.rectangle([x + w * 0.25, y + h * 0.2, x + w * 0.75, y1], fill=(200, 30, 30))
        d.ellipse([x + w * 0.2, y, x + w * 0.8, y + h * 0.35], fill=(200, 30, 30))
    elif cls == "lane-line":
        d.polygon([(x, y1), (x + w * 0.45, y), (x + w * 0.55, y), (x1, y1)], fill=(240, 240, 240))
    elif cls == "highway-sign":
        d.rectangle([x, y, x1, y1], fill=(20, 90, 50), outline="white", width=2)
        d.text((x + 4, y + h / 3), "EXIT", fill="white")
    else:
        fill = (30, 60, 170) if cls == "parking-restriction-sign" else (255, 255, 255)
        d.rectangle([x, y, x1, y1], fill=fill, outline=(200, 20, 20), width=max(2, w // 10))
        d.line([(x, y1), (x1, y)], fill=(200, 20, 20), width=max(2, w // 10))


def _jpeg(img: Image.Image, quality: int = 70) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


@functools.lru_cache(maxsize=256)
def frame_jpeg(key: str) -> bytes:
    """JPEG of an imagery frame (a street scene that depends on key)."""
    return _jpeg(_scene(key.rsplit("/", 1)[0], FRAME_W, FRAME_H, shift=len(key) % 6))


@functools.lru_cache(maxsize=256)
def feature_jpeg(cls: str, box: tuple[int, int, int, int], key: str) -> bytes:
    """JPEG of a map feature: a street scene with the object drawn inside its bbox."""
    img = _scene(key, FRAME_W, FRAME_H)
    _draw_object(img, cls, box, key)
    return _jpeg(img)


@functools.lru_cache(maxsize=64)
def event_avi(key: str) -> bytes:
    """A short MJPEG AVI clip of a driving scene."""
    frames = [
        _jpeg(_scene(key, VIDEO_W, VIDEO_H, shift=k * 0.5), quality=60)
        for k in range(VIDEO_FRAMES)
    ]
    return mjpeg_avi(frames, VIDEO_W, VIDEO_H, VIDEO_FPS)


def _chunk(fourcc: bytes, data: bytes) -> bytes:
    pad = b"\0" if len(data) % 2 else b""
    return fourcc + struct.pack("<I", len(data)) + data + pad


def _list(kind: bytes, data: bytes) -> bytes:
    return b"LIST" + struct.pack("<I", len(data) + 4) + kind + data


def mjpeg_avi(frames: list[bytes], w: int, h: int, fps: int) -> bytes:
    """Wrap JPEG frames into a RIFF AVI (one MJPG video stream, with an idx1 index)."""
    biggest = max(len(f) for f in frames)
    avih = struct.pack(
        "<14I", 1_000_000 // fps, biggest * fps, 0, 0x10, len(frames), 0, 1, biggest, w, h,
        0, 0, 0, 0,
    )
    strh = struct.pack(
        "<4s4sIHHIIIIIIII4h", b"vids", b"MJPG", 0, 0, 0, 0, 1, fps, 0, len(frames), biggest,
        0xFFFFFFFF, 0, 0, 0, w, h,
    )
    strf = struct.pack("<IiiHH4sIiiII", 40, w, h, 1, 24, b"MJPG", w * h * 3, 0, 0, 0, 0)
    hdrl = _list(b"hdrl", _chunk(b"avih", avih) + _list(b"strl", _chunk(b"strh", strh)
                                                       + _chunk(b"strf", strf)))
    movi_data, index, offset = b"", b"", 4
    for f in frames:
        ck = _chunk(b"00dc", f)
        index += struct.pack("<4sIII", b"00dc", 0x10, offset, len(f))
        movi_data += ck
        offset += len(ck)
    body = b"AVI " + hdrl + _list(b"movi", movi_data) + _chunk(b"idx1", index)
    return b"RIFF" + struct.pack("<I", len(body)) + body
