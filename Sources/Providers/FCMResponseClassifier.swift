import Foundation
import HTTPTypes
import PushCore

/// Turns an FCM HTTP v1 response into a `DeliveryOutcome`. Pure: the time is a parameter (for Retry-After dates).
enum FCMResponseClassifier {
    /// FCM's `ErrorCode` (the `errorCode` of the `google.firebase.fcm.v1.FcmError` detail) → action.
    static let errorCodes: [String: ProviderAction] = [
        "UNREGISTERED": .invalidToken,
        "INVALID_ARGUMENT": .reject,
        // The token belongs to another sender: a configuration mismatch, not proof the token is dead.
        "SENDER_ID_MISMATCH": .reject,
        "QUOTA_EXCEEDED": .retry(minimumDelay: .seconds(60)),
        "UNAVAILABLE": .retry(minimumDelay: nil),
        "INTERNAL": .retry(minimumDelay: nil),
        // The APNs certificate or web push key stored in Firebase is invalid; our OAuth token is fine.
        "THIRD_PARTY_AUTH_ERROR": .reject,
    ]

    private struct ErrorEnvelope: Decodable {
        var error: GoogleError
    }

    /// Only the text fields are read: a hostile number (`"code": 1e400`) cannot make the answer unreadable.
    private struct GoogleError: Decodable {
        var status: String?
        var details: [Detail]?
    }

    private struct Detail: Decodable {
        var type: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode
        }
    }

    /// The outcome of `response`, together with the action (the client refreshes its token on renewable credentials).
    static func classify(_ response: HTTPResponse, now: Date) -> (outcome: DeliveryOutcome, action: ProviderAction?) {
        if response.status == 200 {
            // Every FCM send answers this: its one string is read in place, without Foundation's decoder or a tree.
            let name = JSONParser.string(member: "name", of: response.body)
            return (.delivered(providerMessageId: name.flatMap { $0.isEmpty ? nil : $0 }), nil)
        }
        let body = Data(response.body)
        let error = (try? JSONDecoder().decode(ErrorEnvelope.self, from: body))?.error
        let errorCode = error?.details?.first { $0.type?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?
            .errorCode
        let known = errorCode.flatMap { errorCodes[$0] }
        let reason = known != nil ? errorCode : error?.status
        let action = known ?? action(forStatus: response.status)
        let retryAfter = response.header(ProviderResponseHeader.retryAfter).flatMap { RetryAfter.parse($0, now: now) }
        let outcome = DeliveryOutcome(
            action: action, status: response.status, reason: reason ?? "HTTP \(response.status)",
            retryAfter: retryAfter, invalidSinceMillis: nil)
        return (outcome, action)
    }

    /// The action for a failed status without a known `errorCode`. A bare 404 is not taken as a dead token: it also
    /// means a wrong project in the URL, and deleting tokens on a configuration error would be irreversible.
    static func action(forStatus status: Int) -> ProviderAction {
        switch status {
        case 401: .credentials(renewable: true)
        case 403: .credentials(renewable: false)
        case 408, 429, 500...599: .retry(minimumDelay: nil)
        default: .reject
        }
    }
}
