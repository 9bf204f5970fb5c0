internal import CCurl
import Foundation
import HTTPTypes

/// How a failed libcurl transfer is reported and whether it may be sent once more.
struct TransferFailure: Equatable {
    var kind: HTTPError.Kind
    /// True when the request may be re-sent on another connection: the connection was refused a stream, went
    /// away or was reset before any byte of a response arrived.
    var isRetriable: Bool

    /// Classifies libcurl's result `code` for a transfer that received `receivedResponseBytes` and failed
    /// `beforeDeadline` (a timeout before the request's own deadline is a connect timeout). `detail` is libcurl's
    /// error text: a TLS alert in it before any response byte means the server refused the handshake (with TLS
    /// 1.3 a rejected client certificate is only reported after the client's side of the handshake finished).
    init(code: CURLcode, receivedResponseBytes: Bool, beforeDeadline: Bool, detail: String? = nil) {
        if !receivedResponseBytes, Self.tlsAlert(in: detail) != nil,
            code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR
        {
            self.init(kind: .tls, isRetriable: false)
            return
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
            self.init(kind: .connect, isRetriable: false)
        case CURLE_OPERATION_TIMEDOUT:
            self.init(kind: beforeDeadline ? .connect : .timeout, isRetriable: false)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            self.init(kind: .tls, isRetriable: false)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            self.init(kind: .invalidRequest, isRetriable: false)
        case CURLE_ABORTED_BY_CALLBACK:
            self.init(kind: .cancelled, isRetriable: false)
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
            CURLE_PARTIAL_FILE:
            self.init(kind: .connectionLost, isRetriable: !receivedResponseBytes)
        default:
            self.init(kind: .connectionLost, isRetriable: false)
        }
    }

    init(kind: HTTPError.Kind, isRetriable: Bool) {
        self.kind = kind
        self.isRetriable = isRetriable
    }

    /// The error for a transfer to `origin`: libcurl's generic text for `code` (never the URL or headers) plus,
    /// for certificate failures, OpenSSL's verification verdict or the TLS alert the server sent (from `detail`).
    /// `presentedClientCertificate` says whether the handshake offered a client certificate.
    static func error(
        kind: HTTPError.Kind,
        code: CURLcode,
        origin: RequestOrigin,
        certificateVerifyResult: Int,
        detail: String? = nil,
        presentedClientCertificate: Bool = false
    ) -> HTTPError {
        let reason = String(cString: curl_easy_strerror(code))
        switch kind {
        case .tls where code == CURLE_SSL_CERTPROBLEM:
            return HTTPError(
                .tls,
                "TLS with \(origin) failed (\(reason)): the client certificate or key could not be used; "
                    + "check the certificate and key files and the key password"
            )
        case .tls:
            return tlsError(
                origin: origin, reason: reason, certificateVerifyResult: certificateVerifyResult, detail: detail,
                presentedClientCertificate: presentedClientCertificate)
        case .connect: return HTTPError(.connect, "could not connect to \(origin): \(reason)")
        case .timeout: return deadlinePassed(origin)
        case .connectionLost: return HTTPError(.connectionLost, "connection to \(origin) lost: \(reason)")
        case .cancelled: return HTTPError(.cancelled, "request to \(origin) cancelled")
        case .invalidRequest: return HTTPError(.invalidRequest, "request to \(origin) rejected by libcurl: \(reason)")
        case .addressRefused: return origin.addressRefusal
        }
    }

    /// The error for a TLS handshake with `origin` that failed (`reason`: the TLS library's short text): the TLS
    /// alert the server sent (from `detail`), a client certificate the server probably refused, or OpenSSL's
    /// verification verdict on the server's certificate. Shared by both transports.
    static func tlsError(
        origin: RequestOrigin, reason: String, certificateVerifyResult: Int, detail: String?,
        presentedClientCertificate: Bool
    ) -> HTTPError {
        if let alert = tlsAlert(in: detail) {
            return HTTPError(
                .tls,
                "TLS with \(origin) failed: the server refused the handshake (\(alert)); check the client certificate")
        }
        if presentedClientCertificate && (certificateVerifyResult == 0 || certificateVerifyResult == 1) {
            // 0: the server's certificate verified; 1: libcurl's "not verified yet" (the handshake ended first).
            return HTTPError(
                .tls,
                "TLS with \(origin) failed (\(reason)) with no fault found in the server's certificate: the server "
                    + "probably refused the client certificate; check that certificate, its key and its issuer"
            )
        }
        let verdict = certificateVerdict(certificateVerifyResult).map { ": \($0)" } ?? ""
        return HTTPError(.tls, "TLS with \(origin) failed (\(reason))\(verdict); check the trusted CAs (PUSH_CA_FILE)")
    }

    /// The error for a request to `origin` whose response went past `limit` bytes
    /// (`HTTP2TransportConfiguration.maxResponseBytes`).
    static func oversizedResponse(_ origin: RequestOrigin, limit: Int) -> HTTPError {
        HTTPError(.connectionLost, "the response from \(origin) is larger than \(limit) bytes")
    }

    /// The error for a request to `origin` whose deadline passed, in flight or still queued.
    static func deadlinePassed(_ origin: RequestOrigin) -> HTTPError {
        HTTPError(.timeout, "no complete response from \(origin) before the deadline")
    }

    /// The TLS alert named in libcurl's error text, e.g. "tlsv1 alert unknown ca" from
    /// "OpenSSL SSL_read: error:0A000418:SSL routines::tlsv1 alert unknown ca, errno 0".
    static func tlsAlert(in detail: String?) -> String? {
        guard let detail, let alert = detail.range(of: " alert ") else { return nil }
        let start = detail[..<alert.lowerBound].lastIndex { $0 == ":" || $0 == " " }.map { detail.index(after: $0) }
        let text = detail[(start ?? alert.lowerBound)...]
        return String(text.prefix { $0 != "," }).trimmingCharacters(in: .whitespaces)
    }

    /// OpenSSL's text for the commonest certificate verification results (`X509_V_ERR_*`).
    static func certificateVerdict(_ result: Int) -> String? {
        switch result {
        case 2, 20: "unable to get the issuer certificate: the server's CA is not trusted"
        case 10: "the server certificate has expired"
        case 9: "the server certificate is not yet valid"
        case 18: "the server certificate is self-signed"
        case 19: "a self-signed certificate is in the chain: the server's CA is not trusted"
        case 21: "unable to verify the first certificate: the server's CA is not trusted"
        case 62: "the server certificate does not match the host name"
        default: nil
        }
    }
}
