"""The push simulator: a TLS HTTP/2 test double of APNs, FCM, Google OAuth and a Web Push service, with a control API.

    python Tests/PushSimulator/simulator.py --cert-dir DIR [--port 0] [--control-port 0] [--routes echo,apns]

Generates a CA and a localhost server certificate into DIR, listens on 127.0.0.1, and prints one ready line
on stdout:

    {"port": 43210, "control_port": 43211, "mtls_port": 43212, "ca_file": "DIR/ca.pem",
     "other_ca_file": "DIR/other-ca.pem", "client_ca_file": "DIR/client-ca.pem"}

`mtls_port` serves the same routes with mutual TLS: the handshake requires a client certificate signed by the
simulator's client CA (client-ca.pem), like an APNs certificate-based connection; the apns-client-certificate
control command (apns.py) issues such certificates.

Route modules (echo.py, and apns.py, fcm.py, oauth.py, hostile.py where present) plug in through the interface described
at the top of server.py; the control API is described in control.py. Runs until SIGTERM/SIGINT, or until
stdin closes with --exit-on-stdin-eof (so a test's child never outlives the test).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import certs  # noqa: E402
import control  # noqa: E402
from server import Simulator  # noqa: E402

OPTIONAL_ROUTE_MODULES = ("apns", "fcm", "oauth", "hostile", "webpush")


def route_modules(requested: str | None) -> list[str]:
    if requested:
        return [name.strip() for name in requested.split(",") if name.strip()]
    here = Path(__file__).resolve().parent
    return ["echo"] + [name for name in OPTIONAL_ROUTE_MODULES if (here / f"{name}.py").exists()]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cert-dir", required=True, type=Path, help="where the CA and server certificate go")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="HTTP/2 TLS port (0: ephemeral)")
    parser.add_argument("--control-port", type=int, default=0, help="control API port (0: ephemeral)")
    parser.add_argument("--mtls-port", type=int, default=0, help="mutual-TLS HTTP/2 port (0: ephemeral)")
    parser.add_argument("--routes", help="comma-separated route modules (default: echo + apns/fcm/oauth if present)")
    parser.add_argument("--seed", type=int, default=None, help="seed for random faults")
    parser.add_argument("--exit-on-stdin-eof", action="store_true", help="stop when stdin closes")
    arguments = parser.parse_args()

    files = certs.generate(arguments.cert_dir)
    simulator = Simulator(files, seed=arguments.seed)
    for name in route_modules(arguments.routes):
        importlib.import_module(name).register(simulator)

    client_authority = certs.ClientAuthority("push-simulator client CA")
    client_ca_file = client_authority.write_ca(arguments.cert_dir / "client-ca.pem")
    simulator.client_authorities = {
        "simulator": client_authority,
        "unrelated": certs.ClientAuthority("push-simulator unrelated client CA"),
    }
    server = await simulator.serve(arguments.host, arguments.port)
    mtls_server = await simulator.serve(arguments.host, arguments.mtls_port, client_ca_file)
    control_server = await control.serve(simulator, arguments.host, arguments.control_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    if arguments.exit_on_stdin_eof:
        loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.buffer.read1(4096) else None)

    print(json.dumps({
        "port": server.sockets[0].getsockname()[1],
        "control_port": control_server.sockets[0].getsockname()[1],
        "mtls_port": mtls_server.sockets[0].getsockname()[1],
        "ca_file": str(files.ca_file.resolve()),
        "other_ca_file": str(files.other_ca_file.resolve()),
        "client_ca_file": str(client_ca_file.resolve()),
    }), flush=True)
    await stop.wait()
    server.close()
    mtls_server.close()
    control_server.close()
    for connection in list(simulator.connections):
        connection.close()


if __name__ == "__main__":
    asyncio.run(main())
