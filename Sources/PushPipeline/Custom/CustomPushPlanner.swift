import Essentials
import Foundation
public import PushCore

/// The planner port for input topics that carry custom pushes beside other records: a record whose JSON object has
/// `clients` and no `sender` is a custom push, its clients resolved through the device registry
/// (`ClientDevices`) and each device's request built from the payload (`CustomPushRequestBuilder`); every other
/// record goes to `events` untouched.
///
/// The push's `appID` picks the APNs topic and FCM project (`AppContexts`); the sends of an app that cannot send are
/// `rejected` with the refusal's code.
///
/// A client's room mutes do not apply (a custom push belongs to no room); `notificationEnabled: false` does. The
/// retry and dead-letter records of a custom push are the push with `recipients`: the devices resolved the first
/// time, narrowed to those still to send, which are sent to as listed.
public struct CustomPushPlanner: EventPlanner {
    let events: any EventPlanner<ProviderSend>
    let directory: any DeviceDirectory
    let apps: any AppContexts
    let decoder: CustomPushDecoder
    /// The most devices of one client that are pushed to (the event contract's limit per recipient).
    let maximumDevicesPerClient: Int

    /// The receipts' `type` of a custom push without a `type` of its own.
    public static let defaultType = "custom"

    public init(
        events: any EventPlanner<ProviderSend>, directory: any DeviceDirectory, apps: any AppContexts,
        decoder: CustomPushDecoder = CustomPushDecoder()
    ) {
        self.events = events
        self.directory = directory
        self.apps = apps
        self.decoder = decoder
        self.maximumDevicesPerClient = decoder.limits.maximumDevicesPerRecipient
    }

    /// For a custom push, its devices; for others, `events`' bound.
    public func deviceBound(_ value: [UInt8]) -> Int { prepare(value).deviceBound }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<ProviderSend>, UndecodableEvent> {
        guard let decoded = customPush(value, scan: RecordScan(value)) else {
            return events.plan(value, nowMillis: nowMillis)
        }
        switch decoded {
        case .success(let push): return plan(push, targets: targets(of: push), nowMillis: nowMillis)
        case .failure(let error): return .failure(UndecodableEvent(reason: error.reason, message: error.description))
        }
    }

    /// A custom push is decoded and its clients looked up in the registry once, here: the bound is its devices, and
    /// planning sends to the same ones.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<ProviderSend> {
        guard let decoded = customPush(value, scan: scan) else { return events.prepare(value, scan: scan) }
        switch decoded {
        case .success(let push):
            let targets = targets(of: push)
            return PreparedPlan(deviceBound: max(1, targets.count)) { nowMillis in
                plan(push, targets: targets, nowMillis: nowMillis)
            }
        case .failure(let error):
            let undecodable = UndecodableEvent(reason: error.reason, message: error.description)
            return PreparedPlan(deviceBound: 1) { _ in .failure(undecodable) }
        }
    }

    private func plan(_ push: CustomPush, targets: [Target], nowMillis: Int64) -> Result<
        PlannedEvent<ProviderSend>, UndecodableEvent
    > {
        let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
        let standing = apps.standing(ofApp: push.appID)
        let builder = CustomPushRequestBuilder(
            context: standing.context ?? ProviderContext(apnsTopic: "", fcmProjectID: ""))
        let devices = targets.map { target in
            switch target.kind {
            case .unsent(let unsent):
                return PlannedDevice<ProviderSend>(unsent: unsent)
            case .invalid(let error, let token, let platform):
                return PlannedDevice(
                    target: DeviceTarget(
                        userId: target.clientID, platform: platform, token: token, tokenHash: SHA256.tokenHash(token)),
                    decision: .deadLetter(reason: error.reason, message: error.description))
            case .device(let device):
                let outcome = builder.outcome(for: push, device: device, now: now)
                let action = CorePlanner.action(for: outcome, token: device.token, appID: push.appID)
                let refusal = standing.refusal
                return PlannedDevice(
                    target: DeviceTarget(
                        userId: target.clientID, platform: device.platform.rawValue, token: device.token,
                        tokenHash: SHA256.tokenHash(device.token),
                        app: refusal == nil ? CorePlanner.app(of: outcome) : nil),
                    decision: refusal.map { action.refused($0) } ?? action)
            }
        }
        var planned = PlannedEvent(
            messageId: push.id, roomId: push.id, type: push.payload.type ?? Self.defaultType,
            eventTimeMillis: nil, devices: devices,
            narrowed: { indices in Self.narrowed(push, to: indices.map { targets[$0] }) })
        planned.appID = push.appID
        return .success(planned)
    }

    /// One planned device of a custom push, with what a narrowed record lists for it.
    struct Target: Sendable {
        enum Kind: Sendable {
            case device(Device)
            /// An unusable entry of a retry record's `recipients`.
            case invalid(EventError, token: String, platform: String)
            /// A registry device, or a client, that gets no send.
            case unsent(UnsentDevice)
        }
        var clientID: String
        var kind: Kind
        /// The device's entry in a narrowed record's `recipients`; `nil` for what is never sent (`unsent`).
        var entry: JSONValue?
    }

    /// The listed `recipients` of a retry record, else the clients' devices in the registry, then those that get
    /// no send, in the order of the clients.
    private func targets(of push: CustomPush) -> [Target] {
        if let recipients = push.recipients { return Self.listed(recipients, of: push) }
        var targets: [Target] = []
        var unsent: [Target] = []
        for clientID in push.clients {
            let lookup = ClientDevices(
                of: ClientKey(appID: push.appID, clientID: clientID), in: directory,
                maximumDevices: maximumDevicesPerClient)
            targets += lookup.reachable.map { device, _ in
                Target(clientID: clientID, kind: .device(device), entry: Self.entry(device))
            }
            unsent += lookup.unsent.map { Target(clientID: clientID, kind: .unsent($0), entry: nil) }
        }
        return targets + unsent
    }

    private static func listed(_ recipients: [ChatMessageEvent.Recipient], of push: CustomPush) -> [Target] {
        let originals = push.original["recipients"]
        return recipients.enumerated().flatMap { recipientIndex, recipient in
            recipient.devices.enumerated().map { deviceIndex, device in
                let address = DeviceAddress(recipient: recipientIndex, device: deviceIndex)
                guard let device else {
                    let entry = entry(at: address, in: originals)
                    let error =
                        push.invalidDevices[address]
                        ?? EventError(.decodeError, path: address.description, "invalid device")
                    return Target(
                        clientID: recipient.userID,
                        kind: .invalid(
                            error, token: entry?["token"]?.stringValue ?? "",
                            platform: entry?["platform"]?.stringValue ?? "unknown"),
                        entry: entry)
                }
                return Target(clientID: recipient.userID, kind: .device(device), entry: entry(device))
            }
        }
    }

    private static func entry(at address: DeviceAddress, in recipients: JSONValue?) -> JSONValue? {
        guard case .array(let values)? = recipients, values.indices.contains(address.recipient),
            case .array(let devices) = values[address.recipient]["devices"], devices.indices.contains(address.device)
        else { return nil }
        return devices[address.device]
    }

    private static func entry(_ device: Device) -> JSONValue {
        var fields = [
            JSONMember("platform", .string(device.platform.rawValue)), JSONMember("token", .string(device.token)),
        ]
        if let topic = device.topic { fields.append(JSONMember("topic", .string(topic))) }
        if device.sandbox { fields.append(JSONMember("sandbox", .bool(true))) }
        return .object(fields)
    }

    /// The push as a record listing only `targets` as its `recipients` (one per client, in order), every other
    /// member unchanged.
    static func narrowed(_ push: CustomPush, to targets: [Target]) -> [UInt8] {
        var clients: [(id: String, devices: [JSONValue])] = []
        for target in targets {
            guard let entry = target.entry else { continue }
            if let last = clients.indices.last, clients[last].id == target.clientID {
                clients[last].devices.append(entry)
            } else {
                clients.append((target.clientID, [entry]))
            }
        }
        let recipients = JSONValue.array(
            clients.map { client in
                .object([JSONMember("userId", .string(client.id)), JSONMember("devices", .array(client.devices))])
            })
        guard case .object(var members) = push.original else { return JSONWriter.encode(push.original) }
        members.removeAll { $0.key == "recipients" || $0.key == "id" }
        members.append(JSONMember("id", .string(push.id)))
        members.append(JSONMember("recipients", recipients))
        return JSONWriter.encode(.object(members))
    }

    /// The decoding of `value` when it is a custom push; `nil` when it is not. Only a record whose `scan` found the
    /// name `clients` is parsed here, so other records are parsed only by `events`.
    private func customPush(_ value: [UInt8], scan: RecordScan) -> Result<CustomPush, EventError>? {
        guard scan.namesClients else { return nil }
        guard value.count <= decoder.limits.maximumRecordBytes else {
            return Result { () throws(EventError) in try decoder.decode(value) }
        }
        guard let root = try? JSONParser.parse(value),
            CustomPushDecoder.isCustomPush(root)
        else { return nil }
        return Result { () throws(EventError) in try decoder.decode(root) }
    }
}
