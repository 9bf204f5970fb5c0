import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

/// The size fitting is done once per platform and byte budget and shared by every device of an event: each device
/// still gets exactly the request it would get alone, and a large event costs about one pass over its content.
@Suite struct SharedSizeFittingTests {
    /// An event of `type` with `content`, one recipient per `(badge, devices)` entry.
    static func event(type: String, content: String, recipients: [(badge: Int?, devices: [Device])]) -> [UInt8] {
        var json = JSONWriter(reservingCapacity: content.utf8.count + recipients.count * 256)
        json.beginObject()
        json.field("id", "m-1")
        json.field("type", type)
        json.field("room", .object([JSONMember("id", .string("r-42"))]))
        json.field("sender", .object([JSONMember("id", .string("u-1")), JSONMember("nickname", .string("Alice"))]))
        json.field("createdAt", "2026-11-29T12:00:00Z")
        json.field("content", content)
        json.field("payload", .object([JSONMember("text", .string(String(content.prefix(5_000))))]))
        json.key("recipients")
        json.beginArray()
        for (index, recipient) in recipients.enumerated() {
            json.beginObject()
            json.field("userId", "u-\(index)")
            if let badge = recipient.badge { json.field("badge", badge) }
            json.key("devices")
            json.beginArray()
            for device in recipient.devices {
                json.beginObject()
                json.field("platform", device.platform.rawValue)
                json.field("token", device.token)
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    static func randomDevice(using generator: inout SeededGenerator) -> Device {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            let length = 2 * Int.random(in: 32...100, using: &generator)
            return Device(
                platform: .apns,
                token: String((0..<length).map { _ in "0123456789abcdef".randomElement(using: &generator) ?? "0" }))
        case 1:
            return Device(platform: .apnsVoip, token: String(repeating: "ab", count: 32))
        default:
            // Printable ASCII, quotes and backslashes included: they take two bytes each in the JSON body.
            let length = [1, 10, 152, 163, 1_000, 4_096].randomElement(using: &generator) ?? 1
            let token = String(
                (0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0x21...0x7E, using: &generator))) })
            return Device(platform: .fcm, token: token)
        }
    }

    @Test(arguments: 0..<6)
    func everyDeviceGetsTheRequestItWouldGetAlone(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let content = SizeFittingPropertyTests.randomText(
            bytes: [0, 300, 3_900, 5_000, 60_000].randomElement(using: &generator) ?? 0, using: &generator)
        let type = ["text", "unreadCount", "call", "image"].randomElement(using: &generator) ?? "text"
        let badges: [Int?] = [nil, 0, 7, 10, 999, 100_000, Int(Int32.max)]
        let recipients = (0..<12).map { _ in
            (
                badge: badges.randomElement(using: &generator) ?? nil,
                devices: (0..<3).map { _ in Self.randomDevice(using: &generator) }
            )
        }
        let together = try Fixture.decisions(Self.event(type: type, content: content, recipients: recipients))
        for decision in together {
            let recipient = recipients[decision.address.recipient]
            let device = recipient.devices[decision.address.device]
            let alone = try Fixture.decisions(
                Self.event(type: type, content: content, recipients: [(recipient.badge, [device])]))
            #expect(decision.outcome.request?.body == alone[0].outcome.request?.body, "\(decision.address)")
            if let request = decision.outcome.request {
                #expect(request.body.count <= PayloadLimit.bytes(for: request.platform))
            }
        }
    }

    /// On the main branch before the sharing, 2,000 FCM devices with 200,000 characters took over a minute of CPU
    /// in a release build; shared, 10,000 take a fraction of a second (docs/payloads.md). The bound
    /// leaves room for a debug build on a busy machine.
    @Test func tenThousandDevicesWithTwoHundredKilobytesOfContentPlanInSeconds() throws {
        let content = String(repeating: "Hello, 세계! ", count: 14_000)
        #expect(content.utf8.count > 200_000)
        let recipients = (0..<100).map { recipient in
            (
                badge: Optional(recipient),
                devices: (0..<100).map { device in
                    device % 10 == 0
                        ? Device(platform: .apns, token: String(repeating: "a\(device % 10)", count: 32))
                        : Device(platform: .fcm, token: "t-\(recipient)-\(device)")
                }
            )
        }
        let bytes = Self.event(type: "text", content: content, recipients: recipients)
        #expect(bytes.count < EventLimits().maximumRecordBytes)
        let clock = ContinuousClock()
        let start = clock.now
        let decisions = try Fixture.decisions(bytes)
        let elapsed = clock.now - start
        #expect(decisions.count == 10_000)
        #expect(decisions.allSatisfy { $0.outcome.request.map { $0.body.count <= 4_096 } ?? false })
        #expect(elapsed < .seconds(20), "planning took \(elapsed)")
    }
}
