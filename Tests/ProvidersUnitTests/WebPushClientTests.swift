import Essentials
import Foundation
import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

/// The Web Push client against a scripted transport: encryption, VAPID per origin, the endpoint policy, outcomes.
@Suite struct WebPushClientTests {
    static let request = ProviderRequest(
        platform: .web, path: "https://push.example.net/push/abc",
        headers: [.init("ttl", "60"), .init("urgency", "high"), .init("content-encoding", "aes128gcm")],
        body: Array(#"{"body":"Hello","mid":"m-1"}"#.utf8), expiresAtEpochSeconds: 0)

    func client(_ transport: ScriptedTransport, clock: ManualClock = ManualClock(), allowsPrivate: Bool = false)
        throws -> WebPushClient
    {
        WebPushClient(
            configuration: WebPushConfiguration(
                requestDeadline: .seconds(1), policy: WebPushEndpointPolicy(allowsPrivateEndpoints: allowsPrivate)),
            vapid: try VAPIDKey(pem: try TestKeys.p256.get(), subject: "mailto:ops@example.com"),
            transport: transport, clock: clock)
    }

    @Test func postsTheEncryptedBodyToTheEndpointWithVAPIDAndTheHeaders() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 201, headers: [HTTPHeader("location", "x")]) }
        let webPush = try client(transport)
        let token = Fixture.webToken(endpoint: "https://push.example.net/push/abc")
        #expect(await webPush.send(subscription: token, request: Self.request) == .delivered(providerMessageId: nil))
        let sent = try #require(transport.requests.first)
        #expect(sent.method == "POST")
        #expect(sent.url == "https://push.example.net/push/abc")
        #expect(!sent.oneStreamUntilOriginSucceeds, "a push service gets its streams at once")
        #expect(sent.headers.first { $0.hasName("ttl") }?.value == "60")
        #expect(sent.body.count == 86 + Self.request.body.count + 1 + 16)
        #expect(!sent.body.contains(subsequence: Self.request.body))
        let authorization = try #require(sent.headers.first { $0.hasName("authorization") }?.value)
        #expect(authorization.hasPrefix("vapid t="))
        let parts = authorization.dropFirst("vapid t=".count).split(separator: ", k=")
        let claims = try #require(parts.first?.split(separator: ".").dropFirst().first)
        #expect(
            Base64URL.decode(claims).map { String(decoding: $0, as: UTF8.self) }
                == #"{"aud":"https://push.example.net","exp":1800043200,"sub":"mailto:ops@example.com"}"#)
        #expect(parts.last.flatMap { Base64URL.decode($0) }?.count == 65)
    }

    @Test func theTransportConnectsOnlyToPublicAddressesUnlessPrivateEndpointsAreAllowed() async throws {
        let token = Fixture.webToken(endpoint: "https://push.example.net/push/abc")
        for allowsPrivate in [false, true] {
            let transport = ScriptedTransport { _ in HTTPResponse(status: 201) }
            _ = try await client(transport, allowsPrivate: allowsPrivate).send(
                subscription: token, request: Self.request)
            #expect(transport.requests.first?.publicAddressesOnly == !allowsPrivate)
        }
    }

    @Test func aHostResolvingToNoPublicAddressIsRejectedAsARefusedEndpoint() async throws {
        let transport = ScriptedTransport { _ throws(HTTPError) in
            throw HTTPError(.addressRefused, "https://push.example.net resolves to no public address")
        }
        let token = Fixture.webToken(endpoint: "https://push.example.net/push/abc")
        #expect(
            try await client(transport).send(subscription: token, request: Self.request)
                == .rejected(status: nil, reason: "endpoint refused: its host resolves to no public address"))
    }

    @Test func oneTokenPerOriginIsSignedAgainOnlyAfterHalfItsLife() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 201) }
        let clock = ManualClock()
        let webPush = try client(transport, clock: clock)
        let first = try webPush.authorization(for: "https://a.example")
        #expect(try webPush.authorization(for: "https://a.example") == first)
        #expect(try webPush.authorization(for: "https://b.example") != first)
        clock.advance(by: .seconds(6 * 3600 - 1))
        #expect(try webPush.authorization(for: "https://a.example") == first)
        clock.advance(by: .seconds(2))
        #expect(try webPush.authorization(for: "https://a.example") != first)
    }

    @Test func aLoopbackEndpointIsRefusedByDefaultAndNothingIsConnectedTo() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 201) }
        let webPush = try client(transport)
        let outcome = await webPush.send(
            subscription: Fixture.webToken(endpoint: "https://127.0.0.1/push/abc"), request: Self.request)
        #expect(outcome == .rejected(status: nil, reason: "endpoint refused: the endpoint is a private IPv4 address"))
        #expect(transport.requests.isEmpty)
        let allowing = try client(transport, allowsPrivate: true)
        #expect(
            await allowing.send(
                subscription: Fixture.webToken(endpoint: "https://127.0.0.1:8443/push/abc"), request: Self.request)
                == .delivered(providerMessageId: nil))
        #expect(transport.requests.count == 1)
    }

    @Test func aSubscriptionWhoseKeyIsNoPointOfTheCurveIsRejectedUnsent() async throws {
        let transport = ScriptedTransport { _ in HTTPResponse(status: 201) }
        let webPush = try client(transport)
        let offCurve = Fixture.webToken.replacingOccurrences(of: "NtoIAiw4", with: "NtoIAjw4")
        guard case .rejected(nil, let reason) = await webPush.send(subscription: offCurve, request: Self.request)
        else {
            Issue.record("a point off the curve was not rejected")
            return
        }
        #expect(reason.hasPrefix("cannot encrypt for the subscription"))
        #expect(transport.requests.isEmpty)
    }

    @Test(
        arguments: [
            (200, [], "", "delivered"), (201, [], "", "delivered"), (202, [], "", "delivered"),
            (404, [], "", "invalidToken"), (410, [], "Gone", "invalidToken"), (413, [], "", "tooLarge"),
            (429, [HTTPHeader("retry-after", "30")], "", "retry"), (500, [], "", "retry"), (503, [], "", "retry"),
            (400, [], "bad", "rejected"), (401, [], "", "rejected"), (403, [], "", "rejected"),
            (301, [HTTPHeader("location", "https://127.0.0.1/")], "", "rejected"), (418, [], "", "rejected"),
        ] as [(Int, [HTTPHeader], String, String)])
    func eachStatusHasItsOutcome(status: Int, headers: [HTTPHeader], body: String, name: String) {
        let outcome = WebPushResponseClassifier.classify(
            HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), now: Date())
        #expect(outcome.className == name)
    }

    @Test func retryAfterIsKeptAndARedirectIsNamed() {
        let now = Date()
        #expect(
            WebPushResponseClassifier.classify(
                HTTPResponse(status: 429, headers: [HTTPHeader("retry-after", "30")]), now: now)
                == .retry(status: 429, reason: "HTTP 429", after: .seconds(30)))
        #expect(
            WebPushResponseClassifier.classify(HTTPResponse(status: 302), now: now)
                == .rejected(status: 302, reason: "redirect not followed (HTTP 302)"))
    }

    @Test func theServicesReasonIsBoundedAndPrintable() {
        let hostile =
            Array("bad\r\n\u{1B}[31m  VAPID\tkey".utf8) + [0xFF, 0x00] + Array(repeating: 0x41, count: 10_000)
        let reason = WebPushResponseClassifier.reason(HTTPResponse(status: 400, body: hostile))
        #expect(reason.hasPrefix("HTTP 400: bad [31m VAPID key AAAA"))
        #expect(reason.utf8.count <= "HTTP 400: ".utf8.count + WebPushResponseClassifier.maximumReasonBytes)
        #expect(reason.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
    }

    @Test(arguments: ["ops@example.com", "mailto:", "http://example.com", "mailto:a b", ""])
    func aSubjectThatIsNoMailtoOrHTTPSURIIsRefused(subject: String) throws {
        #expect(throws: ProviderConfigurationError.self) {
            try VAPIDKey(pem: try TestKeys.p256.get(), subject: subject)
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}
