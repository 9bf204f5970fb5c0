import Essentials
import PushCore
public import PushPipeline

/// Events as text: `messageId;device,device,…`. A device named `skip…` is skipped, `old…` expired,
/// `big…` dead-lettered as too large, `unknown…` dead-lettered quoting its name, `noapp…`
/// rejected as `unknown_app`, `f…` goes to FCM, `w…` to Web Push (the push service `FakeSender.origin` names) and
/// any other to APNs; the request is the name.
/// A value without `;` is undecodable. Narrowing keeps the chosen devices.
public struct FakePlanner: EventPlanner {
    public init() {}

    /// One more than the commas: each device name is followed by one, but the last.
    public func deviceBound(_ value: [UInt8]) -> Int { value.count { $0 == UInt8(ascii: ",") } + 1 }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<String>, UndecodableEvent> {
        let text = String(decoding: value, as: UTF8.self)
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(UndecodableEvent(reason: .decodeError, message: "not an event"))
        }
        let messageId = String(parts[0])
        let names = parts[1].split(separator: ",").map(String.init)
        let devices = names.map { name -> PlannedDevice<String> in
            let target = DeviceTarget(
                userId: "u-\(name)", platform: platform(of: name), token: "token-\(name)",
                tokenHash: "sha256:\(name)")
            let action: DeviceAction<String> =
                if name.hasPrefix("skip") {
                    .skipped(reason: .muted)
                } else if name.hasPrefix("old") {
                    .expired
                } else if name.hasPrefix("big") {
                    .deadLetter(reason: .payloadTooLarge, message: "does not fit")
                } else if name.hasPrefix("noapp") {
                    .rejected(reason: "unknown_app")
                } else if name.hasPrefix("unknown") {
                    .deadLetter(reason: .unknownType, message: "no rule for type '\(name)'")
                } else {
                    .send(provider(of: name), "\(messageId)/\(name)")
                }
            return PlannedDevice(target: target, decision: action)
        }
        return .success(
            PlannedEvent(
                messageId: messageId, roomId: "room", type: "text", eventTimeMillis: 1_800_000_000_000,
                devices: devices,
                narrowed: { indices in Array("\(messageId);\(indices.map { names[$0] }.joined(separator: ","))".utf8) })
        )
    }

    private func provider(of name: String) -> PushProvider {
        name.hasPrefix("f") ? .fcm : name.hasPrefix("w") ? .webpush : .apns
    }

    private func platform(of name: String) -> String {
        switch provider(of: name) {
        case .apns: "apns"
        case .fcm: "fcm"
        case .webpush: "web"
        }
    }
}
