import Essentials
import Foundation
import PushCore
import Synchronization

/// One provider request together with the device token it is for (APNs puts it in the URL).
public struct ProviderSend: Sendable {
    public var request: ProviderRequest
    public var deviceToken: String
}

/// The planner port over PushCore: decode, plan with the current rules table, narrow.
/// The rules table can be replaced while running (rules reload).
public final class CorePlanner: EventPlanner {
    private let decoder: EventDecoder
    private let planner: Mutex<PushPlanner>

    /// `defaultLocale` is `PUSH_DEFAULT_LOCALE`: it stays in force when the rules table is replaced.
    public init(
        rules: RulesTable, context: ProviderContext, defaultLocale: LanguageTag? = nil,
        decoder: EventDecoder = EventDecoder()
    ) {
        self.decoder = decoder
        self.planner = Mutex(PushPlanner(rules: rules, context: context, defaultLocale: defaultLocale))
    }

    /// Puts `rules` in force for every event planned from now on.
    public func replaceRules(with rules: RulesTable) {
        planner.withLock { $0.rules = rules }
    }

    /// The JSON objects of `value` (`{` outside strings, `JSONObjectCount`): every valid device is an object of its
    /// own, and the text of a message cannot raise the bound (a device entry that is not an object is
    /// dead-lettered and not counted). One pass over the bytes, far cheaper than decoding.
    public func deviceBound(_ value: [UInt8]) -> Int { JSONObjectCount.of(value) }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<ProviderSend>, UndecodableEvent> {
        let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
        let event: ChatMessageEvent
        do {
            event = try decoder.decode(value, now: now)
        } catch {
            return .failure(UndecodableEvent(reason: error.reason, message: error.description))
        }
        let decisions = planner.withLock { $0 }.plan(event, now: now)
        let devices = decisions.map { decision in
            // An unusable entry (bad token syntax, unknown platform) has no `Device`: its receipt names
            // what the event said.
            let entry = decision.device == nil ? Self.entry(at: decision.address, in: event.original) : nil
            let token = decision.device?.token ?? entry?["token"]?.stringValue ?? ""
            let platform = decision.device?.platform.rawValue ?? entry?["platform"]?.stringValue ?? "unknown"
            let target = DeviceTarget(
                userId: decision.userID, platform: platform, token: token, tokenHash: SHA256.tokenHash(token),
                app: Self.app(of: decision.outcome))
            return PlannedDevice(target: target, decision: Self.action(for: decision.outcome, token: token))
        }
        let addresses = decisions.map(\.address)
        return .success(
            PlannedEvent(
                messageId: event.id, roomId: event.room.id, type: event.type,
                eventTimeMillis: event.createdAtEpochMillis,
                devices: devices,
                narrowed: { indices in event.narrowed(to: indices.map { addresses[$0] }) }))
    }

    /// The APNs topic or FCM project a send goes to (`nil` when nothing is sent).
    static func app(of outcome: DeviceDecision.Outcome) -> String? {
        guard case .send(let request) = outcome else { return nil }
        if request.platform == .fcm {
            // `/v1/projects/<project>/messages:send`: the third segment, read in place.
            let prefix = "/v1/projects/"
            guard request.path.hasPrefix(prefix) else { return nil }
            let rest = request.path.utf8.dropFirst(prefix.utf8.count)
            return String(Substring(rest.prefix { $0 != UInt8(ascii: "/") }))
        }
        return request.headers.first { $0.name == "apns-topic" }?.value
    }

    /// The raw device entry `recipients[r].devices[d]` of the event.
    private static func entry(at address: DeviceAddress, in event: JSONValue) -> JSONValue? {
        guard case .array(let recipients) = event["recipients"], recipients.indices.contains(address.recipient),
            case .array(let devices) = recipients[address.recipient]["devices"],
            devices.indices.contains(address.device)
        else { return nil }
        return devices[address.device]
    }

    static func action(for outcome: DeviceDecision.Outcome, token: String) -> DeviceAction<ProviderSend> {
        switch outcome {
        case .send(let request):
            let provider: PushProvider = request.platform == .fcm ? .fcm : .apns
            return .send(provider, ProviderSend(request: request, deviceToken: token))
        case .skipped(let reason):
            return .skipped(reason: reason)
        case .expired:
            return .expired
        case .deadLetter(let error):
            return .deadLetter(reason: error.reason, message: error.description)
        }
    }
}
