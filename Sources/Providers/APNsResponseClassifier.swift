import Foundation
import HTTPTypes
import PushCore

/// Turns an APNs response into a `DeliveryOutcome`. Pure: the time is a parameter (for Retry-After dates).
enum APNsResponseClassifier {
    private struct ErrorBody: Decodable {
        var reason: String?
    }

    /// Decoded apart from the reason, so that a hostile timestamp (`1e400`, a string) loses only itself.
    private struct TimestampBody: Decodable {
        /// Milliseconds since the epoch at which the token was last known valid (410 only).
        var timestamp: Double
    }

    /// The earliest `timestamp` taken (2010, before APNs' HTTP/2 API existed); earlier ones are ignored.
    static let earliestTimestampMillis: Double = 1_262_304_000_000
    /// How far past `now` a `timestamp` may lie (clock skew); later ones are ignored.
    static let timestampSkewMillis: Double = 86_400_000

    /// The outcome of `response`, together with the table action (the client renews on renewable credentials).
    /// A delivery is named by the response's `apns-id`, or by `sentID` (the `apns-id` the request carried) when
    /// the response has none.
    static func classify(
        _ response: HTTPResponse, sentID: String?, now: Date
    ) -> (outcome: DeliveryOutcome, action: ProviderAction?) {
        if response.status == 200 {
            let apnsID = response.header(ProviderResponseHeader.apnsID)
            return (.delivered(providerMessageId: apnsID.flatMap { $0.isEmpty ? nil : $0 } ?? sentID), nil)
        }
        let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
        let reason = body?.reason ?? "HTTP \(response.status)"
        let action =
            body?.reason.flatMap { APNsReason.table[$0]?.action } ?? APNsReason.action(forStatus: response.status)
        let timestamp = try? JSONDecoder().decode(TimestampBody.self, from: Data(response.body)).timestamp
        let invalidSince = timestamp.flatMap { Self.invalidSinceMillis($0, now: now) }
        let retryAfter = response.header(ProviderResponseHeader.retryAfter).flatMap { RetryAfter.parse($0, now: now) }
        let outcome = DeliveryOutcome(
            action: action, status: response.status, reason: reason, retryAfter: retryAfter,
            invalidSinceMillis: invalidSince)
        return (outcome, action)
    }

    /// The 410 `timestamp` in whole epoch milliseconds when it is a plausible time (since 2010, at most a day
    /// ahead of `now`); anything else (negative, NaN, `1e300`) is ignored and the token counts as invalid since
    /// the answer.
    static func invalidSinceMillis(_ millis: Double, now: Date) -> Int64? {
        let latest = now.timeIntervalSince1970 * 1000 + timestampSkewMillis
        guard millis.isFinite, millis >= earliestTimestampMillis, millis <= latest else { return nil }
        return Int64(exactly: millis.rounded())
    }
}
