import Foundation
import PushCore
import TestSupport
import Testing

@Suite struct IMKITMessageDecoderTests {
    private func decode(_ json: String) throws(EventError) -> IMKITMessage {
        try IMKITMessageDecoder().decode(Array(json.utf8), now: Fixture.now)
    }

    @Test func decodesTheV2ExampleOfIMKITsDocumentation() throws {
        let bytes = try Repository.read(Repository.examples.appending(path: "imkit-message/v2-text.json"))
        let message = try IMKITMessageDecoder().decode(bytes, now: Fixture.now)
        #expect(message.id == "5dd51a4f21841443cfd3090d")
        #expect(message.type == "text")
        #expect(message.content == "lala")
        #expect(message.room == .init(id: "demo-room", name: "Demo Room"))
        #expect(message.sender == .init(id: "sss", nickname: "SSS"))
        #expect(message.appID == "SampleApp")
        #expect(message.createdAt == Date(timeIntervalSince1970: 1_574_246_991.222))
        #expect(message.clients == ["aaa", "bbb"])
        #expect(message.assembled == nil)
        #expect(message.original == (try JSONParser.parse(bytes)))
    }

    @Test func everyExampleDecodes() throws {
        for file in try Repository.jsonFiles(in: Repository.examples.appending(path: "imkit-message")) {
            #expect(throws: Never.self, "\(file.lastPathComponent)") {
                _ = try IMKITMessageDecoder().decode(try Repository.read(file), now: Fixture.now)
            }
        }
    }

    @Test func v1CarriesOneClientWithItsBadgeAndAlert() throws {
        let message = try decode(
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "toClient": "aaa", "badge": 7, "alert": "S: hi"}"#
        )
        #expect(message.clients == ["aaa"])
        #expect(message.assembled == .init(badge: 7, alert: "S: hi"))
    }

    @Test func theIdIsUnderscoreIdElseId() throws {
        let both =
            #"{"_id": "a", "id": "b", "messageType": "text", "room": "r", "sender": {"id": "s"}, "pushToClients": []}"#
        #expect(try decode(both).id == "a")
        #expect(try decode(both).sender.id == "s")
        let only = #"{"id": "b", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": []}"#
        #expect(try decode(only).id == "b")
    }

    @Test func theSenderIsNeverARecipientAndDuplicatesCountOnce() throws {
        let message = try decode(
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "sss"}, "pushToClients": ["b", "sss", "a", "b", "a"]}"#
        )
        #expect(message.clients == ["b", "a"])
        let own = try decode(
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "sss"}, "toClient": "sss"}"#)
        #expect(own.clients.isEmpty)
    }

    @Test(arguments: [
        (#""messageTimeMS": 1000, "createdAtMS": 2000, "messageTime": "2020-01-01T00:00:00Z""#, 1.0),
        (#""createdAtMS": 2000, "messageTime": "2020-01-01T00:00:00Z""#, 2.0),
        (#""messageTime": "2020-01-01T00:00:00Z""#, 1_577_836_800.0),
    ])
    func theTimeIsMessageTimeMSElseCreatedAtMSElseMessageTime(members: String, seconds: Double) throws {
        let message = try decode(
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [], \#(members)}"#
        )
        #expect(message.createdAt == Date(timeIntervalSince1970: seconds))
    }

    @Test func memberEventsNameTheMemberAsTheSecondPerson() throws {
        let added = try decode(
            #"{"_id": "m", "messageType": "addMember", "room": "r", "sender": {"_id": "s"}, "member": {"_id": "f", "nickname": "FFF"}, "pushToClients": []}"#
        )
        #expect(added.target == .init(id: "f", nickname: "FFF"))
        let removed = try decode(
            #"{"_id": "m", "messageType": "deleteMembers", "room": "r", "sender": {"_id": "s"}, "extra": {"members": [{"_id": "d", "nickname": "DDD"}, {"_id": "e", "nickname": "EEE"}]}, "pushToClients": []}"#
        )
        #expect(removed.target == .init(id: "d", nickname: "DDD, EEE"))
        let invited = try decode(
            #"{"_id": "m", "messageType": "addMembers", "room": "r", "sender": {"_id": "s"}, "extra": {"invitees": [{"_id": "i"}]}, "pushToClients": []}"#
        )
        #expect(invited.target == .init(id: "i", nickname: nil))
    }

    @Test func aRoomObjectGivesItsId() throws {
        let message = try decode(
            #"{"_id": "m", "messageType": "text", "room": {"_id": "r1", "name": "x"}, "sender": {"_id": "s"}, "pushToClients": []}"#
        )
        #expect(message.room.id == "r1")
    }

    @Test(arguments: [
        (#"{"messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": []}"#, "id"),
        (#"{"_id": "m", "room": "r", "sender": {"_id": "s"}, "pushToClients": []}"#, "messageType"),
        (#"{"_id": "m", "messageType": "text", "sender": {"_id": "s"}, "pushToClients": []}"#, "room"),
        (#"{"_id": "m", "messageType": "text", "room": "r", "pushToClients": []}"#, "sender"),
        (#"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}}"#, "pushToClients"),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [3]}"#,
            "pushToClients[0]"
        ),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": "a"}"#,
            "pushToClients"
        ),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "toClient": "a", "badge": -1}"#,
            "badge"
        ),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [], "messageTimeMS": 99999999999999999999}"#,
            "messageTimeMS"
        ),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [], "messageTimeMS": 9000000000000000}"#,
            "messageTimeMS"
        ),
        (
            #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [], "messageTime": "yesterday"}"#,
            "messageTime"
        ),
        (
            #"{"_id": "m", "messageType": "deleteMembers", "room": "r", "sender": {"_id": "s"}, "pushToClients": [], "extra": {"members": [{}]}}"#,
            "extra.members[0].id"
        ),
    ])
    func badMessagesNameTheField(json: String, path: String) {
        do {
            _ = try decode(json)
            Issue.record("accepted")
        } catch {
            #expect(error.path == path, "\(error)")
            #expect(error.reason == .decodeError)
        }
    }

    @Test func tooManyClientsIsAnError() {
        let clients = (0...10_000).map { "\"c\($0)\"" }.joined(separator: ",")
        #expect(throws: EventError.self) {
            _ = try decode(
                #"{"_id": "m", "messageType": "text", "room": "r", "sender": {"_id": "s"}, "pushToClients": [\#(clients)]}"#
            )
        }
    }

    @Test func dispatchIsOnMessageTypeBeingPresent() throws {
        #expect(IMKITMessageDecoder.isIMKITMessage(try JSONParser.parse(Array(#"{"messageType": "text"}"#.utf8))))
        #expect(
            !IMKITMessageDecoder.isIMKITMessage(
                try JSONParser.parse(Array(#"{"type": "text", "payload": {"messageType": "text"}}"#.utf8))))
    }
}
