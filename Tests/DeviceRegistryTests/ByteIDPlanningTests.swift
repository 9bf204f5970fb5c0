import DeviceRegistry
import Essentials
import Foundation
import PushCore
import PushPipeline
import TestSupport
import Testing

/// `café` as NFC and as NFD: equal `String`s, two ids.
enum EquivalentIDs {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// Each device of `event` as its user id's bytes, its token hash and its decision: `PlannedEvent.outline` compares
    /// user ids as `String`s.
    static func devices(_ event: PlannedEvent<ProviderSend>) -> [String] {
        zip(event.devices, event.outline).map { device, outline in
            let bytes = device.target.userId.utf8.map { String($0, radix: 16) }.joined(separator: " ")
            return
                "[\(bytes)] \(device.target.tokenHash.suffix(4)) \(outline.split(separator: " ").dropFirst(2).joined(separator: " "))"
        }
    }

    /// `devices` of what sending to `client`'s device with `token` looks like.
    static func sent(to client: String, token: String, provider: String = "apns") -> String {
        let bytes = client.utf8.map { String($0, radix: 16) }.joined(separator: " ")
        return "[\(bytes)] \(SHA256.tokenHash(token).suffix(4)) send \(provider)"
    }
}

extension IMKITPlannerTests {
    func subscribeEquivalentClients() {
        subscribe(
            Registry.subscription(client: EquivalentIDs.composed, device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: EquivalentIDs.decomposed, device: "D2", token: Registry.apnsToken(2)))
    }

    @Test func clientsOfCanonicallyEquivalentIdsEachGetOnlyTheirOwnDevice() throws {
        subscribeEquivalentClients()
        let composed = EquivalentIDs.sent(to: EquivalentIDs.composed, token: Registry.apnsToken(1))
        let decomposed = EquivalentIDs.sent(to: EquivalentIDs.decomposed, token: Registry.apnsToken(2))
        #expect(EquivalentIDs.devices(try plan(Self.message([EquivalentIDs.composed]))) == [composed])
        #expect(EquivalentIDs.devices(try plan(Self.message([EquivalentIDs.decomposed]))) == [decomposed])
        let both = try plan(Self.message([EquivalentIDs.composed, EquivalentIDs.decomposed]))
        #expect(EquivalentIDs.devices(both) == [composed, decomposed])
    }

    @Test func aRecipientWhoseIdIsTheSendersInOtherBytesIsStillPushed() throws {
        subscribeEquivalentClients()
        let message = Self.message([EquivalentIDs.decomposed]).replacingOccurrences(
            of: #""_id": "sss""#, with: #""_id": "\#(EquivalentIDs.composed)""#)
        #expect(
            EquivalentIDs.devices(try plan(message)) == [
                EquivalentIDs.sent(to: EquivalentIDs.decomposed, token: Registry.apnsToken(2))
            ])
    }

    @Test func theSettingsOfOneClientDoNotApplyToItsCanonicalEquivalent() throws {
        subscribeEquivalentClients()
        set(ClientSettings(appID: "SampleApp", clientID: EquivalentIDs.decomposed, notificationEnabled: false))
        #expect(
            EquivalentIDs.devices(try plan(Self.message([EquivalentIDs.composed]))) == [
                EquivalentIDs.sent(to: EquivalentIDs.composed, token: Registry.apnsToken(1))
            ])
        #expect(
            try plan(Self.message([EquivalentIDs.decomposed])).outline.map { $0.hasSuffix("notifications_off") } == [
                true
            ])
    }

    @Test func aMutedRoomMutesOnlyTheRoomOfTheseBytes() throws {
        subscribe(Registry.subscription(client: "aaa", device: "D1", token: Registry.apnsToken(1)))
        set(ClientSettings(appID: "SampleApp", clientID: "aaa", mutedRooms: [EquivalentIDs.composed]))
        func plan(room: String) throws -> [String] {
            let message = Self.message(["aaa"]).replacingOccurrences(
                of: #""room": "demo-room""#, with: #""room": "\#(room)""#)
            return try self.plan(message).outline
        }
        #expect(try plan(room: EquivalentIDs.composed) == ["aaa apns skipped muted"])
        #expect(try plan(room: EquivalentIDs.decomposed) == ["aaa apns send apns"])
    }
}

extension CustomPushPlannerTests {
    @Test func aCustomPushToCanonicallyEquivalentClientsReachesEachOnesOwnDevice() throws {
        subscribe(
            Registry.subscription(client: EquivalentIDs.composed, device: "D1", token: Registry.apnsToken(1)),
            Registry.subscription(client: EquivalentIDs.decomposed, device: "D2", token: Registry.apnsToken(2)))
        let event = try plan(Self.push([EquivalentIDs.composed, EquivalentIDs.decomposed]))
        #expect(
            EquivalentIDs.devices(event) == [
                EquivalentIDs.sent(to: EquivalentIDs.composed, token: Registry.apnsToken(1)),
                EquivalentIDs.sent(to: EquivalentIDs.decomposed, token: Registry.apnsToken(2)),
            ])
    }
}
