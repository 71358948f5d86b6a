"""Signed, expiring URLs for the image and video files the emulator serves."""

from __future__ import annotations

import hashlib
import hmac
import math
import time
import urllib.parse

from emulator.errors import ApiError


class Signer:
    """Signs file paths with an HMAC and an expiry instant (Unix seconds)."""

    def __init__(self, secret: str):
        self.secret = secret.encode()

    def signature(self, path: str, expires: int) -> str:
        """HMAC of a path and its expiry."""
        msg = f"{path}\n{expires}".encode()
        return hmac.new(self.secret, msg, hashlib.sha256).hexdigest()[:32]

    def sign(self, base_url: str, path: str, lifetime_s: float) -> str:
        """Return an absolute signed URL for a path valid for at least lifetime_s seconds."""
        # Round up: truncating could make a 1 s URL expire before it is ever fetched.
        expires = math.ceil(time.time() + lifetime_s)
        return f"{base_url}{path}?Expires={expires}&Signature={self.signature(path, expires)}"

    def check(self, path: str, expires: str | None, signature: str | None) -> None:
        """Raise a 403 unless the signature is right and not expired."""
        if not expires or not signature:
            raise ApiError(403, "Missing signature")
        try:
            exp = int(expires)
        except ValueError:
            raise ApiError(403, "Invalid signature") from None
        if not hmac.compare_digest(self.signature(path, exp), signature):
            raise ApiError(403, "Invalid signature")
        if exp < time.time():
            raise ApiError(403, "Request has expired")

    def renew(self, base_url: str, signed_url: str, lifetime_s: float) -> str:
        """Return a fresh URL for a (possibly expired) URL this signer issued."""
        parts = urllib.parse.urlsplit(signed_url)
        query = urllib.parse.parse_qs(parts.query)
        path = parts.path
        expires = (query.get("Expires") or [""])[0]
        signature = (query.get("Signature") or [""])[0]
        try:
            exp = int(expires)
        except ValueError:
            raise ApiError(400, "Not a signed URL of this service") from None
        if not path.startswith("/files/") or not hmac.compare_digest(
            self.signature(path, exp), signature
        ):
            raise ApiError(400, "Not a signed URL of this service")
        return self.sign(base_url, path, lifetime_s)
