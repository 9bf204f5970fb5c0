import Foundation
public import HTTPTypes

/// A TLS client certificate and its private key, PEM files presented on every connection a client opens
/// (APNs certificate-based authentication). A client certificate belongs to a connection, so one `CurlTransport`
/// serves one credential set.
public struct ClientCertificate: Sendable, Equatable, CustomStringConvertible {
    /// The PEM certificate (chain) file.
    public var certificateFile: String
    /// The PEM private key file; may be the certificate file itself when it holds both.
    public var keyFile: String
    /// The password of an encrypted private key; never printed.
    public var keyPassword: String?

    public init(certificateFile: String, keyFile: String, keyPassword: String? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.keyPassword = keyPassword
    }

    public var description: String {
        "certificate=\(certificateFile) key=\(keyFile)\(keyPassword == nil ? "" : " password=<redacted>")"
    }

    /// Checks that both files can be read and hold PEM of the right kind, so a wrong path fails at start rather
    /// than at the first connection. Whether the key matches and the password opens it is libcurl's to find out.
    func validate() throws(HTTPError) {
        try validateCertificateFile()
        try validateKeyFile()
    }

    /// Checks that the certificate file can be read and holds a PEM certificate.
    public func validateCertificateFile() throws(HTTPError) {
        try Self.requirePEM(certificateFile, holding: "CERTIFICATE", kind: "client certificate")
    }

    /// Checks that the key file can be read and holds a PEM private key.
    public func validateKeyFile() throws(HTTPError) {
        try Self.requirePEM(keyFile, holding: "PRIVATE KEY", kind: "client key")
    }

    private static func requirePEM(_ path: String, holding label: String, kind: String) throws(HTTPError) {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw HTTPError(.tls, "cannot read the \(kind) file \(path)")
        }
        let text = String(decoding: contents, as: UTF8.self)
        guard text.contains("-----BEGIN "), text.contains("\(label)-----") else {
            throw HTTPError(.tls, "the \(kind) file \(path) holds no PEM \(label.lowercased())")
        }
    }
}
