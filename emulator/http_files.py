"""Signed image and video files under /files."""

from __future__ import annotations

import re

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator import media
from emulator.errors import ApiError
from emulator.http_common import state

_FEATURE = re.compile(r"^/files/feature/([a-z-]+)/(\d+)_(\d+)_(\d+)_(\d+)/([0-9a-f]+)\.jpg$")
_FRAME = re.compile(r"^/files/frame/([0-9a-f-]+)/(\d+)\.jpg$")
_VIDEO = re.compile(r"^/files/video/([0-9a-f]+)\.avi$")


async def serve(request: Request) -> Response:
    """GET /files/...?Expires=&Signature= (403 when expired or badly signed)."""
    path = request.url.path
    q = request.query_params
    state(request).signer.check(path, q.get("Expires"), q.get("Signature"))
    # Encoding takes milliseconds: keep it off the event loop.
    if m := _FEATURE.match(path):
        box = tuple(int(v) for v in m.group(2, 3, 4, 5))
        data = await run_in_threadpool(media.feature_jpeg, m.group(1), box, m.group(6))
        return Response(data, media_type="image/jpeg")
    if _FRAME.match(path):
        return Response(await run_in_threadpool(media.frame_jpeg, path), media_type="image/jpeg")
    if m := _VIDEO.match(path):
        data = await run_in_threadpool(media.event_avi, m.group(1))
        return Response(data, media_type="video/x-msvideo")
    raise ApiError(404, "Not found")


ROUTES = [Route("/files/{rest:path}", serve, methods=["GET", "HEAD"])]
