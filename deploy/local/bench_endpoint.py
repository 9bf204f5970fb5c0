"""The benchmark's push endpoint: nginx with the echo module as a fast TLS HTTP/2 APNs, FCM and Web Push service, and what it takes
alone (h2load) or from the bare libcurl peer (`bench_peer.c`), the Node.js http2 peer and the bare nghttp2 peer
(`bench_nghttp2_peer.c`)."""

from __future__ import annotations

import json
import re
import resource
import shutil
import socket
import subprocess
import time
from pathlib import Path

from processes import build_c, popen, run

ECHO_MODULE = Path("/usr/lib/nginx/modules/ngx_http_echo_module.so")

NGINX_CONF = """\
load_module {echo_module};
daemon off;
master_process off;  # one process: its CPU time is the endpoint's
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    client_body_buffer_size 16k;
    client_max_body_size 16k;
    keepalive_requests 1000000000;
    keepalive_timeout 600s;
    http2_max_concurrent_streams 1000;
    server {{
        listen 127.0.0.1:{apns_port} ssl http2;
        listen 127.0.0.1:{fcm_port} ssl http2;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        # echo_read_request_body reads the whole body before the answer starts (curl issue 10433).
        location /3/device/ {{
            echo_read_request_body;
            add_header apns-id $http_apns_id always;
            echo_status 200;
        }}
        location /wp/ {{
            echo_read_request_body;
            echo_status 201;
        }}
        location ~ ^/v1/projects/([^/]+)/messages:send$ {{
            default_type application/json;
            echo_read_request_body;
            echo '{{"name": "projects/$1/messages/$request_id"}}';
        }}
    }}
}}
"""


# A peer's summary line: "…: N requests in S s: R requests/s, CPU C s, failed F".
PEER_CPU = re.compile(r"\bCPU ([\d.]+) s\b")


def cpu_per_10k_requests(line: str, requests: int) -> float:
    """A peer's CPU seconds (user + system) per 10k requests, from its summary `line` (0: the line has none)."""
    match = PEER_CPU.search(line)
    return float(match.group(1)) / requests * 10_000 if match and requests else 0.0


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]



def wait_for_port(port: int, what: str) -> None:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port}")


class Endpoint:
    """nginx answering APNs on `apns_port` and FCM on `fcm_port` with the simulator's server certificate."""

    def __init__(self, directory: Path, certificates: Path):
        self.directory = directory
        nginx_directory = directory / "nginx"
        nginx_directory.mkdir()
        self.apns_port, self.fcm_port = free_port(), free_port()
        configuration = nginx_directory / "nginx.conf"
        configuration.write_text(NGINX_CONF.format(
            echo_module=ECHO_MODULE, dir=nginx_directory,
            apns_port=self.apns_port, fcm_port=self.fcm_port,
            cert=certificates / "server.pem", key=certificates / "server-key.pem"))
        self.process = popen(["nginx", "-p", str(nginx_directory), "-c", str(configuration),
                              "-e", str(nginx_directory / "error.log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(self.apns_port, "nginx")
        except RuntimeError as error:
            log = nginx_directory / "error.log"
            said = log.read_text(errors="replace").strip()[-600:] if log.exists() else ""
            raise RuntimeError(f"{error}{': ' + said if said else ''} (deploy/local/bench.sh installs nginx and its "
                               "echo module first)") from None

    def ceiling(self, requests: int) -> str:
        """What the endpoint alone takes from h2load (nghttp2-client): 4 connections x 100 streams, 600-byte POSTs
        with the APNs headers of the bare peer (bench_peer.c), one thread. Its CPU per 10,000 requests is the cost of
        an HTTP/2 client on nghttp2 and OpenSSL without libcurl, beside which the transports are judged."""
        body = self.directory / "body.json"
        body.write_text(json.dumps({"aps": {"alert": {"body": "x" * 560}}}))
        headers = ["content-type: application/json", "apns-push-type: alert", "apns-topic: com.example.chat",
                   "apns-priority: 10", "apns-expiration: 1800000000", "apns-collapse-id: r-42",
                   "apns-id: 6c7a1b52-3f4e-4d5a-9b8c-7d6e5f4a3b2c",
                   "authorization: bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.e30.c2lnbmF0dXJl"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        output = run(
            ["h2load", "-n", str(requests), "-c", "4", "-m", "100", "-d", str(body),
             *[argument for header in headers for argument in ("-H", header)],
             f"https://127.0.0.1:{self.apns_port}/3/device/{'ab' * 32}"],
            capture_output=True, text=True, timeout=300).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        line = next((line.strip() for line in output.splitlines() if line.startswith("finished in")), output.strip())
        return f"{line}; h2load CPU {cpu:.2f} s ({cpu / max(requests, 1) * 10_000:.2f} s per 10k requests)"

    def node_peer(self, requests: int, ca_file: str) -> tuple[str, float]:
        """Node.js's own `http2` client (`bench_node_peer.mjs`) on the same endpoint with the bare peer's requests: its
        summary line and requests/s; ("node is not installed", 0) without `node`."""
        if shutil.which("node") is None:
            return "node is not installed", 0.0
        output = run(
            ["node", str(Path(__file__).with_name("bench_node_peer.mjs")), f"https://127.0.0.1:{self.apns_port}",
             f"https://127.0.0.1:{self.fcm_port}", ca_file, str(requests), "200"],
            capture_output=True, text=True, timeout=600)
        line = output.stdout.strip() or output.stderr.strip()
        match = re.search(r"([\d.]+) requests/s", line)
        return line, float(match.group(1)) if match else 0.0

    def nghttp2_peer(self, requests: int, ca_file: str) -> tuple[str, float]:
        """The bare nghttp2 client loop (`bench_nghttp2_peer.c`: nghttp2 and OpenSSL without libcurl, one write per
        connection per loop turn) on the same endpoint with the bare peer's requests: its summary line and
        requests/s."""
        return self.c_peer("bench_nghttp2_peer", ["-lnghttp2", "-lssl", "-lcrypto"], requests, ca_file)

    def bare_peer(self, requests: int, ca_file: str) -> tuple[str, float]:
        """The bare libcurl multi loop (`bench_peer.c`) on the same endpoint: its summary line and requests/s."""
        return self.c_peer("bench_peer", ["-lcurl"], requests, ca_file)

    def c_peer(self, name: str, libraries: list[str], requests: int, ca_file: str) -> tuple[str, float]:
        """Builds `NAME.c` (next to this file) with `libraries` and runs it with 200 streams against both origins:
        its summary line and requests/s."""
        binary = build_c(name, self.directory, libraries)
        output = run(
            [str(binary), f"https://127.0.0.1:{self.apns_port}", f"https://127.0.0.1:{self.fcm_port}", ca_file,
             str(requests), "200"], capture_output=True, text=True, timeout=600)
        line = output.stdout.strip() or output.stderr.strip()
        match = re.search(r"([\d.]+) requests/s", line)
        rate = float(match.group(1)) if match else 0.0
        return line, rate
