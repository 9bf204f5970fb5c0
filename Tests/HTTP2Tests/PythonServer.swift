import Foundation
import IntegrationSupport
import TestSupport

/// A small server in Python, as a child process, for what the push simulator cannot be: it prints the port it
/// listens on (127.0.0.1) as its first line.
final class PythonServer: Sendable {
    private let process: ChildProcess

    init(script: String, arguments: [String] = []) throws {
        process = try ChildProcess(Repository.python, ["-c", script] + arguments)
    }

    /// The script `file` with `arguments`.
    init(file: String, arguments: [String]) throws {
        process = try ChildProcess(Repository.python, [file] + arguments)
    }

    /// The port it listens on.
    func port() async throws -> Int {
        let line = try await process.stdout.line(0, within: .seconds(30))
        guard let port = Int(line) else { throw CocoaError(.formatting) }
        return port
    }

    func stop() { process.signal(SIGKILL) }

    /// A TLS server that speaks only HTTP/1.1 (ALPN `http/1.1`) with the push simulator's server certificate (its
    /// `server.pem` and `server-key.pem` beside `caFile`): every GET gets 200 and `x-served-by: http/1.1`.
    static func http1TLS(certificatesBesides caFile: String) throws -> PythonServer {
        let directory = URL(fileURLWithPath: caFile).deletingLastPathComponent()
        return try PythonServer(
            script: """
                import http.server, ssl, sys
                class Handler(http.server.BaseHTTPRequestHandler):
                    protocol_version = "HTTP/1.1"
                    def do_GET(self):
                        body = str(len(self.path)).encode()
                        self.send_response(200)
                        self.send_header("x-served-by", "http/1.1")
                        self.send_header("content-length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                    def log_message(self, *arguments):
                        pass
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                context.set_alpn_protocols(["http/1.1"])
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
                server.socket = context.wrap_socket(server.socket, server_side=True)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """,
            arguments: [
                directory.appending(path: "server.pem").path, directory.appending(path: "server-key.pem").path,
            ])
    }

    /// A TLS server that chooses `h2` in ALPN (the push simulator's certificate, beside `caFile`) and then answers
    /// the client's preface with `garbage` bytes, keeping the connection open.
    static func h2Garbage(certificatesBesides caFile: String, garbage: String) throws -> PythonServer {
        let directory = URL(fileURLWithPath: caFile).deletingLastPathComponent()
        return try PythonServer(
            script: """
                import socket, ssl, sys, threading
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                context.set_alpn_protocols(["h2"])
                server = socket.socket()
                server.bind(("127.0.0.1", 0))
                server.listen(64)
                print(server.getsockname()[1], flush=True)
                def serve(connection):
                    try:
                        tls = context.wrap_socket(connection, server_side=True)
                        tls.recv(65536)
                        tls.sendall(bytes.fromhex(sys.argv[3]))
                        while tls.recv(65536):
                            pass
                    except OSError:
                        pass
                while True:
                    connection, _ = server.accept()
                    threading.Thread(target=serve, args=(connection,), daemon=True).start()
                """,
            arguments: [
                directory.appending(path: "server.pem").path, directory.appending(path: "server-key.pem").path,
                garbage.utf8.map { String(format: "%02x", $0) }.joined(),
            ])
    }

    /// A TCP server that accepts every connection and closes it at once: a TLS handshake never gets an answer.
    static func closingEveryConnection() throws -> PythonServer {
        try PythonServer(
            script: """
                import socket
                server = socket.socket()
                server.bind(("127.0.0.1", 0))
                server.listen(64)
                print(server.getsockname()[1], flush=True)
                while True:
                    connection, _ = server.accept()
                    connection.close()
                """)
    }
}

extension PythonServer {
    /// The project's hostile HTTP/2 server (`Tests/PushSimulator/hostile_h2.py`) in `mode`, with the push
    /// simulator's server certificate (beside `caFile`); `count` and `pause` tune the mode (the script's `--help`).
    static func hostileH2(
        mode: String, certificatesBesides caFile: String, count: Int? = nil, pause: Double? = nil
    ) throws -> PythonServer {
        let directory = URL(fileURLWithPath: caFile).deletingLastPathComponent()
        var arguments = [
            "--mode", mode, "--cert", directory.appending(path: "server.pem").path,
            "--key", directory.appending(path: "server-key.pem").path,
        ]
        if let count { arguments += ["--count", String(count)] }
        if let pause { arguments += ["--pause", String(pause)] }
        return try PythonServer(file: Repository.path("Tests/PushSimulator/hostile_h2.py").path, arguments: arguments)
    }

    /// What the server printed after its port: one event a line (`request 1 /x`, `reset 1 after 1048576`, …).
    func events(containing fragment: String, within limit: Duration) async throws -> String {
        try await process.stdout.line(containing: fragment, within: limit)
    }

    /// Whether the server printed a line containing `fragment` so far.
    func printed(_ fragment: String) -> Bool { process.stdout.contains(fragment) }
}
