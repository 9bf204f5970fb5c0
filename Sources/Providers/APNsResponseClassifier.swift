import Foundation
import HTTP2

/// Turns an APNs response into a `DeliveryOutcome`. Pure: the time is a parameter (for Retry-After dates).
enum APNsResponseClassifier {
    private struct ErrorBody: Decodable {
        var reason: String?
        /// Milliseconds since the epoch at which the token was last known valid (410 only).
        var timestamp: Double?
    }

    /// The outcome of `response`, together with the table action (the client renews on renewable credentials).
    static func classify(_ response: HTTPResponse, now: Date) -> (outcome: DeliveryOutcome, action: ProviderAction?) {
        if response.status == 200 {
            let apnsID = response.header("apns-id")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return (.delivered(providerMessageId: apnsID), nil)
        }
        let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
        let reason = body?.reason ?? "HTTP \(response.status)"
        let action =
            body?.reason.flatMap { APNsReason.table[$0]?.action } ?? APNsReason.action(forStatus: response.status)
        let invalidSince = body?.timestamp.map { Date(timeIntervalSince1970: $0 / 1000) }
        let retryAfter = response.header("retry-after").flatMap { RetryAfter.parse($0, now: now) }
        let outcome = DeliveryOutcome(
            action: action, status: response.status, reason: reason, retryAfter: retryAfter, invalidSince: invalidSince)
        return (outcome, action)
    }
}
