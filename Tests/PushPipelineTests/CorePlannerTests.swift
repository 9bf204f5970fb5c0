import Essentials
import Foundation
import PushCore
import Testing

@testable import PushPipeline

@Suite struct CorePlannerTests {
    static let apnsToken = String(repeating: "ab", count: 32)
    static let event = """
        {"id": "m-1", "type": "text", "room": {"id": "r-42"}, "sender": {"id": "u-1", "nickname": "Alice"},
         "content": "Hello", "createdAt": "2026-11-29T12:00:00Z",
         "recipients": [
           {"userId": "u-2", "devices": [{"platform": "apns", "token": "\(apnsToken)"},
                                         {"platform": "fcm", "token": "fcm-token-1"}]},
           {"userId": "u-3", "muted": true, "devices": [{"platform": "fcm", "token": "fcm-token-2"}]}
         ]}
        """

    let planner = CorePlanner(
        rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project"))

    /// The issue's stall: a text of 10,000 `{` took the whole device budget and held every room behind it.
    @Test func theDeviceBoundCountsObjectsNotTheBracesOfAMessagesText() {
        let braces = String(repeating: "{", count: 10_000) + #"\"{"#
        let event = Self.event.replacingOccurrences(of: #""content": "Hello""#, with: #""content": "\#(braces)""#)
        let bound = planner.deviceBound(Array(event.utf8))
        #expect(bound == planner.deviceBound(Array(Self.event.utf8)))
        // The event, its room, its sender, two recipients and their three devices: at least the devices.
        #expect((3...8).contains(bound))
        #expect(planner.deviceBound(Array(#"{"a": "x\"{\\", "b": {}}"#.utf8)) == 2)
    }

    @Test func thePlannerAdapterMapsCoreDecisionsToDeviceActions() throws {
        let nowMillis: Int64 = 1_795_953_600_000 + 1_000
        let event = try planner.plan(Array(Self.event.utf8), nowMillis: nowMillis).get()
        #expect(event.messageId == "m-1")
        #expect(event.roomId == "r-42")
        #expect(event.eventTimeMillis == 1_795_953_600_000)
        #expect(event.devices.map(\.target.userId) == ["u-2", "u-2", "u-3"])
        #expect(event.devices[0].target.tokenHash == SHA256.tokenHash(Self.apnsToken))
        #expect(event.devices[0].target.tokenHash.hasPrefix("sha256:"))
        // What receipts name as the app: the APNs topic, the FCM project; nothing for a device not sent to.
        #expect(event.devices.map(\.target.app) == ["com.example.chat", "demo-project", nil])
        guard case .send(.apns, let apns) = event.devices[0].decision, case .send(.fcm, _) = event.devices[1].decision,
            case .skipped(let reason) = event.devices[2].decision
        else {
            Issue.record("unexpected actions")
            return
        }
        #expect(apns.deviceToken == Self.apnsToken)
        #expect(apns.request.path == "/3/device/\(Self.apnsToken)")
        #expect(reason == .muted)
        let narrowed = try JSONParser.parse(event.narrowed([1]))
        guard case .array(let recipients) = narrowed["recipients"] else {
            Issue.record("no recipients")
            return
        }
        #expect(recipients.count == 1)
        #expect(
            recipients.first?["devices"]
                == .array([
                    .object([JSONMember("platform", .string("fcm")), JSONMember("token", .string("fcm-token-1"))])
                ]))
    }

    @Test func theDefaultLocaleStaysInForceWhenTheRulesAreReplaced() throws {
        let korean = CorePlanner(
            rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project"),
            defaultLocale: LanguageTag("ko"))
        let image = Self.event.replacingOccurrences(of: #""type": "text""#, with: #""type": "image""#)
        for rules in [RulesTable.standard, try RulesTable.load(json: Array(RulesTable.standardJSON.utf8))] {
            korean.replaceRules(with: rules)
            let event = try korean.plan(Array(image.utf8), nowMillis: 1_795_953_600_000).get()
            guard case .send(.apns, let apns) = event.devices[0].decision else {
                Issue.record("the image was not sent")
                return
            }
            #expect(String(decoding: apns.request.body, as: UTF8.self).contains("Alice님이 사진을 보냈습니다"))
        }
    }

    /// On the main branch before the range check, `9223372036854775807` trapped converting to Int64 (signal 4).
    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "1e300", "\"0001-01-01T00:00:00Z\""])
    func aCreatedAtFarFromNowIsADecodeErrorNotATrap(createdAt: String) {
        let value = Self.event.replacingOccurrences(of: "\"2026-11-29T12:00:00Z\"", with: createdAt)
        guard case .failure(let error) = planner.plan(Array(value.utf8), nowMillis: 1_795_953_600_000) else {
            Issue.record("planned an event with createdAt \(createdAt)")
            return
        }
        #expect(error.reason == .decodeError)
        #expect(error.message.hasPrefix("createdAt: "))
    }

    @Test func anUnusableDeviceEntryIsDeadLetteredUnderThePlatformAndTokenTheEventGave() throws {
        let value = Self.event.replacingOccurrences(of: Self.apnsToken, with: "not-hex")
        let event = try planner.plan(Array(value.utf8), nowMillis: 1_795_953_600_000).get()
        #expect(event.devices[0].target.platform == "apns")
        #expect(event.devices[0].target.token == "not-hex")
        #expect(event.devices[0].target.tokenHash == SHA256.tokenHash("not-hex"))
        guard case .deadLetter(let reason, _) = event.devices[0].decision else {
            Issue.record("an unusable device was not dead-lettered")
            return
        }
        #expect(reason == .decodeError)
    }

    @Test func thePlannerAdapterReportsUndecodableValuesWithTheirReason() {
        guard case .failure(let problem) = planner.plan(Array("{\"id\": 1}".utf8), nowMillis: 0) else {
            Issue.record("decoded a bad event")
            return
        }
        #expect(problem.reason == .decodeError)
        #expect(!problem.message.isEmpty)
    }

    /// Two apps of a folder and the refusals: the message's `appID` picks the topic and project.
    struct TwoApps: AppContexts {
        func standing(ofApp appID: String) -> AppStanding {
            switch appID {
            case "": .ready(ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "demo-project"))
            case "beta": .ready(ProviderContext(apnsTopic: "com.example.beta", fcmProjectID: "beta-project"))
            case "broken": .refused(.misconfigured)
            default: .refused(.unknownApp)
            }
        }
    }

    static func event(app: String) -> [UInt8] {
        Array(
            Self.event.replacingOccurrences(of: #""type": "text","#, with: #""type": "text", "appID": "\#(app)","#).utf8
        )
    }

    @Test func theMessagesAppIDPicksTheAPNsTopicAndFCMProjectItIsSentWith() throws {
        let planner = CorePlanner(rules: .standard, apps: TwoApps())
        let beta = try planner.plan(Self.event(app: "beta"), nowMillis: 1_795_953_600_000).get()
        #expect(beta.devices.map(\.target.app) == ["com.example.beta", "beta-project", nil])
        guard case .send(.apns, let apns) = beta.devices[0].decision,
            case .send(.fcm, let fcm) = beta.devices[1].decision
        else {
            Issue.record("the beta app's devices were not sent")
            return
        }
        #expect(apns.appID == "beta")
        #expect(beta.appID == "beta")
        #expect(apns.request.header("apns-topic") == "com.example.beta")
        #expect(fcm.request.path == "/v1/projects/beta-project/messages:send")
        let absent = try planner.plan(Array(Self.event.utf8), nowMillis: 1_795_953_600_000).get()
        #expect(absent.devices.map(\.target.app) == ["com.example.chat", "demo-project", nil])
        let empty = try planner.plan(Self.event(app: ""), nowMillis: 1_795_953_600_000).get()
        #expect(empty.devices.map(\.target.app) == ["com.example.chat", "demo-project", nil])
    }

    @Test(arguments: [("broken", "app_misconfigured"), ("nobody", "unknown_app")])
    func theSendsOfAnAppThatCannotSendAreRejectedAndItsSkipsStay(app: String, reason: String) throws {
        let planner = CorePlanner(rules: .standard, apps: TwoApps())
        let event = try planner.plan(Self.event(app: app), nowMillis: 1_795_953_600_000).get()
        let decisions = event.devices.map { device -> String in
            switch device.decision {
            case .rejected(let why): "rejected \(why)"
            case .skipped(let why): "skipped \(why)"
            default: "other"
            }
        }
        #expect(decisions == ["rejected \(reason)", "rejected \(reason)", "skipped muted"])
        #expect(event.devices.map(\.target.app) == [nil, nil, nil])
    }
}
