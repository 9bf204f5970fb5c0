import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct EventDecoderTests {
    static let apnsToken = String(repeating: "ab", count: 32)

    /// The test event with the members of `overrides` (`, "name": value, …`) replacing or added to its own.
    static func event(_ overrides: String = "") -> [UInt8] {
        let base = Array(
            """
            {"id": "m-1", "type": "text", "room": {"id": "r-1", "name": "Team"},
             "sender": {"id": "u-1", "nickname": "Alice"}, "content": "Hi", "createdAt": "2026-11-29T12:00:00Z",
             "recipients": [{"userId": "u-2", "badge": 3, "devices": [
                {"platform": "apns", "token": "\(apnsToken)"}, {"platform": "fcm", "token": "fcm:token-1"}]}],
             "extra": {"kept": [1, 2.50]}}
            """.utf8)
        guard case .object(var members)? = try? JSONParser.parse(base),
            case .object(let replacements)? = try? JSONParser.parse(Array("{\(overrides.dropFirst())}".utf8))
        else { return base }
        for replacement in replacements {
            if let index = members.firstIndex(where: { $0.key == replacement.key }) {
                members[index] = replacement
            } else {
                members.append(replacement)
            }
        }
        return JSONWriter.encode(.object(members))
    }

    @Test func decodesEveryField() throws {
        let event = try EventDecoder().decode(Self.event(), now: Fixture.now)
        #expect(event.id == "m-1")
        #expect(event.type == "text")
        #expect(event.room == .init(id: "r-1", name: "Team"))
        #expect(event.sender.nickname == "Alice")
        #expect(event.createdAt == Date(timeIntervalSince1970: 1_795_953_600))
        #expect(event.recipients[0].badge == 3)
        #expect(
            event.recipients[0].devices == [
                Device(platform: .apns, token: Self.apnsToken), Device(platform: .fcm, token: "fcm:token-1"),
            ])
        #expect(event.invalidDevices.isEmpty)
    }

    @Test(arguments: [
        ("2026-11-29T12:00:00Z", 1_795_953_600.0),
        ("2026-11-29T21:00:00.5+09:00", 1_795_953_600.5),
        ("1970-01-01t00:00:00z", 0),
    ])
    func acceptsRFC3339Dates(text: String, seconds: Double) throws {
        let event = try EventDecoder().decode(Self.event(", \"createdAt\": \"\(text)\""), now: Fixture.now)
        #expect(event.createdAt == Date(timeIntervalSince1970: seconds))
    }

    @Test func acceptsEpochMilliseconds() throws {
        let event = try EventDecoder().decode(Self.event(", \"createdAt\": 1795953600250"), now: Fixture.now)
        #expect(event.createdAt == Date(timeIntervalSince1970: 1_795_953_600.25))
    }

    @Test(arguments: [
        ("{", "", "invalid JSON at byte 1: expected a member name"),
        ("[]", "", "must be an object, not array"),
        (#"{"type": "text"}"#, "id", "required"),
    ])
    func malformedRecordsAreDecodeErrors(json: String, path: String, message: String) {
        #expect(throws: EventError(.decodeError, path: path, message)) {
            try EventDecoder().decode(Array(json.utf8), now: Fixture.now)
        }
    }

    @Test(arguments: [
        (#", "id": 7"#, "id", "must be a string, not number"),
        (#", "room": {"name": "x"}"#, "room.id", "required"),
        (#", "createdAt": "yesterday""#, "createdAt", "must be an RFC 3339 date-time"),
        (#", "createdAt": "2026-02-30T00:00:00Z""#, "createdAt", "must be an RFC 3339 date-time"),
        (#", "recipients": {}"#, "recipients", "must be an array, not object"),
        (#", "recipients": [{"devices": []}]"#, "recipients[0].userId", "required"),
        (
            #", "recipients": [{"userId": "u", "badge": -1, "devices": []}]"#, "recipients[0].badge",
            "must be a whole number from 0 to 2147483647"
        ),
        (
            #", "recipients": [{"userId": "u", "muted": "no", "devices": []}]"#, "recipients[0].muted",
            "must be a boolean, not string"
        ),
    ])
    func wrongFieldsNameThePathAndTheReason(override: String, path: String, message: String) {
        #expect(throws: EventError(.decodeError, path: path, message)) {
            try EventDecoder().decode(Self.event(override), now: Fixture.now)
        }
    }

    @Test func oversizedRecordsAreRecordTooLarge() {
        let decoder = EventDecoder(limits: EventLimits(maximumRecordBytes: 100))
        #expect(
            throws: EventError(
                .recordTooLarge, path: "", "record is \(Self.event().count) bytes, more than the limit of 100")
        ) {
            try decoder.decode(Self.event(), now: Fixture.now)
        }
    }

    @Test func recipientAndDeviceCountsAreLimited() {
        let few = EventDecoder(limits: EventLimits(maximumRecipients: 0))
        #expect(throws: EventError(.decodeError, path: "recipients", "lists 1 recipients, more than the limit of 0")) {
            try few.decode(Self.event(), now: Fixture.now)
        }
        let fewDevices = EventDecoder(limits: EventLimits(maximumDevicesPerRecipient: 1))
        #expect(
            throws: EventError(.decodeError, path: "recipients[0].devices", "lists 2 devices, more than the limit of 1")
        ) {
            try fewDevices.decode(Self.event(), now: Fixture.now)
        }
    }

    @Test(arguments: [
        (
            #"{"platform": "apns", "token": "abc"}"#, "recipients[0].devices[0].token",
            "must be an even number (64 to 200) of hexadecimal characters"
        ),
        (
            #"{"platform": "apns-voip", "token": "\#(String(repeating: "g", count: 64))"}"#,
            "recipients[0].devices[0].token", "must be an even number (64 to 200) of hexadecimal characters"
        ),
        (
            #"{"platform": "apns", "token": "\#(String(repeating: "a", count: 65))"}"#,
            "recipients[0].devices[0].token", "must be an even number (64 to 200) of hexadecimal characters"
        ),
        (
            #"{"platform": "fcm", "token": "has space"}"#, "recipients[0].devices[0].token",
            "must be 1 to 4096 printable ASCII characters"
        ),
        (
            #"{"platform": "fcm", "token": "\#(String(repeating: "a", count: 4097))"}"#,
            "recipients[0].devices[0].token", "must be 1 to 4096 printable ASCII characters"
        ),
        (
            #"{"platform": "hms", "token": "x"}"#, "recipients[0].devices[0].platform",
            "must be one of apns, apns-voip, fcm, web"
        ),
        (#""token""#, "recipients[0].devices[0]", "must be an object, not string"),
    ])
    func badDevicesAreSetAsideWithoutFailingTheEvent(device: String, path: String, message: String) throws {
        let json = Self.event(
            #", "recipients": [{"userId": "u", "devices": [\#(device), {"platform": "fcm", "token": "ok"}]}]"#)
        let event = try EventDecoder().decode(json, now: Fixture.now)
        #expect(
            event.invalidDevices == [
                DeviceAddress(recipient: 0, device: 0): EventError(.decodeError, path: path, message)
            ])
        #expect(event.recipients[0].devices == [nil, Device(platform: .fcm, token: "ok")])
        #expect(!EventError(.decodeError, path: path, message).description.contains(String(repeating: "a", count: 64)))
    }

    @Test func narrowingKeepsOnlyTheGivenDevicesAndEveryOtherField() throws {
        let json = Self.event(
            #", "recipients": [{"userId": "a", "devices": [{"platform": "fcm", "token": "t1"}]}, {"userId": "b", "x": 1, "devices": [{"platform": "fcm", "token": "t2"}, {"platform": "fcm", "token": "t3", "y": null}]}]"#
        )
        let event = try EventDecoder().decode(json, now: Fixture.now)
        let narrowed = ChatMessageEvent.narrowed(event.source, to: [DeviceAddress(recipient: 1, device: 1)])
        let text = String(decoding: narrowed, as: UTF8.self)
        #expect(
            text.contains(#""recipients":[{"userId":"b","x":1,"devices":[{"platform":"fcm","token":"t3","y":null}]}]"#))
        #expect(text.contains(#""extra":{"kept":[1,2.50]}"#))
        let again = try EventDecoder().decode(narrowed, now: Fixture.now)
        #expect(again.recipients.map(\.userID) == ["b"])
        #expect(again.id == event.id)
    }

    @Test func fieldsAreReadPastUnknownMembersAndThroughEscapedNames() throws {
        // Read in place: unknown members of any shape before the fields, names written with escapes.
        let json = Array(
            #"""
            {"x": {"a": [1, {"b": [[], {}]}], "c": "}]"}, "\u0069d": "m-\u0031", "typ\u0065": "text",
             "y": [[[{"z": null}]]], "room": {"id": "r-1", "n": {"id": "no"}}, "sender": {"id": "u-1"},
             "recipients": [{"w": [{"userId": "no"}], "userId": "u-2", "devices": [
                {"q": {"token": "no"}, "platform": "fcm", "token": "t-1"}]}],
             "payload": {"k": [true, null, "\u00e9"]}}
            """#.utf8)
        let event = try EventDecoder().decode(json, now: Fixture.now)
        #expect(event.id == "m-1")
        #expect(event.type == "text")
        #expect(event.room == .init(id: "r-1"))
        #expect(event.sender.id == "u-1")
        #expect(event.recipients.map(\.userID) == ["u-2"])
        #expect(event.recipients[0].devices == [Device(platform: .fcm, token: "t-1")])
        #expect(event.payload == .object([JSONMember("k", .array([.bool(true), .null, .string("é")]))]))
        #expect(event.source == json)
    }
}

/// Hostile events: numbers that would trap or overflow, huge strings, repeated member names.
@Suite struct HostileEventTests {
    func decode(_ overrides: String) throws(EventError) -> ChatMessageEvent {
        try EventDecoder().decode(EventDecoderTests.event(overrides), now: Fixture.now)
    }

    @Test(arguments: [
        ("9223372036854775807", "must be within 100 years of now"),
        ("-9223372036854775808", "must be within 100 years of now"),
        ("9223372036854775808", "must be whole epoch milliseconds within 100 years of now"),
        ("-99999999999999999999999", "must be whole epoch milliseconds within 100 years of now"),
        ("1e400", "must be whole epoch milliseconds within 100 years of now"),
        ("1.7959536e12", "must be whole epoch milliseconds within 100 years of now"),
        ("1795953600250.5", "must be whole epoch milliseconds within 100 years of now"),
        ("-3000000000000", "must be within 100 years of now"),
        ("\"0001-01-01T00:00:00Z\"", "must be within 100 years of now"),
        ("\"9999-12-31T23:59:59.999999999999+23:59\"", "must be within 100 years of now"),
    ])
    func createdAtOutsideAHundredYearsOfNowIsADecodeError(literal: String, message: String) {
        #expect(throws: EventError(.decodeError, path: "createdAt", message)) {
            try decode(", \"createdAt\": \(literal)")
        }
    }

    @Test func createdAtWithinAHundredYearsIsKeptIncludingBefore1970() throws {
        let before1970 = try decode(#", "createdAt": -1000"#)
        #expect(before1970.createdAt == Date(timeIntervalSince1970: -1))
        #expect(before1970.createdAtEpochMillis == -1000)
        let lastMillisecond = Int64(Fixture.now.timeIntervalSince1970 * 1000) + 3_155_760_000_000
        let latest = try decode(", \"createdAt\": \(lastMillisecond)")
        #expect(latest.createdAtEpochMillis == lastMillisecond)
        #expect(throws: EventError.self) { try decode(", \"createdAt\": \(lastMillisecond + 1)") }
    }

    @Test func aFarFutureCreatedAtCountsAsNowPlusTheSkewForTheTimeToLive() throws {
        let event = try decode(#", "createdAt": "2100-01-01T00:00:00Z""#)
        #expect(event.timeToLiveStart(now: Fixture.now) == Fixture.now.addingTimeInterval(300))
        let onTime = try decode(#", "createdAt": "2026-11-29T12:04:00Z""#)
        #expect(onTime.timeToLiveStart(now: Fixture.now) == onTime.createdAt)
    }

    @Test(arguments: [
        ("id", 256), ("type", 64), ("room", 256), ("sender", 256), ("target", 256), ("userId", 256),
        ("room.name", 256), ("sender.nickname", 256), ("target.nickname", 256),
    ])
    func idsTypesAndNamesLongerThanTheContractAreDecodeErrors(field: String, limit: Int) throws {
        func event(_ text: String) -> String {
            let quoted = Fixture.quoted(text)
            switch field {
            case "room": return #", "room": {"id": \#(quoted)}"#
            case "sender", "target": return #", "\#(field)": {"id": \#(quoted)}"#
            case "userId": return #", "recipients": [{"userId": \#(quoted), "devices": []}]"#
            case "room.name": return #", "room": {"id": "r", "name": \#(quoted)}"#
            case "sender.nickname", "target.nickname":
                return #", "\#(field.prefix { $0 != "." })": {"id": "u", "nickname": \#(quoted)}"#
            default: return #", "\#(field)": \#(quoted)"#
            }
        }
        let path =
            switch field {
            case "room", "sender", "target": "\(field).id"
            case "userId": "recipients[0].userId"
            default: field
            }
        // Characters as JSON Schema counts them: Unicode scalars, so 한 (3 bytes in UTF-8) is one.
        _ = try decode(event(String(repeating: "한", count: limit)))
        #expect(throws: EventError(.decodeError, path: path, "must be at most \(limit) characters")) {
            try decode(event(String(repeating: "a", count: limit + 1)))
        }
    }

    @Test func aMegabyteTypeIsADecodeErrorThatDoesNotQuoteIt() {
        let type = String(repeating: "t", count: 800_000)
        #expect(throws: EventError(.decodeError, path: "type", "must be at most 64 characters")) {
            try decode(", \"type\": \"\(type)\"")
        }
    }

    @Test(arguments: [
        (#"{"id": "m-1", "id": "m-2"}"#, "id", 14),
        (#"{"recipients": [{"userId": "a"}, {"badge": 1, "badge": 2}]}"#, "recipients[1].badge", 46),
        (#"{"payload": {"a": [{"x": {"y": 1, "y": 1}}]}}"#, "payload.a[0].x.y", 34),
    ])
    func repeatedMemberNamesAreDecodeErrorsWithTheirPath(json: String, path: String, offset: Int) {
        #expect(
            throws: EventError(.decodeError, path: path, "invalid JSON at byte \(offset): duplicate member name")
        ) {
            try EventDecoder().decode(Array(json.utf8), now: Fixture.now)
        }
    }

    @Test(arguments: [
        (1_000_000, 900_000), (2_000_000, 1_900_000), (100_000, 1_024), (Int.min, 1_024), (Int.max, Int.max - 100_000),
    ])
    func recordsLeaveRoomForTheirDeadLetterUnderMessageMaxBytes(messageMaxBytes: Int, limit: Int) {
        #expect(EventLimits.maximumRecordBytes(messageMaxBytes: messageMaxBytes) == limit)
    }

    @Test func theDefaultRecordLimitFitsLibrdkafkasDefaultMessageMaxBytes() {
        #expect(EventLimits().maximumRecordBytes == 900_000)
        let padding = String(repeating: "p", count: 900_000)
        #expect(throws: EventError.self) {
            try EventDecoder().decode(EventDecoderTests.event(", \"extra\": \"\(padding)\""), now: Fixture.now)
        }
    }
}
