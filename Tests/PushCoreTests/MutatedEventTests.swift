import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

/// Seeded mutations of the sample events (hostile numbers and strings in any field, repeated members, flipped
/// and cut bytes): decoding either fails with a reason or gives an event whose every device gets one decision,
/// with requests within their limits and only legal header values. A trap would end the test process.
@Suite struct MutatedEventTests {
    static let hostileValues: [JSONValue] = [
        .number("9223372036854775807"), .number("-9223372036854775808"), .number("99999999999999999999999"),
        .number("1e400"), .number("-1e400"), .number("1.5"), .number("-0"), .number("2147483648"),
        .string(String(repeating: "x", count: 300_000)), .string("\t\u{1}\u{7F}é\u{0}"), .string(""),
        .string("👩‍👩‍👧‍👦" + String(repeating: "\u{301}", count: 5_000)), .null, .bool(true), .array([]), .object([]),
    ]

    @Test(arguments: 0..<4)
    func mutatedSampleEventsAreDecodedOrRefusedNeverTrapped(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let samples = try GoldenRequestTests.events.map { try Repository.read($0) }
        try #require(samples.count >= 10, "the sample events (schemas/examples/chat-message)")
        var planned = 0
        for _ in 0..<150 {
            let sample = try #require(samples.randomElement(using: &generator))
            let bytes = Self.mutated(sample, using: &generator)
            let event: ChatMessageEvent
            do {
                event = try EventDecoder().decode(bytes, now: Fixture.now)
            } catch {
                #expect(error.description.utf8.count < 1_000)
                continue
            }
            planned += 1
            let decisions = PushPlanner(rules: .standard, context: Fixture.context).plan(event, now: Fixture.now)
            #expect(decisions.map(\.address) == event.deviceAddresses)
            for case .send(let request) in decisions.map(\.outcome) {
                #expect(request.body.count <= PayloadLimit.bytes(for: request.platform))
                for header in request.headers {
                    #expect(header.value.utf8.allSatisfy { (0x20...0x7E).contains($0) }, "\(header.name)")
                }
            }
        }
        // Some mutations keep the event decodable: the planner's side was exercised, not only the refusals.
        #expect(planned > 0)
    }

    /// `sample` with one to three mutations: a hostile value anywhere, a member repeated, bytes flipped or cut.
    static func mutated(_ sample: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        guard var value = try? JSONParser.parse(sample) else { return sample }
        for _ in 0...Int.random(in: 0...2, using: &generator) {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let hostile = hostileValues.randomElement(using: &generator) ?? .null
                value = replacingRandomValue(in: value, with: hostile, using: &generator)
            case 6..<8:
                value = repeatingRandomMember(in: value, using: &generator)
            default:
                var bytes = JSONWriter.encode(value)
                guard !bytes.isEmpty else { break }
                if Bool.random(using: &generator) {
                    bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                } else {
                    bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
                }
                return bytes
            }
        }
        return JSONWriter.encode(value)
    }

    /// `value` with one randomly chosen value inside it (or itself) replaced by `replacement`.
    static func replacingRandomValue(
        in value: JSONValue, with replacement: JSONValue, using generator: inout SeededGenerator
    ) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && Int.random(in: 0..<5, using: &generator) > 0:
            let index = Int.random(in: members.indices, using: &generator)
            members[index].value = replacingRandomValue(in: members[index].value, with: replacement, using: &generator)
            return .object(members)
        case .array(var elements) where !elements.isEmpty && Int.random(in: 0..<5, using: &generator) > 0:
            let index = Int.random(in: elements.indices, using: &generator)
            elements[index] = replacingRandomValue(in: elements[index], with: replacement, using: &generator)
            return .array(elements)
        default:
            return replacement
        }
    }

    /// `value` with one member of one of its objects written twice.
    static func repeatingRandomMember(in value: JSONValue, using generator: inout SeededGenerator) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty:
            let index = Int.random(in: members.indices, using: &generator)
            if Bool.random(using: &generator) {
                members.append(members[index])
            } else {
                members[index].value = repeatingRandomMember(in: members[index].value, using: &generator)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty:
            let index = Int.random(in: elements.indices, using: &generator)
            elements[index] = repeatingRandomMember(in: elements[index], using: &generator)
            return .array(elements)
        default:
            return value
        }
    }
}
