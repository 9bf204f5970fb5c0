import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct CustomPushDecoderTests {
    func decode(_ json: String) throws(EventError) -> CustomPush {
        try CustomPushDecoder().decode(Array(json.utf8))
    }

    @Test func everyPayloadFieldIsRead() throws {
        let push = try decode(
            #"{"id": "p-1", "appID": "SampleApp", "clients": ["a", "b", "a"], "payload": {"type": "promo", "expiry": 1795960000, "alert": {"loc-key": "k", "loc-args": ["x"]}, "badge": 3, "sound": "chime.aiff", "topic": "com.example.other", "title": "T", "body": "B", "icon": "ic", "collapseKey": "c", "extra": {"deep": 1}}}"#
        )
        #expect(push.id == "p-1")
        #expect(push.appID == "SampleApp")
        #expect(push.clients == ["a", "b"])
        #expect(push.recipients == nil)
        let payload = push.payload
        #expect(payload.type == "promo")
        #expect(payload.expiry == 1_795_960_000)
        #expect(payload.alert == .localized(key: "k", arguments: ["x"]))
        #expect(payload.badge == 3)
        #expect(payload.sound == "chime.aiff")
        #expect(payload.topic == "com.example.other")
        #expect([payload.title, payload.body, payload.icon, payload.collapseKey] == ["T", "B", "ic", "c"])
        #expect(payload.object["extra"]?["deep"] == .number("1"))
    }

    @Test func aStringAlertIsText() throws {
        let push = try decode(#"{"clients": ["a"], "payload": {"alert": "Hello"}}"#)
        #expect(push.payload.alert == .text("Hello"))
        #expect(push.appID == "")
    }

    @Test func anAlertObjectWithoutLocKeyIsNoAlert() throws {
        #expect(try decode(#"{"clients": ["a"], "payload": {"alert": {"loc-args": ["x"]}}}"#).payload.alert == nil)
    }

    @Test func aPushWithoutIDGetsOneDerivedFromItsBytes() throws {
        let json = #"{"clients": ["a"], "payload": {"alert": "Hello"}}"#
        let first = try decode(json)
        #expect(first.id.count == 36)
        #expect(try decode(json).id == first.id)
        #expect(try decode(#"{"clients": ["b"], "payload": {"alert": "Hello"}}"#).id != first.id)
    }

    @Test(arguments: [
        (#"{"payload": {}}"#, "clients: required"),
        (#"{"clients": ["a"]}"#, "payload: required"),
        (#"{"clients": [], "payload": {}}"#, "clients: must list 1 to 10000 clients, not 0"),
        (#"{"clients": "a", "payload": {}}"#, "clients: must be an array, not string"),
        (#"{"clients": ["a", 7], "payload": {}}"#, "clients[1]: must be a client id of 1 to 256 characters"),
        (#"{"clients": ["a"], "payload": []}"#, "payload: must be an object, not array"),
        (
            #"{"clients": ["a"], "payload": {"badge": 1.5}}"#,
            "payload.badge: must be a whole number from 0 to 2147483647"
        ),
        (#"{"clients": ["a"], "payload": {"expiry": "soon"}}"#, "payload.expiry: must be a number, not string"),
        (
            #"{"clients": ["a"], "payload": {"expiry": 253402300800}}"#,
            "payload.expiry: must be a whole number from 0 to 253402300799"
        ),
        (
            #"{"clients": ["a"], "payload": {"alert": 3}}"#,
            "payload.alert: must be a string or an object with loc-key, not number"
        ),
        (
            #"{"clients": ["a"], "payload": {"alert": {"loc-key": 1}}}"#,
            "payload.alert.loc-key: must be a string, not number"
        ),
        (
            #"{"clients": ["a"], "payload": {"alert": {"loc-key": "k", "loc-args": [1]}}}"#,
            "payload.alert.loc-args[0]: must be a string"
        ),
        (
            #"{"clients": ["a"], "payload": {"topic": "a b"}}"#,
            "payload.topic: must be a bundle id of 1 to 255 printable characters"
        ),
        (#"{"clients": ["a"], "payload": {"title": 1}}"#, "payload.title: must be a string, not number"),
        (#"{"clients": ["a"], "payload": {}, "id": 5}"#, "id: must be a string, not number"),
        (#"{"clients": ["a"], "payload": {}, "appID": []}"#, "appID: must be a string, not array"),
        (
            #"{"clients": ["a"], "payload": {}, "messageType": "text"}"#,
            "messageType: must be absent: a record with it is a chat-message event or an IMKIT message"
        ),
        (
            #"{"clients": ["a"], "payload": {}, "recipients": [{"userId": "a"}]}"#,
            "recipients[0].devices: required"
        ),
    ])
    func aBadRecordNamesTheField(json: String, error expected: String) {
        let error = #expect(throws: EventError.self) { try decode(json) }
        #expect(error?.description == expected)
        #expect(error?.reason == .decodeError)
    }

    @Test func aRetryRecordListsItsDevicesAndMarksTheBadOnes() throws {
        let push = try decode(
            #"{"id": "p", "clients": ["a"], "payload": {}, "recipients": [{"userId": "a", "devices": [{"platform": "apns", "token": "\#(Fixture.apnsToken)"}, {"platform": "apns", "token": "zz"}]}]}"#
        )
        let recipients = try #require(push.recipients)
        #expect(recipients.map(\.userID) == ["a"])
        #expect(recipients[0].devices.first??.token == Fixture.apnsToken)
        #expect(push.invalidDevices[DeviceAddress(recipient: 0, device: 1)]?.path == "recipients[0].devices[1].token")
    }

    @Test func aRecordIsACustomPushWhenItHasClientsAndNoSender() throws {
        func isCustomPush(_ json: String) throws -> Bool {
            CustomPushDecoder.isCustomPush(try JSONParser.parse(Array(json.utf8)))
        }
        #expect(try isCustomPush(#"{"clients": []}"#))
        #expect(try !isCustomPush(#"{"clients": [], "messageType": "t", "sender": {"_id": "s"}}"#))
        #expect(try !isCustomPush(#"{"id": "m", "clients": [], "sender": {"id": "s"}, "recipients": []}"#))
        #expect(try !isCustomPush(#"{"recipients": []}"#))
    }

    @Test func everyExampleDecodes() throws {
        let files = try Repository.jsonFiles(in: Repository.examples.appending(path: "custom-push"))
        #expect(!files.isEmpty)
        for file in files {
            _ = try CustomPushDecoder().decode(try Repository.read(file))
        }
    }
}
