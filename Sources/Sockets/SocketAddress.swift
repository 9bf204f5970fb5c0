import Glibc

/// One TCP address a host and port resolved to, as the bytes of its `sockaddr`: what the HTTP/2 transport connects
/// to and the status and ingress servers listen on. Also the few socket calls both sides need around it.
public struct SocketAddress: Sendable, Equatable {
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32
    /// The `sockaddr_in` or `sockaddr_in6`.
    public let bytes: [UInt8]

    public init(family: Int32, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    /// What an address is resolved for.
    public enum Use: Sendable, Equatable {
        /// To connect to: a host name is looked up (`AI_ADDRCONFIG`: only families the machine has), a numeric
        /// host is taken as it is.
        case connect
        /// To bind and listen on: a numeric host only (no name lookup at start), any family.
        case listen
    }

    /// The addresses of `host:port` for `use`, in the resolver's order, or the resolver's reason why there are none
    /// (`getaddrinfo` blocks while it looks a name up: a caller that must not block calls it on a thread of its own).
    public static func resolve(host: String, port: Int, for use: Use) -> Result<[SocketAddress], SocketError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        switch use {
        case .connect: hints.ai_flags = isNumericHost(host) ? AI_NUMERICHOST : AI_ADDRCONFIG
        case .listen: hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        }
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else { return .failure(SocketError(String(cString: gai_strerror(status)))) }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                addresses.append(SocketAddress(family: entry.pointee.ai_family, bytes: Array(bytes)))
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(SocketError("the host has no address")) }
        return .success(addresses)
    }

    /// The IP address's bytes (4 or 16), or `nil` for another family.
    public var ipBytes: [UInt8]? {
        switch family {
        case AF_INET where bytes.count >= 8: Array(bytes[4..<8])  // sockaddr_in: family, port, sin_addr
        case AF_INET6 where bytes.count >= 24: Array(bytes[8..<24])  // sockaddr_in6: family, port, flow, sin6_addr
        default: nil
        }
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address.
    public static func isNumericHost(_ host: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, host, &storage) == 1 || inet_pton(AF_INET6, host, &storage) == 1
    }

    /// Opens a listening TCP socket on `host:port` (close-on-exec, address reuse), or the system's reason why not.
    public static func listen(host: String, port: Int, backlog: Int32) -> Result<Int32, SocketError> {
        let address: SocketAddress
        switch resolve(host: host, port: port, for: .listen) {
        case .success(let addresses): address = addresses[0]
        case .failure(let error): return .failure(error)
        }
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.errno()) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.bytes.withUnsafeBytes { bytes in
            bind(descriptor, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }
        guard bound == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let error = SocketError.errno()
            close(descriptor)
            return .failure(error)
        }
        return .success(descriptor)
    }

    /// The port a bound socket listens on.
    public static func boundPort(of descriptor: Int32) -> Int? {
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
}

/// Why a host could not be resolved or a socket not opened: the resolver's or the system's words.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// e.g. `Name or service not known`, `Address already in use`.
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    /// The current `errno`'s text.
    public static func errno() -> SocketError {
        SocketError(String(cString: strerror(Glibc.errno)))
    }

    public var description: String { reason }
}
