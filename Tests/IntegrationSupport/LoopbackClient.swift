import Foundation
import Glibc

/// A minimal blocking HTTP client over a raw TCP socket to a loopback address, with a receive timeout so no test hangs.
public enum LoopbackClient {
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String
    }

    /// Sends `request` as it is and reads until the server closes the connection.
    public static func exchange(
        host: String = "127.0.0.1", port: Int, request: String, timeoutSeconds: Int = 5
    ) throws -> Reply {
        let raw = try send(host: host, port: port, bytes: Array(request.utf8), timeoutSeconds: timeoutSeconds)
        let text = String(decoding: raw, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else {
            throw ClientError("no response head in \(text.debugDescription)")
        }
        let headLines = text[..<split.lowerBound].split(separator: "\r\n").map(String.init)
        let statusParts = headLines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw ClientError("bad status line") }
        var headers: [String: String] = [:]
        for line in headLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Reply(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    /// `GET path` with the headers a scraper or kubelet sends.
    public static func get(host: String = "127.0.0.1", port: Int, _ path: String, method: String = "GET") throws
        -> Reply
    {
        try exchange(
            host: host, port: port, request: "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n\r\n"
        )
    }

    /// `POST path` with `body` and the extra header lines `headers` (`Name: value`), closing after the answer.
    public static func post(
        host: String = "127.0.0.1", port: Int, _ path: String, body: String, headers: [String] = [],
        timeoutSeconds: Int = 5
    ) throws -> Reply {
        let head =
            ([
                "POST \(path) HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                "Content-Type: application/json; charset=utf-8", "Content-Length: \(body.utf8.count)",
            ] + headers)
            .joined(separator: "\r\n")
        return try exchange(host: host, port: port, request: head + "\r\n\r\n" + body, timeoutSeconds: timeoutSeconds)
    }

    /// Connects, writes `bytes`, reads everything until end of stream (at most `timeoutSeconds` per read).
    public static func send(host: String, port: Int, bytes: [UInt8], timeoutSeconds: Int = 5) throws -> [UInt8] {
        let descriptor = try connect(host: host, port: port, timeoutSeconds: timeoutSeconds)
        defer { close(descriptor) }
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let sent = remaining.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { break }  // the server may answer and close before reading everything
            remaining = remaining.dropFirst(sent)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<1_000 {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return received
    }

    /// An open socket connected to `host`:`port` (numeric, loopback only), with receive and send timeouts of
    /// `timeoutSeconds`; from the IPv4 address `source` when given (another loopback address, `127.0.0.2`).
    public static func connect(
        host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 5, source: String? = nil
    ) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let info = results else {
            throw ClientError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(results) }
        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClientError("socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, source, &local.sin_addr) == 1,
                withUnsafePointer(
                    to: &local,
                    {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }) == 0
            else {
                close(descriptor)
                throw ClientError("cannot bind to \(source)")
            }
        }
        guard Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            close(descriptor)
            throw ClientError("connect to \(host) port \(port) failed: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// Writes `text` to an open socket; false when the server closed it.
    public static func write(_ descriptor: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    public struct ClientError: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}
