import Essentials
import HTTPTypes
import Sockets

extension SocketAddress {
    /// Whether this is a public IP address (`PublicAddress`).
    var isPublic: Bool {
        guard let ip = ipBytes else { return false }
        return ip.count == 4 ? PublicAddress.isPublic(v4: ip) : PublicAddress.isPublic(v6: ip)
    }
}

extension RequestOrigin {
    /// `addresses` less those this origin may not connect to (`publicAddressesOnly`); `addressRefusal` when none is
    /// left.
    func connectable(_ addresses: [SocketAddress]) throws(HTTPError) -> [SocketAddress] {
        guard publicAddressesOnly else { return addresses }
        let allowed = addresses.filter(\.isPublic)
        guard !allowed.isEmpty else { throw addressRefusal }
        return allowed
    }

    /// The error of a request whose host resolved to no public address.
    var addressRefusal: HTTPError {
        HTTPError(.addressRefused, "\(self) resolves to no public address (private, loopback or link-local only)")
    }
}
