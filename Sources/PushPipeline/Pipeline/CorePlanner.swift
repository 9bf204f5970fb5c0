import Essentials
import Foundation
public import PushCore
import Synchronization

/// One provider request together with the device token it is for (APNs puts it in the URL) and the app whose
/// credentials send it.
///
/// A class: a send is handed from the plan to the group, the transport and the retry path, and as a struct each
/// hand-over retained every string and array of its request.
public final class ProviderSend: Sendable {
    public let request: ProviderRequest
    public let deviceToken: String
    /// The message's `appID`; empty for the default app.
    public let appID: String

    public init(request: ProviderRequest, deviceToken: String, appID: String = "") {
        self.request = request
        self.deviceToken = deviceToken
        self.appID = appID
    }
}

/// The planner port over PushCore: decode, plan with the current rules table and the message's app, narrow.
/// The rules table can be replaced while running (rules reload).
///
/// A message whose app cannot send (`AppStanding.refused`) is still planned, so skip rules and mutes keep their
/// receipts; each of its sends becomes `rejected` with the refusal's code.
public final class CorePlanner: EventPlanner {
    private let decoder: EventDecoder
    private let apps: any AppContexts
    /// The planner in force, replaced whole when the rules are: an event takes a reference to it, not a copy of the
    /// rules table.
    private let planner: Mutex<PlannerInForce>

    private final class PlannerInForce: Sendable {
        let planner: PushPlanner

        init(_ planner: PushPlanner) {
            self.planner = planner
        }

        /// `PushPlanner.plan`, called where the planner is borrowed: read through the reference, it was copied
        /// (its rules table with it) for every event. The event is handed over, as there.
        func plan(_ event: consuming ChatMessageEvent, now: Date, context: ProviderContext?) -> [DeviceDecision] {
            planner.plan(event, now: now, context: context)
        }
    }

    /// `defaultLocale` is `PUSH_DEFAULT_LOCALE`: it stays in force when the rules table is replaced.
    public init(
        rules: RulesTable, apps: any AppContexts, defaultLocale: LanguageTag? = nil,
        decoder: EventDecoder = EventDecoder()
    ) {
        self.decoder = decoder
        self.apps = apps
        let unused = ProviderContext(apnsTopic: "", fcmProjectID: "")
        self.planner = Mutex(PlannerInForce(PushPlanner(rules: rules, context: unused, defaultLocale: defaultLocale)))
    }

    /// A planner of one app, `context`, for every message.
    public convenience init(
        rules: RulesTable, context: ProviderContext, defaultLocale: LanguageTag? = nil,
        decoder: EventDecoder = EventDecoder()
    ) {
        self.init(rules: rules, apps: SingleApp(context), defaultLocale: defaultLocale, decoder: decoder)
    }

    /// Puts `rules` in force for every event planned from now on.
    public func replaceRules(with rules: RulesTable) {
        planner.withLock { inForce in
            var planner = inForce.planner
            planner.rules = rules
            inForce = PlannerInForce(planner)
        }
    }

    /// The JSON objects of `value` (`RecordScan.objectCount`): every valid device is an object of its own, and the
    /// text of a message cannot raise the bound (a device entry that is not an object is dead-lettered and not
    /// counted). One pass over the bytes, far cheaper than decoding.
    public func deviceBound(_ value: [UInt8]) -> Int { RecordScan(value).objectCount }

    /// The bound read from `scan`, which has counted the objects already.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<ProviderSend> {
        PreparedPlan(deviceBound: scan.objectCount) { nowMillis in self.plan(value, nowMillis: nowMillis) }
    }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<ProviderSend>, UndecodableEvent> {
        let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
        let event: ChatMessageEvent
        do {
            event = try decoder.decode(value, now: now)
        } catch {
            return .failure(UndecodableEvent(reason: error.reason, message: error.description))
        }
        let inForce = planner.withLock { $0 }
        let appID = event.appID
        let standing = apps.standing(ofApp: appID)
        let refusal = standing.refusal
        // What the plan keeps of the event, taken before the planner takes the event itself. The record's bytes,
        // not the event, for the narrowed retry records: a closure holding the event would copy all of it.
        let hasInvalidDevices = !event.invalidDevices.isEmpty
        let source = event.source
        let (messageId, roomId, type) = (event.id, event.room.id, event.type)
        let eventTimeMillis = event.createdAtEpochMillis
        let decisions = inForce.plan(consume event, now: now, context: standing.context)
        // An unusable entry (bad token syntax, unknown platform) has no `Device`: its receipt names what the event
        // said, read from the record's tree, parsed only for such an event.
        let tree = hasInvalidDevices ? try? JSONParser.parse(value) : nil
        let devices = decisions.map { decision in
            let entry = decision.device == nil ? tree.flatMap { Self.entry(at: decision.address, in: $0) } : nil
            let token = decision.device?.token ?? entry?["token"]?.stringValue ?? ""
            let platform = decision.device?.platform.rawValue ?? entry?["platform"]?.stringValue ?? "unknown"
            let target = DeviceTarget(
                userId: decision.userID, platform: platform, token: token, tokenHash: SHA256.tokenHash(token),
                app: refusal == nil ? Self.app(of: decision.outcome) : nil)
            let action = Self.action(for: decision.outcome, token: token, appID: appID)
            // Not `refusal.map { action.refused($0) } ?? action`: the closure would copy the action.
            let decided = if let refusal { action.refused(refusal) } else { action }
            return PlannedDevice(target: target, decision: decided)
        }
        let addresses = decisions.map(\.address)
        var planned = PlannedEvent(
            messageId: messageId, roomId: roomId, type: type, eventTimeMillis: eventTimeMillis, devices: devices,
            narrowed: { indices in ChatMessageEvent.narrowed(source, to: indices.map { addresses[$0] }) })
        // A resolved IMKIT message's retry record carries its appID too: the guard's scope stays the app's.
        planned.appID = appID
        return .success(planned)
    }

    /// The APNs topic, FCM project or Web Push service origin a send goes to (`nil` when nothing is sent).
    static func app(of outcome: DeviceDecision.Outcome) -> String? {
        guard case .send(let request) = outcome else { return nil }
        if request.platform == .web {
            // The endpoint's `https://host[:port]`: its path names the subscription, its origin only the service.
            let rest = request.path.utf8.drop { $0 != UInt8(ascii: "/") }.dropFirst(2)
            let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
            return "https://" + String(Substring(authority)).lowercased()
        }
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

    /// The device action of a core decision; a send carries `appID`, whose credentials send it.
    static func action(for outcome: DeviceDecision.Outcome, token: String, appID: String)
        -> DeviceAction<ProviderSend>
    {
        switch outcome {
        case .send(let request):
            let provider: PushProvider =
                switch request.platform {
                case .apns, .apnsVoip: .apns
                case .fcm: .fcm
                case .web: .webpush
                }
            return .send(provider, ProviderSend(request: request, deviceToken: token, appID: appID))
        case .skipped(let reason):
            return .skipped(reason: reason)
        case .expired:
            return .expired
        case .deadLetter(let error):
            return .deadLetter(reason: error.reason, message: error.description)
        }
    }
}
