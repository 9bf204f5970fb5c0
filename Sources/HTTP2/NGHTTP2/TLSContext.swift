internal import CNGHTTP2
import Glibc
import HTTPTypes

/// The nghttp2 transport's OpenSSL context (`SSL_CTX`), shared by all its connections: TLS 1.2 or newer, the
/// server's certificate verified against the system's CAs (`SystemTrust`) plus `extraCAFile`, ALPN offering `h2` (and
/// `http/1.1`, so a server without h2 says so instead of failing the handshake), and the client certificate.
///
/// `@unchecked Sendable`: made once, then only read (OpenSSL's context is safe to share once configured); the
/// connections are made on the transport's one thread.
final class TLSContext: @unchecked Sendable {
    let raw: OpaquePointer
    /// Why the client certificate or its key could not be loaded: every TLS connection then fails with it, the
    /// way the libcurl transport reports it.
    let clientCertificateError: HTTPError?
    /// True when connections present a client certificate.
    let presentsClientCertificate: Bool

    /// Builds the context; throws `.tls` if `extraCAFile` holds no certificate OpenSSL can load, or if the
    /// client certificate's files cannot be read (`ClientCertificate.validate()`).
    init(configuration: HTTP2TransportConfiguration) throws(HTTPError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTPError(.tls, "OpenSSL could not create a TLS context")
        }
        raw = context
        _ = pw_ssl_ctx_set_min_tls12(context)
        _ = pw_ssl_ctx_set_modes(context)
        pw_ssl_ctx_set_read_ahead(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        SystemTrust.current.install(in: context)
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        _ = SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count))
        if let extra = configuration.extraCAFile {
            ERR_clear_error()
            guard SSL_CTX_load_verify_locations(context, extra, nil) == 1 else {
                SSL_CTX_free(context)
                throw HTTPError(.tls, "cannot read the CA file \(extra) or it holds no PEM certificate")
            }
        }
        presentsClientCertificate = configuration.clientCertificate != nil
        if let certificate = configuration.clientCertificate {
            do throws(HTTPError) {
                try certificate.validate()
            } catch {
                SSL_CTX_free(context)
                throw error
            }
            clientCertificateError = Self.load(certificate, into: context)
        } else {
            clientCertificateError = nil
        }
    }

    deinit { SSL_CTX_free(raw) }

    /// Loads the certificate chain and the key (decrypted with its password, if any); the error if OpenSSL
    /// refuses either, naming neither the password nor the key.
    private static func load(_ certificate: ClientCertificate, into context: OpaquePointer) -> HTTPError? {
        ERR_clear_error()
        var loaded = SSL_CTX_use_certificate_chain_file(context, certificate.certificateFile) == 1
        if loaded {
            var password = Array((certificate.keyPassword ?? "").utf8CString)
            loaded = password.withUnsafeMutableBytes { password in
                SSL_CTX_set_default_passwd_cb_userdata(context, password.baseAddress)
                SSL_CTX_set_default_passwd_cb(context, copyPassword)
                defer {
                    SSL_CTX_set_default_passwd_cb(context, nil)
                    SSL_CTX_set_default_passwd_cb_userdata(context, nil)
                }
                return SSL_CTX_use_PrivateKey_file(context, certificate.keyFile, SSL_FILETYPE_PEM) == 1
                    && SSL_CTX_check_private_key(context) == 1
            }
            for index in password.indices { password[index] = 0 }
        }
        ERR_clear_error()
        guard !loaded else { return nil }
        return HTTPError(
            .tls,
            "TLS failed: the client certificate or key could not be used; check the certificate and key files and "
                + "the key password")
    }
}

/// OpenSSL's password callback: copies the NUL-terminated password `context` points at into `buffer`.
private func copyPassword(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let buffer, let context else { return 0 }
    let password = context.assumingMemoryBound(to: CChar.self)
    let length = min(Int(size), strlen(password))
    buffer.update(from: password, count: length)
    return Int32(length)
}
