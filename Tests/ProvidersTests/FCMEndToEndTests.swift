import Essentials
import Foundation
import HTTP2
import IntegrationSupport
import PushCore
import TestSupport
import Testing

@testable import Providers

/// `FCMClient` over the libcurl HTTP/2 transport against the push simulator's FCM v1 and OAuth2 endpoints.
extension EndToEndTests {
    @Suite struct FCM {
        static let registrationToken = "fcm-token-0001:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"

        static func message(
            token: String = registrationToken, data: String = #"{"loc-key":"im_loc_text","type":"text"}"#
        )
            -> [UInt8]
        {
            Array(
                #"""
                {"message":{"token":"\#(token)","notification":{"title":"Team","body":"Alice: Hi"},
                "android":{"collapse_key":"r-42","ttl":"3600s","priority":"HIGH",
                "notification":{"body_loc_key":"im_loc_text","body_loc_args":["Alice","Hi"],"click_action":"push_chatroom"}},
                "data":\#(data)}}
                """#.utf8)
        }

        let simulator: PushSimulator
        let account: GoogleServiceAccount

        init() async throws {
            simulator = try await SharedSimulator.reset(clearing: "/control/fcm-reset")
            _ = try await simulator.control("POST", "/control/oauth-config", body: #"{"expires_in":3599}"#)
            let file = try await simulator.serviceAccountFile()
            account = try GoogleServiceAccount(
                json: Array(try String(contentsOfFile: file.serviceAccountFile, encoding: .utf8).utf8))
        }

        func client(account: GoogleServiceAccount? = nil, clock: any WallClock = SystemWallClock()) throws -> FCMClient
        {
            FCMClient(
                configuration: FCMConfiguration(baseURL: simulator.baseURL), serviceAccount: account ?? self.account,
                transport: try simulator.transport(), clock: clock)
        }

        func tokenRequests() async throws -> Int {
            try await simulator.control("POST", "/control/oauth-stats", as: OAuthStats.self).tokenRequests
        }

        @Test func fiveHundredConcurrentSendsCauseExactlyOneTokenRequest() async throws {
            let before = try await tokenRequests()
            let fcm = try client()
            let outcomes = await concurrently(500, width: 500) { _ in await fcm.send(body: Self.message()) }
            #expect(outcomes.count == 500)
            #expect(
                outcomes.allSatisfy {
                    if case .delivered(let name) = $0 {
                        name?.hasPrefix("projects/sim-project/messages/") == true
                    } else {
                        false
                    }
                })
            #expect(try await tokenRequests() - before == 1)
            #expect(await fcm.tokenRequestsSent == 1)
        }

        @Test func unauthorizedCausesOneRefresh() async throws {
            let fcm = try client()
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            let before = try await tokenRequests()
            _ = try await simulator.control("POST", "/control/oauth-revoke")
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            #expect(try await tokenRequests() - before == 1)
            let stats = try await simulator.control("POST", "/control/fcm-stats", as: FCMStats.self)
            #expect(stats.rejections["UNAUTHENTICATED"] == 1)
        }

        /// Under a cached token a group goes in one transport call; FCM refusing the token makes one new token
        /// request, and each refused send goes once more.
        @Test func aGroupUnderARevokedTokenCausesOneRefreshAndIsDelivered() async throws {
            let fcm = try client()
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            let before = try await tokenRequests()
            _ = try await simulator.control("POST", "/control/oauth-revoke")
            let bodies = (0..<50).map { Self.message(token: "fcm-token-\($0):APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx") }
            let outcomes = await answersInOrder(of: bodies.count) { answer in await fcm.sendAll(bodies, answer: answer)
            }
            #expect(outcomes.allSatisfy { $0.className == "delivered" })
            #expect(try await tokenRequests() - before == 1)
            let stats = try await simulator.control("POST", "/control/fcm-stats", as: FCMStats.self)
            #expect(stats.rejections["UNAUTHENTICATED"] == 50)
            #expect(stats.accepted == 51)
        }

        /// A 10-minute token is renewed after three quarters of its life (5 minutes before expiry would be sooner).
        @Test func aShortLivedTokenIsRefreshedAfterThreeQuartersOfItsLifetime() async throws {
            _ = try await simulator.control("POST", "/control/oauth-config", body: #"{"expires_in":600}"#)
            let clock = ManualClock(Date())
            let fcm = try client(clock: clock)
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            clock.advance(by: .seconds(440))
            try await simulator.advanceClock(by: .seconds(440))
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            #expect(await fcm.tokenRequestsSent == 1)
            clock.advance(by: .seconds(11))
            try await simulator.advanceClock(by: .seconds(11))
            #expect(await fcm.send(body: Self.message()).className == "delivered")
            #expect(await fcm.tokenRequestsSent == 2)
        }

        @Test func unregisteredTokenIsInvalid() async throws {
            _ = try await simulator.control(
                "POST", "/control/fcm-unregister", body: #"{"tokens":["\#(Self.registrationToken)"]}"#)
            #expect(
                try await client().send(body: Self.message())
                    == .invalidToken(status: 404, reason: "UNREGISTERED", invalidSinceMillis: nil))
        }

        @Test func bodiesOutsideTheDiscoveryDocumentAreRejected() async throws {
            let fcm = try client()
            #expect(
                await fcm.send(body: Self.message(data: #"{"badge":3}"#))
                    == .rejected(status: 400, reason: "INVALID_ARGUMENT"))
            #expect(
                await fcm.send(body: Array(#"{"message":{"token":"t","colour":"red"}}"#.utf8))
                    == .rejected(status: 400, reason: "INVALID_ARGUMENT"))
        }

        @Test func quotaAndOutagesAreRetried() async throws {
            let fcm = try client()
            _ = await fcm.send(body: Self.message())  // the token first, so the faults hit the send
            try await simulator.addFaultRule(
                #"{"path":"messages:send$","times":1,"status":429,"retry_after":10,"body":{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"QUOTA_EXCEEDED"}]}}}"#
            )
            #expect(
                await fcm.send(body: Self.message())
                    == .retry(status: 429, reason: "QUOTA_EXCEEDED", after: .seconds(60)))
            try await simulator.addFaultRule(
                #"{"path":"messages:send$","times":1,"status":503,"body":{"error":{"code":503,"status":"UNAVAILABLE","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNAVAILABLE"}]}}}"#
            )
            #expect(await fcm.send(body: Self.message()) == .retry(status: 503, reason: "UNAVAILABLE", after: nil))
            try await simulator.addFaultRule(
                #"{"path":"messages:send$","times":1,"status":500,"body":{"error":{"code":500,"status":"INTERNAL","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"INTERNAL"}]}}}"#
            )
            #expect(await fcm.send(body: Self.message()) == .retry(status: 500, reason: "INTERNAL", after: nil))
        }

        @Test func aServiceAccountGoogleDoesNotKnowIsACredentialsFailure() async throws {
            let stranger = try GoogleServiceAccount(
                json: try TestKeys.serviceAccountJSON(tokenURI: "\(simulator.baseURL)/token", project: "sim-project"))
            let outcome = try await client(account: stranger).send(body: Self.message())
            #expect(outcome == .credentials(status: 400, reason: "OAuth token endpoint answered HTTP 400"))
        }

        @Test func anotherProjectIsASenderMismatch() async throws {
            var json =
                try JSONSerialization.jsonObject(
                    with: Data(
                        contentsOf: URL(
                            fileURLWithPath: try await simulator.serviceAccountFile().serviceAccountFile)))
                as? [String: String] ?? [:]
            json["project_id"] = "other-project"
            let other = try GoogleServiceAccount(json: Array(try JSONSerialization.data(withJSONObject: json)))
            #expect(
                try await client(account: other).send(body: Self.message())
                    == .rejected(status: 403, reason: "SENDER_ID_MISMATCH"))
        }

        @Test func outcomesNeverCarryTheAccessTokenOrRegistrationToken() async throws {
            let fcm = try client()
            let outcomes = [
                await fcm.send(body: Self.message()), await fcm.send(body: Self.message(data: #"{"n":1}"#)),
            ]
            for outcome in outcomes {
                #expect(!"\(outcome)".contains(Self.registrationToken))
                #expect(!"\(outcome)".contains("ya29"))
            }
        }
    }
}
