"""The push simulator's HTTP/2 core: TLS with ALPN h2, routing to pluggable handlers, recording, fault injection.

Handler interface (for route modules such as apns.py, fcm.py, oauth.py, echo.py)
--------------------------------------------------------------------------------
A route module is a Python file beside simulator.py that defines

    def register(simulator: Simulator) -> None

and, in it, adds routes and (optionally) control commands:

    simulator.route("POST", r"/3/device/(?P<token>[^/]+)", handler)
        `handler` is `async def handler(request: Request) -> Response` (a plain function returning a Response
        works too). The regex must match the whole path (query string excluded); its named groups are in
        `request.match`. Method "*" matches any method. Routes are tried in the order they were added; the first
        whose method and path match answers. No match: 404 {"reason": "NotFound"}.
    simulator.control_command("unregister", command)
        `command` is `def command(arguments: dict) -> dict`, reachable as `POST /control/unregister` on the
        control port with a JSON body; its return value is the JSON answer.
    simulator.on_reset(callback)
        `callback()` runs on `POST /reset`, so a module can forget its state between tests.
    simulator.state   a dict where modules keep their state (e.g. simulator.state["apns"] = ...).
    simulator.certificates   the CertificateFiles (CA, server certificate and key paths).

`Request` has: method, path (without query), query, authority, headers (list of (name, value), names
lowercased, pseudo-headers excluded), body (bytes, complete: the simulator reads the whole body before calling
the handler), match (re.Match), connection_id, stream_id, client_certificate (True on a connection that
presented a verified TLS client certificate: the mTLS listener), certificate_topic (that certificate's subject
UID, or None), and helpers header(name) -> str | None and json() -> object (raises ValueError).
`Response(status, headers=[(name, value)], body=b"")` or `Response.json(status, obj, headers=[])`.
A handler may raise `Reset(error_code)` to answer with RST_STREAM instead of a response.

Every request is recorded (see `Simulator.records`), including its answer or the fault applied to it. Faults
(`Faults`) are set through the control API (control.py) and apply before the handler runs.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import socket
import ssl
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
from hyperframe.frame import GoAwayFrame, SettingsFrame

from certs import CertificateFiles, certificate_topic

MAX_RECORDS = 200_000


class Reset(Exception):
    """Raised by a handler to answer with RST_STREAM(error_code) instead of a response."""

    def __init__(self, error_code: int = h2.errors.ErrorCodes.INTERNAL_ERROR):
        super().__init__(f"reset stream with {error_code}")
        self.error_code = error_code


@dataclass
class Request:
    method: str
    path: str
    query: str
    headers: list[tuple[str, str]]
    body: bytes
    connection_id: int
    stream_id: int
    authority: str = ""
    match: re.Match | None = None
    client_certificate: bool = False
    certificate_topic: str | None = None

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        for key, value in self.headers:
            if key == wanted:
                return value
        return None

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"body is not JSON: {error}") from error


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    trickle_ms: int = 0  # > 0: the body goes out 16 bytes at a time, this long apart (a slow stream)

    @staticmethod
    def json(status: int, value: Any, headers: list[tuple[str, str]] | None = None) -> "Response":
        return Response(
            status,
            [("content-type", "application/json")] + list(headers or []),
            json.dumps(value, separators=(",", ":")).encode(),
        )


Handler = Callable[[Request], "Awaitable[Response] | Response"]


@dataclass
class FaultRule:
    """A per-request fault: applies to requests whose path matches `path`, `times` times (None: always),
    each time with probability `rate`. Actions, in order: `latency_ms` delay; then one of `stall` (never
    answer), `reset_stream` (RST_STREAM with that error code), `reset_connection` (TCP reset of the
    connection), `status` (answer it, with `retry_after` (any text), `location` (a redirect's target) and `body`
    (JSON, text or bytes) if given, the body trickling out 16 bytes every `trickle_ms` when set); else the
    handler. `hostile`: instead of these, a seeded hostile answer of hostile.py (fuzzing)."""

    path: str | None = None
    times: int | None = None
    rate: float = 1.0
    latency_ms: int = 0
    stall: bool = False
    reset_stream: int | None = None
    reset_connection: bool = False
    status: int | None = None
    retry_after: int | str | None = None
    location: str | None = None
    body: Any = None
    trickle_ms: int = 0
    hostile: bool = False

    @staticmethod
    def from_json(value: dict) -> "FaultRule":
        known = FaultRule.__dataclass_fields__.keys()
        unknown = set(value) - set(known)
        if unknown:
            raise ValueError(f"unknown fault rule fields: {sorted(unknown)}")
        rule = FaultRule(**value)
        if rule.path is not None:
            re.compile(rule.path)
        return rule

    def matches(self, path: str, rng: random.Random) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.path is not None and not re.search(self.path, path):
            return False
        return self.rate >= 1.0 or rng.random() < self.rate


@dataclass
class Faults:
    """Fault injection state. Connection-level: `goaway_after_streams` (each connection sends GOAWAY after
    that many streams, answers them, then closes), `reset_after_streams` (each connection is reset by TCP RST
    when that many streams arrived), `max_concurrent_streams` (SETTINGS for new and open connections).
    Per-request: `rules`, tried in order, the first matching one applies."""

    rules: list[FaultRule] = field(default_factory=list)
    goaway_after_streams: int | None = None
    reset_after_streams: int | None = None
    max_concurrent_streams: int = 1000

    @staticmethod
    def from_json(value: dict) -> "Faults":
        unknown = set(value) - {"rules", "goaway_after_streams", "reset_after_streams", "max_concurrent_streams"}
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        return Faults(
            rules=[FaultRule.from_json(rule) for rule in value.get("rules", [])],
            goaway_after_streams=value.get("goaway_after_streams"),
            reset_after_streams=value.get("reset_after_streams"),
            max_concurrent_streams=int(value.get("max_concurrent_streams", 1000)),
        )

    def to_json(self) -> dict:
        return {
            "rules": [rule.__dict__ for rule in self.rules],
            "goaway_after_streams": self.goaway_after_streams,
            "reset_after_streams": self.reset_after_streams,
            "max_concurrent_streams": self.max_concurrent_streams,
        }


@dataclass
class Stats:
    connections_opened: int = 0
    connections_open: int = 0
    streams: int = 0
    max_concurrent_streams_seen: int = 0
    streams_reset_by_client: int = 0
    streams_refused: int = 0
    goaways_sent: int = 0
    connections_reset: int = 0
    streams_per_connection: dict[int, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        result = dict(self.__dict__)
        result["streams_per_connection"] = {str(k): v for k, v in self.streams_per_connection.items()}
        return result


class Simulator:
    """Routes, records and fault state shared by every connection."""

    def __init__(self, certificates: CertificateFiles, seed: int | None = None):
        self.certificates = certificates
        self.routes: list[tuple[str, re.Pattern, Handler]] = []
        self.control_commands: dict[str, Callable[[dict], dict]] = {}
        self.reset_hooks: list[Callable[[], None]] = []
        self.state: dict[str, Any] = {}
        self.records: list[dict] = []
        self.faults = Faults()
        self.stats = Stats()
        self.random = random.Random(seed)
        self.connections: set["Connection"] = set()
        self._next_connection_id = 0
        # Client-certificate authorities by name ("simulator": trusted by the mTLS listener, "unrelated": not).
        self.client_authorities: dict[str, Any] = {}

    def route(self, method: str, path: str, handler: Handler) -> None:
        self.routes.append((method.upper(), re.compile(path), handler))

    def control_command(self, name: str, command: Callable[[dict], dict]) -> None:
        self.control_commands[name] = command

    def on_reset(self, callback: Callable[[], None]) -> None:
        self.reset_hooks.append(callback)

    def reset(self) -> None:
        """Forgets records, statistics and faults, and runs the modules' reset hooks (open connections stay)."""
        for hook in self.reset_hooks:
            hook()
        self.records.clear()
        self.faults = Faults()
        open_now = len(self.connections)
        self.stats = Stats(connections_open=open_now)

    def set_faults(self, faults: Faults) -> None:
        self.faults = faults
        for connection in list(self.connections):
            connection.apply_max_concurrent_streams(faults.max_concurrent_streams)

    def next_connection_id(self) -> int:
        self._next_connection_id += 1
        return self._next_connection_id

    def record(self, entry: dict) -> dict:
        entry["seq"] = len(self.records) + 1
        if len(self.records) < MAX_RECORDS:
            self.records.append(entry)
        return entry

    def find_rule(self, path: str) -> FaultRule | None:
        for rule in self.faults.rules:
            if rule.matches(path, self.random):
                if rule.times is not None:
                    rule.times -= 1
                return rule
        return None

    async def dispatch(self, request: Request) -> Response:
        for method, pattern, handler in self.routes:
            if method not in (request.method, "*"):
                continue
            match = pattern.fullmatch(request.path)
            if match is None:
                continue
            request.match = match
            result = handler(request)
            if asyncio.iscoroutine(result) or isinstance(result, asyncio.Future):
                result = await result
            return result
        return Response.json(404, {"reason": "NotFound"})

    def ssl_context(self, client_ca_file: Path | None = None) -> ssl.SSLContext:
        """The server's TLS context; with `client_ca_file`, every client must present a certificate that CA
        signed (mutual TLS, like APNs certificate-based connections), else the handshake fails."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(str(self.certificates.cert_file), str(self.certificates.key_file))
        context.set_alpn_protocols(["h2"])
        if client_ca_file is not None:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(str(client_ca_file))
            # With TLS 1.3 the server judges the client certificate after the client's side of the handshake is
            # done, so a client sees the rejection only as an alert (or a broken pipe) on its first read or
            # write; TLS 1.2 rejects it inside the handshake, which tests can tell apart from a lost connection.
            context.maximum_version = ssl.TLSVersion.TLSv1_2
        return context

    async def serve(self, host: str, port: int, client_ca_file: Path | None = None) -> asyncio.Server:
        """Listens for HTTP/2 over TLS; with `client_ca_file`, as the mutual-TLS listener (see ssl_context)."""
        loop = asyncio.get_running_loop()
        return await loop.create_server(
            lambda: Connection(self),
            host,
            port,
            ssl=self.ssl_context(client_ca_file),
            backlog=512,
            ssl_shutdown_timeout=2,
        )


class _Stream:
    __slots__ = ("headers", "body", "task", "received_at")

    def __init__(self, headers: list[tuple[str, str]]):
        self.headers = headers
        self.body = bytearray()
        self.task: asyncio.Task | None = None
        self.received_at = time.time()


class Connection(asyncio.Protocol):
    """One client connection: an h2 state machine fed from the TLS transport."""

    def __init__(self, simulator: Simulator):
        self.simulator = simulator
        self.id = simulator.next_connection_id()
        self.h2 = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8", validate_inbound_headers=True)
        )
        self.transport: asyncio.Transport | None = None
        self.streams: dict[int, _Stream] = {}
        self.stream_count = 0
        self.goaway_last_stream: int | None = None
        self.max_concurrent_streams = simulator.faults.max_concurrent_streams
        self.window_open = asyncio.Event()
        self.closed = False
        self.client_certificate = False
        self.certificate_topic: str | None = None

    # -- transport events ---------------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        ssl_object = transport.get_extra_info("ssl_object")
        if ssl_object is None or ssl_object.selected_alpn_protocol() != "h2":
            transport.close()
            self.closed = True
            return
        der = ssl_object.getpeercert(binary_form=True)
        if der:
            self.client_certificate = True
            self.certificate_topic = certificate_topic(der)
        self.simulator.connections.add(self)
        self.simulator.stats.connections_opened += 1
        self.simulator.stats.connections_open += 1
        # h2 would treat a client exceeding its advertised stream limit as a connection error; like APNs, the
        # simulator refuses the extra stream instead (RFC 9113 §5.1.2 allows both). So h2's own limit stays
        # high and the advertised one is written as a raw SETTINGS frame and enforced in request_received.
        self.h2.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 2**31 - 1}
        )
        self.h2.initiate_connection()
        self.flush()
        self.apply_max_concurrent_streams(self.simulator.faults.max_concurrent_streams)

    def connection_lost(self, exc: Exception | None) -> None:
        if self in self.simulator.connections:
            self.simulator.connections.discard(self)
            self.simulator.stats.connections_open -= 1
        self.closed = True
        for stream in self.streams.values():
            if stream.task is not None:
                stream.task.cancel()
        self.streams.clear()
        self.window_open.set()

    def data_received(self, data: bytes) -> None:
        try:
            events = self.h2.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.request_received(event)
            elif isinstance(event, h2.events.DataReceived):
                stream = self.streams.get(event.stream_id)
                if stream is not None:
                    stream.body.extend(event.data)
                try:
                    self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                except h2.exceptions.StreamClosedError:
                    pass
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id)
                if stream is not None and stream.task is None:
                    stream.task = asyncio.ensure_future(self.answer(event.stream_id, stream))
            elif isinstance(event, h2.events.StreamReset):
                stream = self.streams.pop(event.stream_id, None)
                if stream is not None:
                    self.simulator.stats.streams_reset_by_client += 1
                    if stream.task is not None:
                        stream.task.cancel()
            elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
                self.window_open.set()
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.close()
        self.flush()

    # -- streams --------------------------------------------------------------------------------------------

    def request_received(self, event: h2.events.RequestReceived) -> None:
        if self.goaway_last_stream is not None and event.stream_id > self.goaway_last_stream:
            return  # after our GOAWAY: not processed; the client must retry it elsewhere
        if len(self.streams) >= self.max_concurrent_streams:
            self.simulator.stats.streams_refused += 1
            self.h2.reset_stream(event.stream_id, h2.errors.ErrorCodes.REFUSED_STREAM)
            return
        self.stream_count += 1
        stats = self.simulator.stats
        stats.streams += 1
        stats.streams_per_connection[self.id] = self.stream_count
        self.streams[event.stream_id] = _Stream([(k.lower(), v) for k, v in event.headers])
        stats.max_concurrent_streams_seen = max(stats.max_concurrent_streams_seen, len(self.streams))
        faults = self.simulator.faults
        if faults.reset_after_streams is not None and self.stream_count >= faults.reset_after_streams:
            self.reset_connection()
            return
        if faults.goaway_after_streams is not None and self.stream_count == faults.goaway_after_streams:
            self.send_goaway(event.stream_id)

    def send_goaway(self, last_stream_id: int) -> None:
        """Sends GOAWAY (NO_ERROR) naming `last_stream_id`, keeps answering streams up to it, then closes.
        The frame is written directly so that h2 still lets us answer the streams already accepted."""
        self.goaway_last_stream = last_stream_id
        self.flush()
        assert self.transport is not None
        self.transport.write(GoAwayFrame(0, last_stream_id=last_stream_id, error_code=0).serialize())
        self.simulator.stats.goaways_sent += 1
        asyncio.get_running_loop().call_later(10, self.close)

    def reset_connection(self) -> None:
        """Aborts the TCP connection with RST (SO_LINGER 0): the client sees ECONNRESET, no GOAWAY."""
        self.simulator.stats.connections_reset += 1
        self.closed = True
        assert self.transport is not None
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        self.transport.abort()

    def apply_max_concurrent_streams(self, value: int) -> None:
        self.max_concurrent_streams = value
        if self.closed or self.transport is None:
            return
        self.flush()
        frame = SettingsFrame(0)
        frame.settings[SettingsFrame.MAX_CONCURRENT_STREAMS] = value
        self.transport.write(frame.serialize())

    async def answer(self, stream_id: int, stream: _Stream) -> None:
        pseudo = dict(stream.headers)
        full_path = pseudo.get(":path", "/")
        path, _, query = full_path.partition("?")
        request = Request(
            method=pseudo.get(":method", "GET"),
            path=path,
            query=query,
            headers=[(k, v) for k, v in stream.headers if not k.startswith(":")],
            body=bytes(stream.body),
            connection_id=self.id,
            stream_id=stream_id,
            authority=pseudo.get(":authority", ""),
            client_certificate=self.client_certificate,
            certificate_topic=self.certificate_topic,
        )
        entry = self.simulator.record({
            "connection": self.id,
            "stream": stream_id,
            "method": request.method,
            "path": full_path,
            "headers": {k: v for k, v in request.headers},
            "body": request.body.decode("utf-8", errors="replace"),
            "received_at": stream.received_at,
            "concurrent": len(self.streams),
            "client_certificate": self.client_certificate,
            "status": None,
            "fault": None,
        })
        try:
            response = await self.respond(request, entry)
        except Reset as reset:
            entry["fault"] = entry["fault"] or "reset_stream"
            self.reset_stream(stream_id, reset.error_code)
            return
        except asyncio.CancelledError:
            entry["fault"] = entry["fault"] or "cancelled_by_client"
            raise
        except Exception as error:  # a handler bug: answer 500 and keep serving
            response = Response.json(500, {"reason": "SimulatorHandlerError", "detail": repr(error)})
        if response is None:
            return
        entry["status"] = response.status
        await self.send_response(stream_id, response)

    async def respond(self, request: Request, entry: dict) -> Response | None:
        rule = self.simulator.find_rule(request.path)
        if rule is None:
            return await self.simulator.dispatch(request)
        if rule.hostile:
            entry["hostile"], rule = self.simulator.state["hostile"].answer(request.path, self.simulator.random)
        if rule.latency_ms:
            entry["fault"] = "latency"
            await asyncio.sleep(rule.latency_ms / 1000)
        if rule.stall:
            entry["fault"] = "stall"
            await asyncio.Event().wait()  # until the client resets the stream or the connection closes
        if rule.reset_stream is not None:
            entry["fault"] = "reset_stream"
            raise Reset(rule.reset_stream)
        if rule.reset_connection:
            entry["fault"] = "reset_connection"
            self.reset_connection()
            return None
        if rule.status is not None:
            entry["fault"] = "status"
            headers = [("retry-after", str(rule.retry_after))] if rule.retry_after is not None else []
            if rule.location is not None:
                headers.append(("location", rule.location))
            body = rule.body if rule.body is not None else {"reason": "InjectedFault"}
            if isinstance(body, (dict, list)):
                response = Response.json(rule.status, body, headers)
            else:
                response = Response(rule.status, headers, body if isinstance(body, bytes) else str(body).encode())
            response.trickle_ms = rule.trickle_ms
            return response
        return await self.simulator.dispatch(request)

    def reset_stream(self, stream_id: int, error_code: int) -> None:
        if self.closed or stream_id not in self.streams:
            return
        self.streams.pop(stream_id, None)
        try:
            self.h2.reset_stream(stream_id, error_code)
        except h2.exceptions.ProtocolError:
            return
        self.flush()
        self.maybe_close_after_goaway()

    async def send_response(self, stream_id: int, response: Response) -> None:
        if self.closed or stream_id not in self.streams:
            return
        headers = [(":status", str(response.status))] + [(k.lower(), v) for k, v in response.headers]
        headers.append(("content-length", str(len(response.body))))
        try:
            self.h2.send_headers(stream_id, headers, end_stream=not response.body)
            self.flush()
            body = memoryview(response.body)
            while body:
                window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size)
                if window <= 0:
                    self.window_open.clear()
                    await self.window_open.wait()
                    if self.closed or stream_id not in self.streams:
                        return
                    continue
                if response.trickle_ms:
                    window = min(window, 16)
                    await asyncio.sleep(response.trickle_ms / 1000)
                    if self.closed or stream_id not in self.streams:
                        return
                chunk, body = body[:window], body[window:]
                self.h2.send_data(stream_id, bytes(chunk), end_stream=not body)
                self.flush()
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        self.streams.pop(stream_id, None)
        self.maybe_close_after_goaway()

    def maybe_close_after_goaway(self) -> None:
        if self.goaway_last_stream is not None and not self.streams:
            self.close()

    def flush(self) -> None:
        data = self.h2.data_to_send()
        if data and self.transport is not None and not self.closed:
            self.transport.write(data)

    def close(self) -> None:
        if not self.closed and self.transport is not None:
            self.flush()
            self.transport.close()
        self.closed = True
