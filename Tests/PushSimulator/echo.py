"""Trivial routes for transport tests: echo the request, or answer with a chosen status."""

from __future__ import annotations

from server import Request, Response, Simulator


async def echo(request: Request) -> Response:
    """200 with the request body; `x-echo-method`, `x-echo-path` and `x-echo-length` describe the request."""
    return Response(
        200,
        [("x-echo-method", request.method), ("x-echo-path", request.path), ("x-echo-length", str(len(request.body)))],
        request.body,
    )


def status(request: Request) -> Response:
    """The status named in the path, e.g. /status/503."""
    return Response.json(int(request.match["code"]), {"status": int(request.match["code"])})


def register(simulator: Simulator) -> None:
    simulator.route("*", r"/echo(/.*)?", echo)
    simulator.route("*", r"/status/(?P<code>[1-5][0-9][0-9])", status)
