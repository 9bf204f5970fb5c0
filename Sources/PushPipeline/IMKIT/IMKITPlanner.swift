import Essentials
import Foundation
public import PushCore

/// The planner port for input topics that carry IMKIT messages beside chat-message events: a record whose JSON object
/// has `messageType` is an IMKIT message, resolved through the device registry (`IMKITResolver`) into a chat-message
/// event that `events` plans like any other; every other record goes to `events` untouched.
///
/// The clients and devices the resolution leaves out follow the event's devices, each `skipped` with its reason
/// (`no_devices` with platform `none`, `notifications_off`, `platform` for `web`), so analysts count unreachable
/// clients from the receipts.
public struct IMKITPlanner<Request: Sendable>: EventPlanner {
    let events: any EventPlanner<Request>
    let directory: any DeviceDirectory
    let decoder: IMKITMessageDecoder
    let resolver: IMKITResolver

    public init(
        events: any EventPlanner<Request>, directory: any DeviceDirectory,
        decoder: IMKITMessageDecoder = IMKITMessageDecoder(),
        resolver: IMKITResolver = IMKITResolver()
    ) {
        self.events = events
        self.directory = directory
        self.decoder = decoder
        self.resolver = resolver
    }

    /// For an IMKIT message, its resolved devices (the bound must count devices the record does not list); for an
    /// event, `events`' bound.
    public func deviceBound(_ value: [UInt8]) -> Int { prepare(value).deviceBound }

    public func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        guard let message = imkitMessage(value, scan: RecordScan(value)) else {
            return events.plan(value, nowMillis: nowMillis)
        }
        return plan(message, resolved: nil, nowMillis: nowMillis)
    }

    /// An IMKIT message is decoded and resolved through the registry once, here: the bound is its resolved devices,
    /// and planning uses the same resolution (a registry change while the record waits for its devices applies to
    /// the next message). Planning decodes it again as of its own time, which bounds the message's time only.
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        guard let message = imkitMessage(value, scan: scan) else { return events.prepare(value, scan: scan) }
        // A message refused here is refused by planning too, which resolves nothing then.
        guard case .success(let decoded) = message(Date()) else {
            return PreparedPlan(deviceBound: 1) { nowMillis in plan(message, resolved: nil, nowMillis: nowMillis) }
        }
        let resolution = resolver.resolve(decoded, in: directory)
        return PreparedPlan(deviceBound: max(1, resolution.deviceCount + resolution.unsent.count)) { nowMillis in
            plan(message, resolved: resolution, nowMillis: nowMillis)
        }
    }

    /// Plans a decoded IMKIT message: resolved through the registry unless `resolved` already is its resolution.
    private func plan(
        _ message: (Date) -> Result<IMKITMessage, EventError>, resolved: IMKITResolution?, nowMillis: Int64
    ) -> Result<PlannedEvent<Request>, UndecodableEvent> {
        let now = Date(timeIntervalSince1970: Double(nowMillis) / 1000)
        let decoded: IMKITMessage
        switch message(now) {
        case .success(let value): decoded = value
        case .failure(let error): return .failure(UndecodableEvent(reason: error.reason, message: error.description))
        }
        let resolution = resolved ?? resolver.resolve(decoded, in: directory)
        return events.plan(JSONWriter.encode(resolution.event), nowMillis: nowMillis).map { planned in
            var planned = planned
            planned.appID = decoded.appID
            let sent = planned.devices.count
            planned.devices += resolution.unsent.map(PlannedDevice.init(unsent:))
            let narrowed = planned.narrowed
            planned.narrowed = { indices in narrowed(indices.filter { $0 < sent }) }
            return planned
        }
    }

    /// The decoding of `value` when it is an IMKIT message; `nil` when it is not (no `"messageType"` at its top
    /// level). Only a record whose `scan` found the name is parsed here, so chat-message events are parsed only by
    /// `events`.
    private func imkitMessage(_ value: [UInt8], scan: RecordScan) -> ((Date) -> Result<IMKITMessage, EventError>)? {
        guard scan.namesMessageType, let root = try? JSONParser.parse(value),
            IMKITMessageDecoder.isIMKITMessage(root)
        else { return nil }
        return { now in Result { () throws(EventError) in try decoder.decode(root, now: now) } }
    }

}
