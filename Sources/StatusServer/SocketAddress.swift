import Glibc

/// Numeric socket addresses, resolved without DNS.
enum SocketAddress {
    /// Whether `host` is a numeric IPv4 or IPv6 address.
    static func isNumericHost(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }

    /// The port a bound socket listens on.
    static func boundPort(of descriptor: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            case AF_INET6:
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            default:
                nil
            }
        }
    }

    /// Opens a listening TCP socket on `host:port` (close-on-exec, address reuse), or the system's reason why not.
    static func listen(host: String, port: Int, backlog: Int32) -> Result<Int32, HTTPServerError> {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &results)
        guard lookup == 0, let info = results else {
            return .failure(HTTPServerError(address: address, reason: String(cString: gai_strerror(lookup))))
        }
        defer { freeaddrinfo(results) }

        let descriptor = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(HTTPServerError(address: address, reason: errnoText())) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0,
            Glibc.listen(descriptor, backlog) == 0
        else {
            let reason = errnoText()
            close(descriptor)
            return .failure(HTTPServerError(address: address, reason: reason))
        }
        return .success(descriptor)
    }

    /// Keeps `descriptor` out of child processes (the worker may spawn none, tests do).
    static func setCloseOnExec(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// The text of the current `errno`.
    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
