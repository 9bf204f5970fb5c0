"""The simulator's control API: plain HTTP/1.1 with JSON bodies on its own port, for tests and for curl.

    GET    /health              {"ok": true}
    GET    /stats               connection and stream counters (Stats), and open_connection_ids
    GET    /requests[?since=N]  recorded requests with seq > N: {"requests": [...]}
    GET    /faults              the current Faults
    POST   /faults              replace all faults: {"rules": [...], "goaway_after_streams": N,
                                "reset_after_streams": N, "max_concurrent_streams": N}
    POST   /faults/rules        append one FaultRule: {"path": "regex", "times": N, "rate": 0.5,
                                "latency_ms": N, "stall": true, "reset_stream": CODE,
                                "reset_connection": true, "status": N, "retry_after": S, "body": ..., "trickle_ms": N,
                                "location": URL, "hostile": true}  (hostile: seeded hostile answers, see hostile.py)
    DELETE /faults              clear every fault
    POST   /reset               clear records, statistics and faults
    POST   /control/NAME        a route module's command (JSON in, JSON out)

Example: curl -s -X POST localhost:PORT/faults/rules -d '{"status": 429, "retry_after": 5, "times": 3}'
"""

from __future__ import annotations

import asyncio
import json
from urllib.parse import parse_qs, urlsplit

from server import FaultRule, Faults, Simulator


class ControlError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def handle(simulator: Simulator, method: str, target: str, body: bytes) -> tuple[int, object]:
    url = urlsplit(target)
    path = url.path.rstrip("/") or "/"
    try:
        arguments = json.loads(body) if body.strip() else {}
    except json.JSONDecodeError as error:
        raise ControlError(400, f"body is not JSON: {error}") from error
    if method == "GET" and path == "/health":
        return 200, {"ok": True}
    if method == "GET" and path == "/stats":
        open_ids = sorted(connection.id for connection in simulator.connections)
        return 200, {**simulator.stats.to_json(), "open_connection_ids": open_ids}
    if method == "GET" and path == "/requests":
        since = int(parse_qs(url.query).get("since", ["0"])[0])
        return 200, {"requests": [record for record in simulator.records if record["seq"] > since]}
    if path == "/faults":
        if method == "GET":
            return 200, simulator.faults.to_json()
        if method == "POST":
            simulator.set_faults(Faults.from_json(arguments))
            return 200, simulator.faults.to_json()
        if method == "DELETE":
            simulator.set_faults(Faults())
            return 200, simulator.faults.to_json()
    if method == "POST" and path == "/faults/rules":
        simulator.faults.rules.append(FaultRule.from_json(arguments))
        return 200, simulator.faults.to_json()
    if method == "POST" and path == "/reset":
        simulator.reset()
        return 200, {"ok": True}
    if method == "POST" and path.startswith("/control/"):
        command = simulator.control_commands.get(path.removeprefix("/control/"))
        if command is None:
            raise ControlError(404, f"no control command {path}")
        return 200, command(arguments)
    raise ControlError(404, f"no control endpoint {method} {path}")


async def serve_client(simulator: Simulator, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            request_line = await reader.readline()
            if not request_line:
                return
            method, target, _ = request_line.decode("latin-1").split(" ", 2)
            length = 0
            keep_alive = True
            while True:
                line = (await reader.readline()).decode("latin-1").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
                if name.strip().lower() == "connection" and value.strip().lower() == "close":
                    keep_alive = False
            body = await reader.readexactly(length) if length else b""
            try:
                status, answer = handle(simulator, method.upper(), target, body)
            except ControlError as error:
                status, answer = error.status, {"error": str(error)}
            except (ValueError, TypeError) as error:
                status, answer = 400, {"error": str(error)}
            payload = json.dumps(answer).encode()
            writer.write(
                f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                f"content-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n".encode() + payload
            )
            await writer.drain()
            if not keep_alive:
                return
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
        return
    finally:
        writer.close()


async def serve(simulator: Simulator, host: str, port: int) -> asyncio.Server:
    return await asyncio.start_server(lambda r, w: serve_client(simulator, r, w), host, port)
