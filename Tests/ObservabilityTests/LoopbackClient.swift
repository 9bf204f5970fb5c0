import Foundation
import Glibc

/// A minimal blocking HTTP client over a raw TCP socket to 127.0.0.1, with a receive timeout so no test hangs.
enum LoopbackClient {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Sends `request` as it is and reads until the server closes the connection.
    static func exchange(port: Int, request: String) throws -> Reply {
        let raw = try send(port: port, bytes: Array(request.utf8))
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
    static func get(port: Int, _ path: String, method: String = "GET") throws -> Reply {
        try exchange(port: port, request: "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n\r\n")
    }

    /// Connects, writes `bytes`, reads everything until end of stream (at most 5 s per read).
    static func send(port: Int, bytes: [UInt8]) throws -> [UInt8] {
        let descriptor = try connect(port: port)
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

    /// An open socket connected to 127.0.0.1:`port`, with 5 s receive and send timeouts.
    static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ClientError("socket failed") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw ClientError("connect to port \(port) failed: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    struct ClientError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
