/// How often a request of either transport may go out again after an attempt ended without a response.
///
/// A stream the server refused (REFUSED_STREAM, or above a GOAWAY's last stream id) was not processed (RFC 9113
/// §8.7), so it is safe to send again, up to `maximumRefusals` times (libcurl's own limit of retries is 5). A
/// stream lost with its connection before any response byte may have been processed: it goes again once. Any
/// other failure (lost after a response began, TLS) never goes again. The deadline bounds all of it.
struct ResendAllowance: Equatable {
    /// Why an attempt ended without a response.
    enum Interruption {
        case refused
        case lostBeforeResponse
        /// Lost after a response began, or failed otherwise.
        case failed
    }

    static let maximumRefusals = 5

    /// Attempts made (each submission to a connection).
    private(set) var attempts = 0
    /// Attempts the server refused.
    private(set) var refusals = 0

    /// Counts an attempt starting.
    mutating func attemptStarted() { attempts += 1 }

    /// Whether the request may go out again after `interruption` (counting a refusal).
    mutating func allowsResend(after interruption: Interruption) -> Bool {
        switch interruption {
        case .refused:
            refusals += 1
            return refusals <= Self.maximumRefusals
        case .lostBeforeResponse:
            return attempts - refusals < 2
        case .failed:
            return false
        }
    }
}
