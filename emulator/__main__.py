"""`python -m emulator`: serve both APIs on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys

import uvicorn

from emulator.app import build_app
from emulator.config import build_parser, settings_from_args


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until interrupted."""
    args = build_parser().parse_args(argv)
    settings = settings_from_args(args)
    # Bind first so that --port 0 can report the port the OS chose.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this; without it every keep-alive request waits ~40 ms
    # for a delayed ACK (Nagle), which would swamp the latency the benchmarks inject.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", settings.port))
    settings.port = sock.getsockname()[1]
    app = build_app(settings)
    config = uvicorn.Config(
        app, log_level=args.log_level, lifespan="on", backlog=2048,
        timeout_keep_alive=30, limit_concurrency=None,
    )
    server = uvicorn.Server(config)
    root = f"http://127.0.0.1:{settings.port}"
    print(f"fleet API: {root}", flush=True)
    print(f"data API: {root}/api/developer", flush=True)
    print(f"MCP: {root}/api/developer/mcp", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(sockets=[sock]))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
