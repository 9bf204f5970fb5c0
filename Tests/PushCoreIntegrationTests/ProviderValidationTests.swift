import Essentials
import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// Every request the planner makes, checked in one Python process: FCM bodies strictly against Google's
/// discovery document (`fcm.v1.json`), APNs headers and bodies against Apple's documented keys and limits.
@Suite struct ProviderValidationTests {
    struct Case {
        var name: String
        var platform: String
        var path: String
        var headers: [(String, String)]
        var body: String

        init(name: String, request: ProviderRequest) {
            self.name = name
            platform = request.platform.rawValue
            path = request.path
            headers = request.headers.map { ($0.name, $0.value) }
            body = String(decoding: request.body, as: UTF8.self)
        }

        func json(into writer: inout JSONWriter) {
            writer.beginObject()
            writer.field("name", name)
            writer.field("platform", platform)
            writer.field("path", path)
            writer.key("headers")
            writer.beginObject()
            for (name, value) in headers { writer.field(name, value) }
            writer.endObject()
            writer.field("body", body)
            writer.endObject()
        }
    }

    /// Runs the validator over `cases`; the errors of each case by name.
    static func validate(_ cases: [Case]) throws -> [String: [String]] {
        var writer = JSONWriter()
        writer.beginArray()
        for item in cases { item.json(into: &writer) }
        writer.endArray()
        let input = try Repository.temporaryFile(writer.bytes)
        defer { try? FileManager.default.removeItem(at: input) }
        let script = Repository.validators.appendingPathComponent("validate_requests.py").path
        let (status, output) = try Repository.runTool("python", [script, input.path])
        guard status == 0, case .array(let results) = try JSONParser.parse(Array(output.utf8)) else {
            throw ValidatorFailure(output: output)
        }
        var errors: [String: [String]] = [:]
        for result in results {
            guard let name = result["name"]?.stringValue, case .array(let list) = result["errors"] else { continue }
            errors[name] = list.compactMap(\.stringValue)
        }
        return errors
    }

    struct ValidatorFailure: Error, CustomStringConvertible {
        let output: String
        var description: String { "validator failed (run deploy/local/setup.sh first): \(output)" }
    }

    /// Every request of every sample event (as it is, and sent to one recipient per language of the built-in
    /// table), plus oversized and odd-Unicode events that go through size fitting.
    static func producedRequests() throws -> [Case] {
        var cases: [Case] = []
        let planner = PushPlanner(rules: .standard, context: Fixture.context)
        for file in try Repository.jsonFiles(in: Repository.examples.appendingPathComponent("chat-message")) {
            let sample = try Repository.read(file)
            let inEveryLanguage = try LocalizedEvents.addressed(to: LocalizedEvents.locales, sample)
            for (variant, bytes) in [("", sample), (" in every language", inEveryLanguage)] {
                let event = try EventDecoder().decode(bytes, now: Fixture.now)
                for decision in planner.plan(event, now: event.createdAt ?? Fixture.now) {
                    guard let request = decision.outcome.request else { continue }
                    cases.append(
                        Case(name: "\(file.lastPathComponent)\(variant) \(decision.address)", request: request))
                }
            }
        }
        let hangul = String(repeating: "가\u{1100}\u{1161}\u{11A8}한글 漢字かな𠀋葛\u{E0100} ", count: 500)
        for type in Fixture.seedTypes {
            let bytes = try LocalizedEvents.addressed(
                to: LocalizedEvents.locales,
                Fixture.event(
                    type: type, content: hangul, nickname: String(hangul.prefix(90)),
                    payload: #"{"blob": \#(Fixture.quoted(hangul))}"#))
            for decision in try Fixture.decisions(bytes) {
                guard let request = decision.outcome.request else { continue }
                cases.append(Case(name: "huge CJK \(type) \(decision.address)", request: request))
            }
        }
        let huge = String(repeating: "👩‍👩‍👧‍👦 漢字 e\u{301} مرحبا ", count: 400)
        for type in Fixture.seedTypes + ["unreadCount", "call"] {
            let bytes = Fixture.event(
                type: type, content: huge, nickname: String(huge.prefix(100)),
                payload: #"{"blob": \#(Fixture.quoted(huge))}"#)
            for decision in try Fixture.decisions(bytes) {
                guard let request = decision.outcome.request else { continue }
                cases.append(Case(name: "huge \(type) \(decision.address)", request: request))
            }
        }
        cases += try customPushRequests(huge: huge)
        return cases
    }

    /// Every request of the custom-push examples, of a push that shows nothing, one with only a badge, one with
    /// only a title, and an oversized one, to an APNs and an FCM device.
    static func customPushRequests(huge: String) throws -> [Case] {
        var records = try Repository.jsonFiles(in: Repository.examples.appendingPathComponent("custom-push")).map {
            ("custom \($0.lastPathComponent)", try Repository.read($0))
        }
        for (name, payload) in [
            ("silent", #"{"type": "sync"}"#), ("badge only", #"{"badge": 0}"#), ("title only", #"{"title": "T"}"#),
            ("huge", #"{"title": \#(Fixture.quoted(huge)), "alert": \#(Fixture.quoted(huge)), "blob": 1}"#),
        ] {
            records.append(("custom \(name).json", Array(#"{"clients": ["a"], "payload": \#(payload)}"#.utf8)))
        }
        let builder = CustomPushRequestBuilder(context: Fixture.context)
        let devices = [
            Device(platform: .apns, token: Fixture.apnsToken), Device(platform: .fcm, token: Fixture.fcmToken),
        ]
        var cases: [Case] = []
        for (name, bytes) in records {
            let push = try CustomPushDecoder().decode(bytes)
            for device in devices {
                guard case .send(let request) = builder.outcome(for: push, device: device, now: Fixture.now) else {
                    continue
                }
                cases.append(Case(name: "\(name) \(device.platform.rawValue)", request: request))
            }
        }
        return cases
    }

    @Test func everyProducedRequestPassesTheProviderChecks() throws {
        let cases = try Self.producedRequests()
        #expect(cases.count > 60)
        #expect(cases.filter { $0.name.hasPrefix("custom ") }.count == 14)
        let errors = try Self.validate(cases)
        #expect(errors.count == cases.count)
        for item in cases {
            #expect(errors[item.name] == [], "\(item.name): \(errors[item.name] ?? ["no result"])")
        }
    }

    /// Broken variants of valid requests: each must be rejected, which shows the checks can fail.
    static let brokenVariants: [(name: String, platform: Platform, edit: @Sendable (inout Case) -> Void)] = [
        ("fcm unknown android field", .fcm, { $0.body = $0.body.replacingOccurrences(of: #""ttl""#, with: #""tll""#) }),
        (
            "fcm data value not a string", .fcm,
            { $0.body = $0.body.replacingOccurrences(of: #""room":"r-42""#, with: #""room":42"#) }
        ),
        (
            "fcm count as string", .fcm,
            {
                $0.body = $0.body.replacingOccurrences(
                    of: #""notification_count":3"#, with: #""notification_count":"3""#)
            }
        ),
        (
            "fcm ttl without unit", .fcm,
            { $0.body = $0.body.replacingOccurrences(of: #""ttl":"86400s""#, with: #""ttl":"86400""#) }
        ),
        ("fcm unknown priority", .fcm, { $0.body = $0.body.replacingOccurrences(of: #""HIGH""#, with: #""URGENT""#) }),
        (
            "fcm legacy top-level field", .fcm,
            { $0.body = $0.body.replacingOccurrences(of: #"{"message":{"#, with: #"{"message":{"collapseKey":"x","#) }
        ),
        ("apns unknown aps key", .apns, { $0.body = $0.body.replacingOccurrences(of: #""sound""#, with: #""noise""#) }),
        (
            "apns loc-args not strings", .apns,
            { $0.body = $0.body.replacingOccurrences(of: #""loc-args":["#, with: #""loc-args":[1,"#) }
        ),
        (
            "apns long collapse id", .apns,
            { $0.headers.append(("apns-collapse-id", String(repeating: "x", count: 65))) }
        ),
        ("apns bad apns-id", .apns, { $0.headers = $0.headers.map { $0.0 == "apns-id" ? ($0.0, "not-a-uuid") : $0 } }),
        (
            "apns background at priority 10", .apns,
            { $0.headers = $0.headers.map { $0.0 == "apns-push-type" ? ($0.0, "background") : $0 } }
        ),
        (
            "apns oversized body", .apns,
            {
                $0.body = $0.body.replacingOccurrences(
                    of: #""mid""#, with: #""pad":"\#(String(repeating: "a", count: 4096))","mid""#)
            }
        ),
    ]

    @Test func brokenRequestsAreRejected() throws {
        let valid = try Self.producedRequests().filter { $0.name.hasPrefix("text.json recipients[0]") }
        var cases: [Case] = []
        for variant in Self.brokenVariants {
            guard var item = valid.first(where: { $0.platform == variant.platform.rawValue }) else { continue }
            item.name = variant.name
            variant.edit(&item)
            cases.append(item)
        }
        #expect(cases.count == Self.brokenVariants.count)
        let errors = try Self.validate(cases)
        for item in cases {
            #expect(errors[item.name]?.isEmpty == false, "\(item.name) was accepted")
        }
    }
}
