import Foundation
import HTTP2
import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

@Suite struct APNsClassificationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func successCarriesTheAPNsID() {
        let response = HTTPResponse(
            status: 200, headers: [HTTPHeader("apns-id", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")])
        #expect(
            APNsResponseClassifier.classify(response, sentID: nil, now: Self.now).outcome
                == .delivered(providerMessageId: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }

    @Test(arguments: [[], [HTTPHeader("apns-id", " ")]])
    func successWithoutAnAPNsIDIsNamedByTheIDSent(headers: [HTTPHeader]) {
        let response = HTTPResponse(status: 200, headers: headers)
        #expect(
            APNsResponseClassifier.classify(response, sentID: "sent-id", now: Self.now).outcome
                == .delivered(providerMessageId: "sent-id"))
    }

    /// Every reason of Apple's table, with the outcome class it must come to.
    static let reasons: [(String, Int, String)] = [
        ("BadCollapseId", 400, "rejected"), ("BadDeviceToken", 400, "invalidToken"),
        ("BadExpirationDate", 400, "rejected"), ("BadMessageId", 400, "rejected"), ("BadPriority", 400, "rejected"),
        ("BadTopic", 400, "rejected"), ("DeviceTokenNotForTopic", 400, "rejected"),
        ("DuplicateHeaders", 400, "rejected"), ("IdleTimeout", 400, "retry"), ("InvalidPushType", 400, "rejected"),
        ("MissingDeviceToken", 400, "rejected"), ("MissingTopic", 400, "rejected"), ("PayloadEmpty", 400, "rejected"),
        ("TopicDisallowed", 400, "rejected"), ("BadCertificate", 403, "credentials"),
        ("BadCertificateEnvironment", 403, "credentials"), ("ExpiredProviderToken", 403, "credentials"),
        ("Forbidden", 403, "rejected"), ("InvalidProviderToken", 403, "credentials"),
        ("MissingProviderToken", 403, "credentials"), ("UnrelatedKeyIdInToken", 403, "credentials"),
        ("BadEnvironmentKeyInToken", 403, "credentials"), ("BadPath", 404, "rejected"),
        ("MethodNotAllowed", 405, "rejected"), ("ExpiredToken", 410, "invalidToken"),
        ("Unregistered", 410, "invalidToken"), ("PayloadTooLarge", 413, "rejected"),
        ("TooManyProviderTokenUpdates", 429, "retry"), ("TooManyRequests", 429, "retry"),
        ("InternalServerError", 500, "retry"), ("ServiceUnavailable", 503, "retry"), ("Shutdown", 503, "retry"),
    ]

    @Test(arguments: reasons)
    func everyAppleReasonMapsToItsClass(reason: String, status: Int, expected: String) {
        #expect(APNsReason.table[reason]?.status == status)
        let response = HTTPResponse.json(status, #"{"reason":"\#(reason)"}"#)
        let outcome = APNsResponseClassifier.classify(response, sentID: nil, now: Self.now).outcome
        #expect(outcome.className == expected)
        #expect(outcome.reason == reason)
    }

    @Test func tableHasNoReasonTheTestsDoNotName() {
        #expect(Set(APNsReason.table.keys) == Set(Self.reasons.map(\.0)))
    }

    @Test func unregisteredCarriesItsTimestamp() {
        let response = HTTPResponse.json(410, #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        #expect(
            APNsResponseClassifier.classify(response, sentID: nil, now: Self.now).outcome
                == .invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: 1_700_000_000_123))
    }

    /// A 410 `timestamp` outside 2010…now + 1 day (or not a number at all) is ignored; the reason survives.
    @Test(arguments: [
        "9223372036854775807", "-1", "1e300", "0", "1262303999999", "1800086400001", #""1700000000000""#, "null",
        "[]",
    ])
    func implausibleTimestampsAreIgnored(timestamp: String) {
        let response = HTTPResponse.json(410, #"{"reason":"Unregistered","timestamp":\#(timestamp)}"#)
        #expect(
            APNsResponseClassifier.classify(response, sentID: nil, now: Self.now).outcome
                == .invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: nil))
    }

    @Test func retryAfterIsHonouredInSecondsAndAsHTTPDate() {
        let seconds = HTTPResponse.json(
            429, #"{"reason":"TooManyRequests"}"#, headers: [HTTPHeader("Retry-After", "7")])
        #expect(
            APNsResponseClassifier.classify(seconds, sentID: nil, now: Self.now).outcome
                == .retry(status: 429, reason: "TooManyRequests", after: .seconds(7)))
        // 2027-01-15T08:00:00Z is 1_800_000_000 + 30 s
        let date = HTTPResponse.json(
            503, #"{"reason":"Shutdown"}"#, headers: [HTTPHeader("retry-after", "Fri, 15 Jan 2027 08:00:30 GMT")])
        #expect(
            APNsResponseClassifier.classify(date, sentID: nil, now: Self.now).outcome
                == .retry(status: 503, reason: "Shutdown", after: .seconds(30)))
    }

    @Test(arguments: [(400, "rejected"), (403, "credentials"), (410, "invalidToken"), (429, "retry"), (502, "retry")])
    func unknownOrMissingReasonsFallBackOnTheStatus(status: Int, expected: String) {
        #expect(
            APNsResponseClassifier.classify(.json(status, "{}"), sentID: nil, now: Self.now).outcome.className
                == expected)
        #expect(
            APNsResponseClassifier.classify(.json(status, #"{"reason":"SomethingNew"}"#), sentID: nil, now: Self.now)
                .outcome
                .className == expected)
        #expect(
            APNsResponseClassifier.classify(.json(status, "not json"), sentID: nil, now: Self.now).outcome.className
                == expected)
    }
}

@Suite struct FCMClassificationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func googleError(_ status: Int, _ canonical: String, errorCode: String?) -> HTTPResponse {
        let details =
            errorCode.map {
                #"[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"#
            } ?? "[]"
        return .json(
            status,
            #"{"error":{"code":\#(status),"message":"token abc is bad","status":"\#(canonical)","details":\#(details)}}"#
        )
    }

    @Test func successCarriesTheMessageName() {
        let response = HTTPResponse.json(200, #"{"name":"projects/p/messages/0:123"}"#)
        #expect(
            FCMResponseClassifier.classify(response, now: Self.now).outcome
                == .delivered(providerMessageId: "projects/p/messages/0:123"))
    }

    @Test(arguments: [
        (404, "NOT_FOUND", "UNREGISTERED", "invalidToken"), (400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "rejected"),
        (403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH", "rejected"),
        (429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "retry"), (503, "UNAVAILABLE", "UNAVAILABLE", "retry"),
        (500, "INTERNAL", "INTERNAL", "retry"), (401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR", "rejected"),
    ])
    func everyFCMErrorCodeMapsToItsClass(status: Int, canonical: String, errorCode: String, expected: String) {
        let outcome = FCMResponseClassifier.classify(
            Self.googleError(status, canonical, errorCode: errorCode), now: Self.now
        )
        .outcome
        #expect(outcome.className == expected)
        #expect(outcome.reason == errorCode)
    }

    @Test func errorCodesTableIsCoveredByTheTests() {
        #expect(FCMResponseClassifier.errorCodes.count == 7)
    }

    @Test func quotaExceededWaitsAtLeastSixtySecondsAndLongerWhenAsked() {
        let bare = Self.googleError(429, "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED")
        #expect(
            FCMResponseClassifier.classify(bare, now: Self.now).outcome
                == .retry(status: 429, reason: "QUOTA_EXCEEDED", after: .seconds(60)))
        var longer = bare
        longer.headers = [HTTPHeader("Retry-After", "90")]
        #expect(
            FCMResponseClassifier.classify(longer, now: Self.now).outcome
                == .retry(status: 429, reason: "QUOTA_EXCEEDED", after: .seconds(90)))
        var shorter = bare
        shorter.headers = [HTTPHeader("Retry-After", "5")]
        #expect(
            FCMResponseClassifier.classify(shorter, now: Self.now).outcome
                == .retry(status: 429, reason: "QUOTA_EXCEEDED", after: .seconds(60)))
    }

    @Test func unauthenticatedWithoutDetailIsRenewableCredentials() {
        let (outcome, action) = FCMResponseClassifier.classify(
            Self.googleError(401, "UNAUTHENTICATED", errorCode: nil), now: Self.now)
        #expect(outcome == .credentials(status: 401, reason: "UNAUTHENTICATED"))
        #expect(action == .credentials(renewable: true))
    }

    @Test func errorMessagesAreNeverCopiedIntoOutcomes() {
        let outcome = FCMResponseClassifier.classify(
            Self.googleError(400, "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT"), now: Self.now
        ).outcome
        #expect(!"\(outcome)".contains("abc"))
    }

    @Test(arguments: [(404, "rejected"), (400, "rejected"), (403, "credentials"), (500, "retry"), (429, "retry")])
    func missingDetailFallsBackOnTheStatus(status: Int, expected: String) {
        #expect(FCMResponseClassifier.classify(.json(status, "<html>"), now: Self.now).outcome.className == expected)
    }
}

@Suite struct HostileFCMAnswerTests {
    @Test func hostileNumbersInAnErrorBodyDoNotHideItsErrorCode() {
        let body =
            #"{"error": {"code": 1e400, "status": "NOT_FOUND", "details": [{"@type": "#
            + #""type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}"#
        let outcome = FCMResponseClassifier.classify(.json(404, body), now: Date()).outcome
        #expect(outcome == .invalidToken(status: 404, reason: "UNREGISTERED", invalidSinceMillis: nil))
    }

    @Test(arguments: [0, 99, 999, 1_000_000, -1])
    func anyStatusComesToAClassNeverATrap(status: Int) {
        let outcome = FCMResponseClassifier.classify(.json(status, "garbage"), now: Date()).outcome
        #expect(outcome.className == "rejected")
        let apns = APNsResponseClassifier.classify(.json(status, #"{"reason": 7}"#), sentID: nil, now: Date()).outcome
        #expect(["rejected", "retry", "credentials"].contains(apns.className))
    }
}
