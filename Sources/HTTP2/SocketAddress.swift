import Foundation
import Glibc
import HTTPTypes

/// One address a host name resolved to, as the bytes of its `sockaddr`.
struct SocketAddress: Sendable {
    let family: Int32
    let bytes: [UInt8]

    /// Resolves `endpoint` with `getaddrinfo` on a thread of its own (the lookup blocks) and hands the addresses,
    /// or a `.connect` error naming `origin`, to `completion` on that thread.
    static func resolve(
        _ endpoint: OriginEndpoint, origin: RequestOrigin,
        completion: @escaping @Sendable (Result<[SocketAddress], HTTPError>) -> Void
    ) {
        Thread.start(named: "http2-resolve") { completion(lookUp(endpoint, origin: origin)) }
    }

    private static func lookUp(_ endpoint: OriginEndpoint, origin: RequestOrigin) -> Result<[SocketAddress], HTTPError>
    {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = endpoint.isIPAddress ? AI_NUMERICHOST : AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0 else {
            return .failure(
                HTTPError(.connect, "could not connect to \(origin): \(String(cString: gai_strerror(status)))"))
        }
        var addresses: [SocketAddress] = []
        var next = list
        while let entry = next {
            if let address = entry.pointee.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen))
                addresses.append(SocketAddress(family: entry.pointee.ai_family, bytes: Array(bytes)))
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(HTTPError(.connect, "could not connect to \(origin): the host has no address"))
        }
        return .success(addresses)
    }
}
