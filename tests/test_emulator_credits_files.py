"""Credits, signed file URLs (expiry, renew) and the served images and videos."""

from __future__ import annotations

import datetime as dt
import io
import struct
import time
import urllib.parse

import httpx
from PIL import Image

BOX = {"type": "Polygon", "coordinates": [[[13.39, 52.51], [13.40, 52.51], [13.40, 52.515],
                                           [13.39, 52.515], [13.39, 52.51]]]}


def _post(emu, path, body, **params):
    return httpx.post(f"{emu.data_url}{path}", json=body,
                      params={"apiKey": emu.data_key, **params}, timeout=30)


def _balance(emu):
    return httpx.get(f"{emu.data_url}/balance", params={"apiKey": emu.data_key}).json()["balance"]


def test_credits_decrease_and_are_reported(emulator):
    start = _balance(emulator)
    res = _post(emulator, "/latest/poly", BOX).json()
    assert res["creditsUsed"] == len(res["frames"]) > 0
    assert res["creditsRemaining"] == start - res["creditsUsed"] == _balance(emulator)
    feats = _post(emulator, "/mapFeatures/poly", BOX).json()
    assert _balance(emulator) == res["creditsRemaining"] - len(feats["features"])
    stats = emulator.stats()
    assert stats["endpoints"]["POST /api/developer/latest/poly"]["credits"] == res["creditsUsed"]


def test_prices_knob(emulator):
    emulator.configure(prices={"frame": 3})
    res = _post(emulator, "/latest/poly", BOX).json()
    assert res["creditsUsed"] == 3 * len(res["frames"])


def test_insufficient_credits_is_402(emulator):
    emulator.configure(balance=5)
    r = _post(emulator, "/latest/poly", BOX)
    assert r.status_code == 402
    assert r.json()["error"].startswith("Insufficient credits") and "5 remaining" in r.json()[
        "error"]
    assert _balance(emulator) == 5
    emulator.reset()
    assert _balance(emulator) == 5  # reset restores the configured balance


def test_feature_image_frames_object(emulator):
    feat = next(f for f in _post(emulator, "/mapFeatures/poly", BOX).json()["features"]
                if f["class"] == "stop-sign")
    r = httpx.get(feat["image"]["url"])
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    img = Image.open(io.BytesIO(r.content)).convert("RGB")
    assert img.size == (640, 360)
    b = feat["image"]["bbox"]
    red = img.getpixel((b["x"] + b["w"] // 2, b["y"] + b["h"] // 4))
    assert red[0] > 150 and red[1] < 80, "stop sign drawn inside its bbox"


def test_frame_image(emulator):
    frame = _post(emulator, "/latest/poly", BOX).json()["frames"][0]
    img = Image.open(io.BytesIO(httpx.get(frame["url"]).content))
    assert img.size == (frame["width"], frame["height"])


def test_expired_and_bad_signature_403_and_renew(emulator):
    emulator.configure(url_lifetime_s=2)
    issued = time.time()
    url = _post(emulator, "/latest/poly", BOX).json()["frames"][0]["url"]
    expires = int(urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["Expires"][0])
    assert expires >= issued + 2  # valid for at least its lifetime
    assert httpx.get(url).status_code == 200
    assert httpx.get(url.replace("Signature=", "Signature=0")).status_code == 403
    assert httpx.get(url.split("?")[0]).status_code == 403
    time.sleep(max(0.0, expires - time.time()) + 0.2)
    assert httpx.get(url).status_code == 403
    emulator.configure(url_lifetime_s=900)
    encoded = urllib.parse.quote(url, safe="")
    r = httpx.post(f"{emulator.data_url}/renew/{encoded}", params={"apiKey": emulator.data_key})
    assert r.status_code == 200
    fresh = r.json()["url"]
    assert fresh.split("?")[0] == url.split("?")[0] and fresh != url
    assert httpx.get(fresh).status_code == 200
    forged = urllib.parse.quote(url.replace("Signature=", "Signature=f"), safe="")
    r = httpx.post(f"{emulator.data_url}/renew/{forged}", params={"apiKey": emulator.data_key})
    assert r.status_code in (400, 403)


def test_signed_url_is_valid_for_at_least_its_lifetime():
    from emulator.signing import Signer

    signer = Signer("secret")
    for _ in range(200):
        before = time.time()
        url = signer.sign("http://h", "/files/frame/x.jpg", 1)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        assert int(query["Expires"][0]) >= before + 1
        signer.check("/files/frame/x.jpg", query["Expires"][0], query["Signature"][0])


def test_event_video_is_avi(emulator):
    end = dt.datetime.now(dt.timezone.utc)
    body = {"startDate": (end - dt.timedelta(days=14)).isoformat(), "endDate": end.isoformat(),
            "limit": 1}
    ev = _post(emulator, "/aievents/search", body).json()["events"][0]
    data = httpx.get(ev["videoUrl"]).content
    assert data[:4] == b"RIFF" and data[8:12] == b"AVI "
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8
    assert b"MJPG" in data[:400] and data.count(b"00dc") >= 10
