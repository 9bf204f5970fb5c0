import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct PushPlannerTests {
    func outcomes(_ bytes: [UInt8], rules: RulesTable = .standard, now: Date = Fixture.now) throws -> [DeviceDecision
        .Outcome]
    {
        try Fixture.decisions(bytes, rules: rules, now: now).map(\.outcome)
    }

    @Test func textGoesToAPNsAndFCMButNotToThePushKitToken() throws {
        let decisions = try Fixture.decisions(Fixture.event(type: "text"))
        #expect(decisions.map(\.address) == (0..<3).map { DeviceAddress(recipient: 0, device: $0) })
        let apns = try #require(decisions[0].outcome.request)
        #expect(apns.path == "/3/device/\(Fixture.apnsToken)")
        #expect(apns.header("apns-push-type") == "alert")
        #expect(apns.header("apns-topic") == "com.example.chat")
        #expect(apns.header("apns-expiration") == "1796040000")
        #expect(
            decisions[0].outcome.bodyText?.contains(#""loc-key":"im_loc_text","loc-args":["Alice","Hello"]"#) == true)
        guard case .skipped(.platform) = decisions[1].outcome else {
            Issue.record("expected the VoIP token to be skipped")
            return
        }
        #expect(decisions[2].outcome.request?.path == "/v1/projects/example-project/messages:send")
    }

    /// The FCM send path is written once with the context, and again when its project changes.
    @Test func theFCMSendPathFollowsTheContextsProject() {
        var context = ProviderContext(apnsTopic: "t", fcmProjectID: "alpha")
        #expect(context.fcmSendPath == "/v1/projects/alpha/messages:send")
        context.fcmProjectID = "beta"
        #expect(context.fcmSendPath == "/v1/projects/beta/messages:send")
        #expect(context == ProviderContext(apnsTopic: "t", fcmProjectID: "beta"))
    }

    @Test func apnsIDIsDeterministicPerMessageAndDevice() throws {
        let first = try outcomes(Fixture.event(type: "text"))
        let second = try outcomes(Fixture.event(type: "text", content: "other"))
        #expect(first[0].request?.header("apns-id") == second[0].request?.header("apns-id"))
        #expect(first[0].request?.header("apns-id") != nil)
        let other = try outcomes(Fixture.event(type: "call"))
        #expect(other[1].request?.header("apns-id") != first[0].request?.header("apns-id"))
    }

    @Test func callsGoToPushKitAsVoIPAndToFCMAsHighPriorityData() throws {
        let outcomes = try outcomes(Fixture.event(type: "call"))
        guard case .skipped(.platform) = outcomes[0] else {
            Issue.record("a plain APNs token gets no call push")
            return
        }
        let voip = try #require(outcomes[1].request)
        #expect(voip.header("apns-push-type") == "voip")
        #expect(voip.header("apns-topic") == "com.example.chat.voip")
        #expect(voip.header("apns-collapse-id") == nil)
        #expect(outcomes[1].bodyText?.hasPrefix(#"{"aps":{},"room":"r-42","mid":"m-1","type":"call","#) == true)
        #expect(outcomes[1].bodyText?.contains(#""caller":{"id":"u-1","name":"Alice"}"#) == true)
        #expect(outcomes[2].bodyText?.contains(#""priority":"HIGH""#) == true)
        #expect(outcomes[2].bodyText?.contains(#""notification""#) == false)
    }

    @Test func silentPushesReachMutedUsersWithoutAlerts() throws {
        let outcomes = try outcomes(Fixture.event(type: "unreadCount", muted: true))
        let apns = try #require(outcomes[0].request)
        #expect(apns.header("apns-push-type") == "background")
        #expect(apns.header("apns-priority") == "5")
        #expect(outcomes[0].bodyText?.hasPrefix(#"{"aps":{"content-available":1},"#) == true)
        #expect(outcomes[2].bodyText?.contains(#""badge":"3""#) == true)
        #expect(outcomes[2].bodyText?.contains(#""notification""#) == false)
    }

    @Test func mutedRecipientsAreSkipped() throws {
        for outcome in try outcomes(Fixture.event(type: "text", muted: true)) {
            guard case .skipped(let reason) = outcome else {
                Issue.record("expected a skip, got \(outcome)")
                continue
            }
            #expect(reason == .muted || reason == .platform)
        }
    }

    @Test func eventsOlderThanTheirTimeToLiveExpire() throws {
        let later = Fixture.now.addingTimeInterval(86_400)
        let outcomes = try outcomes(Fixture.event(type: "text"), now: later)
        guard case .expired = outcomes[0], case .expired = outcomes[2] else {
            Issue.record("expected expiry, got \(outcomes)")
            return
        }
    }

    @Test func encryptedMessagesNeverCarryTheirContent() throws {
        let secret = "the-secret-text"
        let outcomes = try outcomes(
            Fixture.event(type: "encrypted", content: secret, payload: #"{"text": "\#(secret)"}"#))
        let bodies = outcomes.compactMap(\.bodyText)
        #expect(bodies.count == 2)
        for body in bodies { #expect(!body.contains(secret)) }
    }

    @Test func missingNicknamesFallBackToTheAnonymousName() throws {
        let body = try #require(try outcomes(Fixture.event(type: "text", nickname: nil))[0].bodyText)
        #expect(body.contains(#""loc-args":["Someone","Hello"]"#))
        #expect(!body.contains("null"))
    }

    @Test func theForwardedPayloadIsDroppedBeforeTheContentIsCut() throws {
        let blob = String(repeating: "x", count: 5_000)
        let outcomes = try outcomes(Fixture.event(type: "text", payload: #"{"blob": "\#(blob)"}"#))
        let fcm = try #require(outcomes[2].bodyText)
        #expect(!fcm.contains(blob))
        #expect(fcm.contains(#""body_loc_args":["Alice","Hello"]"#))
    }

    @Test func longContentIsCutOnAGraphemeBoundaryWithAnEllipsis() throws {
        let content = String(repeating: "👩‍👩‍👧‍👦", count: 2_000)
        let outcomes = try outcomes(Fixture.event(type: "text", content: content))
        for outcome in [outcomes[0], outcomes[2]] {
            let request = try #require(outcome.request)
            #expect(request.body.count <= PayloadLimit.bytes(for: request.platform))
            #expect(request.body.count > 3_000)
            #expect(outcome.bodyText?.contains("👩‍👩‍👧‍👦…") == true)
        }
    }

    @Test func requestsThatCannotFitAreDeadLetteredAsPayloadTooLarge() throws {
        var rules = RulesTable.standard
        rules.types["text"]?.threadID = try Template(String(repeating: "r", count: 5_000))
        let outcomes = try outcomes(Fixture.event(type: "text"), rules: rules)
        guard case .deadLetter(let error) = outcomes[0] else {
            Issue.record("expected a dead letter, got \(outcomes[0])")
            return
        }
        #expect(error.reason == .payloadTooLarge)
        #expect(error.path == "recipients[0].devices[0]")
    }

    @Test func longCollapseKeysAreHashedToSixtyFourBytes() throws {
        var rules = RulesTable.standard
        rules.types["text"]?.collapseKey = try Template("{room.id}-{content}")
        let outcomes = try outcomes(
            Fixture.event(type: "text", content: String(repeating: "c", count: 100)), rules: rules)
        let collapseID = try #require(outcomes[0].request?.header("apns-collapse-id"))
        #expect(collapseID.utf8.count == 64)
        #expect(collapseID == SHA256.hexDigest("r-42-" + String(repeating: "c", count: 100)))
    }

    @Test(arguments: ["r\t1", "r\u{1}", "r\u{7F}", "방-1", "room 1", String(repeating: "r", count: 65)])
    func collapseIDsThatAreNoLegalHeaderAreHashed(roomID: String) throws {
        let bytes = Array(
            String(decoding: Fixture.event(type: "text"), as: UTF8.self)
                .replacingOccurrences(of: #""id": "r-42""#, with: #""id": \#(Fixture.quoted(roomID))"#).utf8)
        let collapseID = try #require(try outcomes(bytes)[0].request?.header("apns-collapse-id"))
        #expect(collapseID == SHA256.hexDigest(roomID))
        #expect(collapseID.utf8.allSatisfy { (0x21...0x7E).contains($0) })
    }

    @Test func legalCollapseIDsAreKeptAndEmptyOnesLeftOut() throws {
        let legal = String(repeating: "~", count: 64)
        var rules = RulesTable.standard
        rules.types["text"]?.collapseKey = try Template(legal)
        #expect(try outcomes(Fixture.event(type: "text"), rules: rules)[0].request?.header("apns-collapse-id") == legal)
        rules.types["text"]?.collapseKey = try Template("{room.name}")
        let unnamed = Array(
            String(decoding: Fixture.event(type: "text"), as: UTF8.self)
                .replacingOccurrences(of: #", "name": "Team""#, with: "").utf8)
        let request = try #require(try outcomes(unnamed, rules: rules)[0].request)
        #expect(request.header("apns-collapse-id") == nil)
    }

    @Test func aFarFutureCreatedAtExpiresOneTimeToLiveAfterNowPlusTheSkew() throws {
        let future = Array(
            String(decoding: Fixture.event(type: "text"), as: UTF8.self)
                .replacingOccurrences(of: "2026-11-29T12:00:00Z", with: "2120-01-01T00:00:00Z").utf8)
        let outcomes = try outcomes(future)
        for request in [outcomes[0].request, outcomes[2].request] {
            #expect(request?.expiresAtEpochSeconds == Int(Fixture.now.timeIntervalSince1970) + 300 + 86_400)
        }
        #expect(
            outcomes[0].request?.header("apns-expiration") == String(Int(Fixture.now.timeIntervalSince1970) + 86_700))
    }

    @Test func devicesMayNameTheirOwnTopicAndTheSandbox() throws {
        let json = #"""
            {"id": "m", "type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "recipients": [{"userId": "u",
             "devices": [{"platform": "apns", "token": "\#(Fixture.apnsToken)", "topic": "com.other.app", "sandbox": true}]}]}
            """#
        let request = try #require(try outcomes(Array(json.utf8))[0].request)
        #expect(request.header("apns-topic") == "com.other.app")
        #expect(request.sandbox)
    }

    @Test func unusableDevicesAreDeadLetteredAlone() throws {
        let json = #"""
            {"id": "m", "type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "recipients": [{"userId": "u",
             "devices": [{"platform": "apns", "token": "xyz"}, {"platform": "fcm", "token": "ok"}]}]}
            """#
        let outcomes = try outcomes(Array(json.utf8))
        guard case .deadLetter(let error) = outcomes[0], case .send = outcomes[1] else {
            Issue.record("expected a dead letter and a send, got \(outcomes)")
            return
        }
        #expect(error.reason == .decodeError)
        #expect(error.path == "recipients[0].devices[0].token")
    }

    @Test func skipRulesSkipEveryDevice() throws {
        var rules = RulesTable.standard
        rules.types["text"]?.kind = .skip
        for outcome in try outcomes(Fixture.event(type: "text"), rules: rules) {
            guard case .skipped(.rule) = outcome else {
                Issue.record("expected a rule skip, got \(outcome)")
                continue
            }
        }
    }
}
