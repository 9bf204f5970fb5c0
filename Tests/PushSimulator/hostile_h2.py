"""A hostile HTTP/2 server: TLS with ALPN h2, and one misbehaviour per run that no real APNs or FCM shows.

    python hostile_h2.py --mode MODE --cert server.pem --key server-key.pem [--port 0] [--count N] [--pause S]

It prints the port it listens on (127.0.0.1) as its first line, then one line per event a test may wait for:
`request STREAM PATH`, `reset STREAM after BYTES` (the client reset a stream after BYTES of its body were sent),
`completed STREAM BYTES`, `closed`. Requests to a path starting with `/small` get `200` and `ok` in every mode
(except where the mode keeps every stream from starting), so a test can see that a connection goes on.

Modes (the transports' tests and `deploy/local/fuzz.sh --hostile-h2 MODE` use them):
  split-records        every answer is one TLS record of which the last byte comes `--pause` seconds later:
                       a record split across TCP segments on a lossy path
  zero-streams         SETTINGS_MAX_CONCURRENT_STREAMS=0: no stream may start once the client saw it (one sent before
                       is refused, REFUSED_STREAM, except `/small`, answered: the client then has a connection)
  large-body           200 and a body of `--count` bytes (default 64 MiB), sent as fast as flow control allows
  early-hints          `--count` (default 2,000) `103 Early Hints` before the 200
  ping-flood           `--count` (default 100,000) PINGs at once after the SETTINGS, then silence
  settings-flood       `--count` (default 100,000) empty SETTINGS frames, then silence
  window-update-flood  `--count` (default 100,000) WINDOW_UPDATEs of 1 on the connection, then silence
  zero-window          SETTINGS_INITIAL_WINDOW_SIZE=0 and never a WINDOW_UPDATE: no request body can be sent
                       (beyond what went out before the client saw the setting, at most the connection's 65,535)
  stall                takes every request and never answers
"""

from __future__ import annotations

import argparse
import socket
import ssl
import struct
import sys
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

MODES = ["split-records", "zero-streams", "large-body", "early-hints", "ping-flood", "settings-flood",
         "window-update-flood", "zero-window", "stall"]
DEFAULT_COUNTS = {"large-body": 64 << 20, "early-hints": 2000, "ping-flood": 100_000, "settings-flood": 100_000,
                  "window-update-flood": 100_000}
print_lock = threading.Lock()


def say(line: str) -> None:
    with print_lock:
        print(line, flush=True)


def frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
    """One raw HTTP/2 frame."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


class Connection:
    """One client connection, on a thread of its own: TLS through memory BIOs, so that the mode decides how the
    bytes of each TLS record reach the socket."""

    def __init__(self, sock: socket.socket, context: ssl.SSLContext, options: argparse.Namespace) -> None:
        self.sock = sock
        self.options = options
        self.mode = options.mode
        self.count = options.count if options.count is not None else DEFAULT_COUNTS.get(self.mode, 0)
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=True)
        self.h2 = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.bodies: dict[int, int] = {}  # large-body: bytes left to send per stream
        self.sent: dict[int, int] = {}

    def run(self) -> None:
        try:
            self.handshake()
            self.start()
            while True:
                data = self.read()
                if not data:
                    break
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError:
                    break
                for event in events:
                    self.handle(event)
                self.send_bodies()
                self.flush(self.h2.data_to_send())
        except (OSError, ssl.SSLError):
            pass
        finally:
            say("closed")
            self.sock.close()

    def handshake(self) -> None:
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.send_raw(self.outgoing.read())
                data = self.sock.recv(65536)
                if not data:
                    raise OSError("closed during the handshake")
                self.incoming.write(data)
        self.send_raw(self.outgoing.read())

    def start(self) -> None:
        self.h2.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.ENABLE_PUSH: 0})
        self.h2.initiate_connection()
        self.flush(self.h2.data_to_send())
        # The limits go out as a raw SETTINGS frame of their own, which h2 does not enforce: a client that sent a
        # stream or data before it saw them is answered (REFUSED_STREAM) or blocked, not treated as a protocol error.
        if self.mode == "zero-streams":
            self.flush(frame(4, 0, 0, struct.pack(">HI", h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS, 0)))
        if self.mode == "zero-window":
            self.flush(frame(4, 0, 0, struct.pack(">HI", h2.settings.SettingCodes.INITIAL_WINDOW_SIZE, 0)))
        flood = {"ping-flood": lambda n: frame(6, 0, 0, struct.pack(">Q", n)),
                 "settings-flood": lambda n: frame(4, 0, 0, b""),
                 "window-update-flood": lambda n: frame(8, 0, 0, struct.pack(">I", 1))}.get(self.mode)
        if flood:
            for start in range(0, self.count, 1000):
                self.flush(b"".join(flood(n) for n in range(start, min(self.count, start + 1000))))

    def read(self) -> bytes:
        while True:
            try:
                return self.tls.read(65536)
            except ssl.SSLWantReadError:
                data = self.sock.recv(65536)
                if not data:
                    return b""
                self.incoming.write(data)
            except ssl.SSLZeroReturnError:
                return b""

    def handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            headers = dict(event.headers)
            path = headers.get(":path", "")
            say(f"request {event.stream_id} {path}")
            if path.startswith("/small") and self.mode != "zero-window":
                self.answer(event.stream_id, b"ok")
            elif event.stream_ended:
                self.respond(event.stream_id)
        elif isinstance(event, h2.events.DataReceived):
            if self.mode != "zero-window":  # zero-window: no WINDOW_UPDATE, ever
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if event.stream_ended:
                self.respond(event.stream_id)
        elif isinstance(event, h2.events.StreamReset):
            say(f"reset {event.stream_id} after {self.sent.pop(event.stream_id, 0)}")
            self.bodies.pop(event.stream_id, None)

    def respond(self, stream: int) -> None:
        """The mode's answer to a request whose body arrived whole."""
        if self.mode in ("stall", "zero-window", "ping-flood", "settings-flood", "window-update-flood"):
            return
        if self.mode == "early-hints":
            for _ in range(self.count):
                self.h2.send_headers(stream, [(":status", "103"), ("link", "</style.css>; rel=preload")])
                self.flush(self.h2.data_to_send())
            self.answer(stream, b"after the hints")
        elif self.mode == "large-body":
            self.h2.send_headers(stream, [(":status", "200")])
            self.bodies[stream] = self.count
            self.sent[stream] = 0
        elif self.mode == "split-records":
            self.answer(stream, b"split")
        elif self.mode == "zero-streams":
            self.h2.reset_stream(stream, h2.errors.ErrorCodes.REFUSED_STREAM)
            say(f"refused {stream}")
        else:
            self.answer(stream, b"ok")

    def answer(self, stream: int, body: bytes) -> None:
        self.h2.send_headers(stream, [(":status", "200"), ("content-length", str(len(body)))])
        self.h2.send_data(stream, body, end_stream=True)
        self.flush(self.h2.data_to_send(), split=self.mode == "split-records")

    def send_bodies(self) -> None:
        """large-body: as much of every body as the flow-control windows allow."""
        for stream in list(self.bodies):
            while self.bodies.get(stream, 0) > 0:
                room = min(self.h2.local_flow_control_window(stream), self.h2.max_outbound_frame_size,
                           self.bodies[stream])
                if room <= 0:
                    break
                last = room == self.bodies[stream]
                self.h2.send_data(stream, b"x" * room, end_stream=last)
                self.bodies[stream] -= room
                self.sent[stream] += room
                if last:
                    del self.bodies[stream]
                    say(f"completed {stream} {self.sent.pop(stream)}")
                self.flush(self.h2.data_to_send())

    def flush(self, data: bytes, split: bool = False) -> None:
        """Writes `data` as TLS records; `split`: all but their last byte now, the last byte `--pause` later."""
        if not data:
            return
        self.tls.write(data)
        records = self.outgoing.read()
        if split and len(records) > 1:
            self.send_raw(records[:-1])
            time.sleep(self.options.pause)
            self.send_raw(records[-1:])
        else:
            self.send_raw(records)

    def send_raw(self, data: bytes) -> None:
        if data:
            self.sock.sendall(data)


def main() -> None:
    parser = argparse.ArgumentParser(description="A hostile HTTP/2 server (one misbehaviour per run).")
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--count", type=int)
    parser.add_argument("--pause", type=float, default=3.0, help="split-records: seconds before the last byte")
    options = parser.parse_args()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
    context.set_alpn_protocols(["h2"])
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", options.port))
    server.listen(64)
    say(str(server.getsockname()[1]))
    while True:
        sock, _ = server.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=Connection(sock, context, options).run, daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
