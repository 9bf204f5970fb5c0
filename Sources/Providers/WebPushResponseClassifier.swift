import Foundation
import HTTPTypes
import PushCore

/// Turns a push service's answer (RFC 8030) into a `DeliveryOutcome`. Pure: the time is a parameter (for
/// Retry-After dates).
///
/// 2xx delivered; 404 and 410 the subscription is gone; 413 too large (dead-lettered); 429 and 5xx retried after
/// `Retry-After`; a redirect is not followed (rejected); 400, 401, 403 and the rest rejected. A reason quotes at
/// most `maximumReasonBytes` of the service's text, printable ASCII only.
enum WebPushResponseClassifier {
    /// The most bytes of a response's text a reason quotes.
    static let maximumReasonBytes = 160

    static func classify(_ response: HTTPResponse, now: Date) -> DeliveryOutcome {
        let status = response.status
        // A `Location` names the message resource, a capability to delete the message: not kept.
        if (200...299).contains(status) { return .delivered(providerMessageId: nil) }
        let reason = reason(response)
        switch status {
        case 404, 410:
            return .invalidToken(status: status, reason: reason, invalidSinceMillis: nil)
        case 413:
            return .tooLarge(status: status, reason: reason)
        case 429, 500...599:
            let retryAfter = response.header(ProviderResponseHeader.retryAfter).flatMap {
                RetryAfter.parse($0, now: now)
            }
            return .retry(status: status, reason: reason, after: retryAfter)
        case 300...399:
            return .rejected(status: status, reason: "redirect not followed (HTTP \(status))")
        default:
            return .rejected(status: status, reason: reason)
        }
    }

    /// `HTTP <status>`, and the start of the service's text: printable ASCII, each other byte or run of blanks as
    /// one space, cut at `maximumReasonBytes`.
    static func reason(_ response: HTTPResponse) -> String {
        var text: [UInt8] = []
        for byte in response.body.prefix(maximumReasonBytes * 4) {
            guard text.count < maximumReasonBytes else { break }
            let printable = byte > 0x20 && byte < 0x7F
            if printable {
                text.append(byte)
            } else if let last = text.last, last != 0x20 {
                text.append(0x20)
            }
        }
        while text.last == 0x20 { text.removeLast() }
        return text.isEmpty
            ? "HTTP \(response.status)" : "HTTP \(response.status): \(String(decoding: text, as: UTF8.self))"
    }
}
