import Glibc

/// A TCP listener on 127.0.0.1 that accepts connections (in the kernel's backlog) and never says a word: a server
/// whose TLS handshake never completes.
final class SilentListener {
    private let socket: Int32
    let port: Int

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && listen(socket, 16) == 0
                    && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw ListenerError() }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }

    struct ListenerError: Error {}
}
