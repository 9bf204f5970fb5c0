import Foundation
import TestSupport

/// A TLS server that speaks only HTTP/1.1 (ALPN `http/1.1`), with the push simulator's server certificate: Python's
/// `http.server` answering every GET with 200, `x-served-by: http/1.1` and the path's length as the body.
final class HTTP1TLSServer: Sendable {
    private let process: ChildProcess

    /// Starts it with `server.pem` and `server-key.pem` from the directory of `caFile` (the simulator's).
    init(certificatesBesides caFile: String) throws {
        let directory = URL(fileURLWithPath: caFile).deletingLastPathComponent()
        process = try ChildProcess(
            Repository.python,
            [
                "-c", Self.script, directory.appending(path: "server.pem").path,
                directory.appending(path: "server-key.pem").path,
            ])
    }

    /// The port it listens on (its first line).
    func port() async throws -> Int {
        let line = try await process.stdout.line(0, within: .seconds(30))
        guard let port = Int(line) else { throw CocoaError(.formatting) }
        return port
    }

    func stop() { process.signal(SIGKILL) }

    private static let script = """
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
        """
}
