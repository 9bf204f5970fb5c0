public import Observability

/// The certificate and private key an HTTP server answers TLS with (libmicrohttpd over GnuTLS), both PEM.
public struct ServerTLS: Sendable, Equatable {
    /// The server's certificate, optionally followed by its intermediates.
    public var certificatePEM: String
    public var keyPEM: Secret<String>

    public init(certificatePEM: String, keyPEM: Secret<String>) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}
