import Foundation
import HTTPTypes
import Sockets

extension SocketAddress {
    /// Resolves `endpoint` with `getaddrinfo` on a thread of its own (the lookup blocks) and hands the addresses,
    /// or a `.connect` error naming `origin`, to `completion` on that thread.
    static func resolve(
        _ endpoint: OriginEndpoint, origin: RequestOrigin,
        completion: @escaping @Sendable (Result<[SocketAddress], HTTPError>) -> Void
    ) {
        Thread.start(named: "http2-resolve") {
            completion(
                resolve(host: endpoint.host, port: Int(endpoint.port), for: .connect).mapError {
                    HTTPError(.connect, "could not connect to \(origin): \($0.reason)")
                })
        }
    }
}
