import Essentials
import Foundation
import HTTP2
import HTTPTypes
import IntegrationSupport
import PushCore
import TestSupport
import Testing

@testable import Providers

/// `APNsClient` over the libcurl HTTP/2 transport against the push simulator's strict APNs (TLS, ALPN h2).
extension EndToEndTests {
    @Suite struct APNs {
        static let deviceToken = String(repeating: "0f", count: 32)
        static let alert = [
            HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-topic", "com.example.chat"),
            HTTPHeader("apns-priority", "10"),
        ]
        static let body = Array(
            #"{"aps":{"alert":{"loc-key":"im_loc_text","loc-args":["Alice","Hi"]},"badge":1}}"#.utf8)

        let simulator: PushSimulator
        let credentials: APNsCredentials

        init() async throws {
            simulator = try await SharedSimulator.reset(clearing: "/control/apns-reset")
            credentials = try await simulator.apnsCredentials()
        }

        func client(clock: any WallClock = SystemWallClock(), key: APNsSigningKey? = nil) throws -> APNsClient {
            try simulator.apnsClient(key: key ?? credentials.signingKey(), clock: clock)
        }

        /// One alert to `deviceToken`, production environment.
        static func sendAlert(_ apns: APNsClient) async -> DeliveryOutcome {
            await apns.send(deviceToken: deviceToken, sandbox: false, headers: alert, body: body)
        }

        /// A client on a manual clock that delivered one alert, then, with our clock moved by `ours` and the
        /// simulator's by `simulators`, another one under a renewed provider token.
        func clientRenewingItsToken(ours: Duration, simulators: Duration) async throws -> (APNsClient, ManualClock) {
            let clock = ManualClock(Date())
            let apns = try client(clock: clock)
            #expect(await Self.sendAlert(apns).className == "delivered")
            clock.advance(by: ours)
            try await simulator.advanceClock(by: simulators)
            #expect(await Self.sendAlert(apns).className == "delivered")
            #expect(apns.providerTokensIssued == 2)
            return (apns, clock)
        }

        func stats() async throws -> APNsStats {
            try await simulator.control("POST", "/control/apns-stats", as: APNsStats.self)
        }

        @Test func oneProviderTokenServesTenThousandRequests() async throws {
            let apns = try client()
            let outcomes = await concurrently(10_000, width: 400) { _ in
                await Self.sendAlert(apns)
            }
            #expect(outcomes.count == 10_000)
            #expect(outcomes.allSatisfy { if case .delivered(let id) = $0 { id?.count == 36 } else { false } })
            #expect(apns.providerTokensIssued == 1)
            let stats = try await stats()
            #expect(stats.accepted == 10_000)
            #expect(stats.providerTokensSeen == 1)
        }

        @Test func unregisteredTokenIsInvalidWithItsTimestamp() async throws {
            _ = try await simulator.control(
                "POST", "/control/apns-unregister",
                body: #"{"tokens":["\#(Self.deviceToken)"],"timestamp":1700000000000}"#)
            let outcome = try await client().send(
                deviceToken: Self.deviceToken, sandbox: true, headers: Self.alert, body: Self.body)
            #expect(
                outcome
                    == .invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: 1_700_000_000_000))
        }

        @Test func requestsBreakingApplesRulesAreRejected() async throws {
            let apns = try client()
            let background = [
                HTTPHeader("apns-push-type", "background"), HTTPHeader("apns-topic", "com.example.chat"),
                HTTPHeader("apns-priority", "10"),
            ]
            #expect(
                await apns.send(
                    deviceToken: Self.deviceToken, sandbox: false, headers: background,
                    body: Array(#"{"aps":{"content-available":1}}"#.utf8))
                    == .rejected(status: 400, reason: "BadPriority"))
            let voipOnAppTopic = [HTTPHeader("apns-push-type", "voip"), HTTPHeader("apns-topic", "com.example.chat")]
            #expect(
                await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: voipOnAppTopic, body: Self.body)
                    == .rejected(status: 400, reason: "BadTopic"))
            let large = Array(#"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#.utf8)
            #expect(
                await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: Self.alert, body: large)
                    == .rejected(status: 413, reason: "PayloadTooLarge"))
            let voip = [HTTPHeader("apns-push-type", "voip"), HTTPHeader("apns-topic", "com.example.chat.voip")]
            #expect(
                await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: voip, body: large)
                    .className == "delivered")
        }

        /// Requests the simulator must refuse as Apple documents, each with the reason the client reports.
        static let strictCases: [(String, [HTTPHeader], String, String)] = [
            ("no topic", [HTTPHeader("apns-push-type", "alert")], #"{"aps":{}}"#, "MissingTopic"),
            (
                "foreign topic", [HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-topic", "com.other")],
                #"{"aps":{}}"#, "TopicDisallowed"
            ),
            ("no push type", [HTTPHeader("apns-topic", "com.example.chat")], #"{"aps":{}}"#, "InvalidPushType"),
            ("bad priority", alert.dropLast() + [HTTPHeader("apns-priority", "7")], #"{"aps":{}}"#, "BadPriority"),
            ("bad apns-id", alert + [HTTPHeader("apns-id", "not-a-uuid")], #"{"aps":{}}"#, "BadMessageId"),
            ("bad expiration", alert + [HTTPHeader("apns-expiration", "soon")], #"{"aps":{}}"#, "BadExpirationDate"),
            (
                "long collapse id", alert + [HTTPHeader("apns-collapse-id", String(repeating: "c", count: 65))],
                #"{"aps":{}}"#, "BadCollapseId"
            ),
            (
                "duplicate header", alert + [HTTPHeader("apns-topic", "com.example.chat")], #"{"aps":{}}"#,
                "DuplicateHeaders"
            ),
            ("empty body", alert, "", "PayloadEmpty"),
            ("no aps", alert, #"{"alert":"hi"}"#, "BadPayload"),
        ]

        @Test(arguments: strictCases)
        func requestsAreCheckedLikeApple(name: String, headers: [HTTPHeader], body: String, reason: String) async throws
        {
            let outcome = try await client().send(
                deviceToken: Self.deviceToken, sandbox: false, headers: headers, body: Array(body.utf8))
            #expect(outcome.reason == reason, "\(name)")
            #expect(outcome.className == "rejected", "\(name)")
        }

        /// A stream reset twice (the transport resends a lost stream once) is a transport failure to retry later.
        @Test func throttlingAndOutagesAreRetriedAfterWhatTheServerAsks() async throws {
            let apns = try client()
            try await simulator.addFaultRule(
                #"{"path":"^/3/device/","times":1,"status":429,"retry_after":7,"body":{"reason":"TooManyRequests"}}"#)
            #expect(
                await Self.sendAlert(apns) == .retry(status: 429, reason: "TooManyRequests", after: .seconds(7)))
            try await simulator.addFaultRule(
                #"{"path":"^/3/device/","times":1,"status":503,"body":{"reason":"Shutdown"}}"#)
            #expect(
                await Self.sendAlert(apns) == .retry(status: 503, reason: "Shutdown", after: nil))
            try await simulator.addFaultRule(#"{"path":"^/3/device/","times":2,"reset_stream":2}"#)
            #expect(
                await Self.sendAlert(apns).className == "retry")
        }

        /// A group sent at once over either transport: each answer classified as `send` classifies it.
        @Test(arguments: HTTP2TransportKind.allCases)
        func aGroupSentAtOnceIsAnsweredAsSendAnswersEachOfIt(_ kind: HTTP2TransportKind) async throws {
            let apns = try simulator.apnsClient(key: credentials.signingKey(), kind: kind)
            let tokens = (0..<200).map { String(format: "%064x", 0x5EED_0000 + $0) }
            _ = try await simulator.control(
                "POST", "/control/apns-unregister", body: #"{"tokens":["\#(tokens[3])"],"timestamp":1700000000000}"#)
            try await simulator.addFaultRule(
                #"{"path":"^/3/device/\#(tokens[5])","status":429,"retry_after":7,"body":{"reason":"TooManyRequests"}}"#
            )
            try await simulator.addFaultRule(
                #"{"path":"^/3/device/\#(tokens[8])","status":500,"body":{"reason":"InternalServerError"}}"#)
            let notifications = tokens.map {
                APNsNotification(deviceToken: $0, sandbox: false, headers: Self.alert, body: Self.body)
            }
            let outcomes = await answersInOrder(of: tokens.count) { answer in
                await apns.sendAll(notifications, answer: answer)
            }
            #expect(
                outcomes[3] == .invalidToken(status: 410, reason: "Unregistered", invalidSinceMillis: 1_700_000_000_000)
            )
            #expect(outcomes[5] == .retry(status: 429, reason: "TooManyRequests", after: .seconds(7)))
            #expect(outcomes[8] == .retry(status: 500, reason: "InternalServerError", after: nil))
            let others = outcomes.enumerated().filter { ![3, 5, 8].contains($0.offset) }.map(\.element)
            #expect(others.count == 197)
            #expect(others.allSatisfy { $0.className == "delivered" })
            #expect(try await stats().accepted == 197)
        }

        @Test func aKeyApnsDoesNotKnowIsACredentialsFailure() async throws {
            let stranger = try APNsSigningKey(
                pem: try TestKeys.p256.get(), keyId: credentials.keyId, teamId: credentials.teamId)
            let outcome = try await Self.sendAlert(client(key: stranger))
            #expect(outcome == .credentials(status: 403, reason: "InvalidProviderToken"))
        }

        @Test func tokenIsRenewedAfterFiftyMinutesAndAcceptedByApns() async throws {
            _ = try await clientRenewingItsToken(ours: .seconds(51 * 60), simulators: .seconds(51 * 60))
            #expect(try await stats().providerTokensSeen == 2)
        }

        @Test func expiredProviderTokenIsRenewedOnceAtOnceAndNotAgainWithinTwentyMinutes() async throws {
            // APNs' clock runs ahead: it finds the token older than an hour while ours says 45 minutes.
            let (apns, clock) = try await clientRenewingItsToken(ours: .seconds(45 * 60), simulators: .seconds(61 * 60))
            // Ten minutes later APNs calls the token expired again: no second renewal within 20 minutes.
            clock.advance(by: .seconds(10 * 60))
            try await simulator.advanceClock(by: .seconds(10 * 60))
            try await simulator.addFaultRule(
                #"{"path":"^/3/device/","times":1,"status":403,"body":{"reason":"ExpiredProviderToken"}}"#)
            #expect(
                await Self.sendAlert(apns) == .credentials(status: 403, reason: "ExpiredProviderToken"))
            #expect(apns.providerTokensIssued == 2)
            let stats = try await stats()
            #expect(stats.providerTokensSeen == 2)
            #expect(stats.rejections["ExpiredProviderToken"] == 1)
            #expect(stats.rejections["TooManyProviderTokenUpdates"] == nil)
        }

        @Test func renewingTooOftenIsThrottledByApns() async throws {
            let first = try client()
            #expect(
                await Self.sendAlert(first).className == "delivered")
            let second = try client(clock: ManualClock(Date().addingTimeInterval(60)))  // another `iat`: another token
            #expect(
                await Self.sendAlert(second) == .retry(status: 429, reason: "TooManyProviderTokenUpdates", after: nil))
        }

        @Test func outcomesAndErrorsNeverCarryTheDeviceTokenOrTheJWT() async throws {
            let apns = try client()
            try await simulator.addFaultRule(#"{"path":"^/3/device/","times":1,"reset_connection":true}"#)
            var outcomes: [DeliveryOutcome] = []
            outcomes.append(await Self.sendAlert(apns))
            outcomes.append(await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: [], body: []))
            let wrongTrust = try simulator.apnsClient(
                key: credentials.signingKey(),
                transport: HTTP2TransportConfiguration(extraCAFile: simulator.endpoint.otherCAFile))
            outcomes.append(await Self.sendAlert(wrongTrust))
            #expect(outcomes.last?.className == "credentials")
            for outcome in outcomes {
                let text = "\(outcome)"
                #expect(!text.contains(Self.deviceToken))
                #expect(!text.contains("eyJ"))
            }
        }
    }
}
