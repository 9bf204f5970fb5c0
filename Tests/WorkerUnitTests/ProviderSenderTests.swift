import PushCore
import Testing

@testable import PushPipeline
@testable import Worker

@Suite struct ProviderSenderTests {
    static let send = ProviderSend(
        request: ProviderRequest(
            platform: .apns, path: "/3/device/x", headers: [], body: Array("{}".utf8), expiresAtEpochSeconds: 0),
        deviceToken: String(repeating: "ab", count: 32))

    @Test(arguments: [(PushProvider.apns, "APNs is not configured"), (.fcm, "FCM is not configured")])
    func aProviderWithoutAClientRejectsWithoutAStatus(provider: PushProvider, reason: String) async {
        let sender = ProviderSender(apns: nil, fcm: nil)
        #expect(sender.configuredProviders.isEmpty)
        #expect(await sender.send(Self.send, to: provider) == .rejected(status: nil, reason: reason))
    }
}
