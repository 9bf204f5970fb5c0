import Foundation
import PushPipeline
import Testing

@testable import Providers
@testable import Worker

@Suite struct ProviderSenderTests {
    @Test(arguments: [
        (DeliveryOutcome.delivered(providerMessageId: ""), SendOutcome.delivered(providerMessageId: "apns-id-1")),
        (
            .delivered(providerMessageId: "projects/p/messages/1"),
            .delivered(providerMessageId: "projects/p/messages/1")
        ),
        (
            .invalidToken(reason: "Unregistered", invalidSince: Date(timeIntervalSince1970: 1_700_000_000)),
            .invalidToken(reason: "Unregistered", status: 410, timestampMillis: 1_700_000_000_000)
        ),
        (
            .invalidToken(reason: "BadDeviceToken", invalidSince: nil),
            .invalidToken(reason: "BadDeviceToken", status: 400, timestampMillis: nil)
        ),
        (.rejected(status: 400, reason: "BadTopic"), .rejected(reason: "BadTopic", status: 400)),
        (
            .retry(after: .seconds(30), status: 429, reason: "TooManyRequests"),
            .retry(reason: "TooManyRequests", status: 429, after: .seconds(30))
        ),
        (.credentials(status: 403, reason: "InvalidProviderToken"), .credentials(reason: "InvalidProviderToken")),
    ])
    func theSenderAdapterMapsProviderOutcomes(outcome: DeliveryOutcome, expected: SendOutcome) {
        #expect(ProviderSender.sendOutcome(outcome, apnsID: "apns-id-1") == expected)
    }
}
