public import KafkaTypes
public import PushCore

/// The provider a request goes to; in-flight limits and failure breakers are per provider.
public enum PushProvider: String, Sendable, Hashable, CaseIterable {
    case apns
    case fcm
    /// Web Push (RFC 8030) to the push service of each `web` device's endpoint.
    case webpush
}

/// One device of one recipient, as receipts and narrowed events name it.
public struct DeviceTarget: Sendable, Hashable {
    public var userId: String
    /// `apns`, `apns-voip`, `fcm` or `web`, as in the event.
    public var platform: String
    /// The raw device token: only ever written to invalid-token records and narrowed events.
    public var token: String
    /// `sha256:` and the hex SHA-256 of the token.
    public var tokenHash: String
    /// The APNs topic (bundle id) or FCM project the send goes to, when there is a send.
    public var app: String?

    public init(userId: String, platform: String, token: String, tokenHash: String, app: String? = nil) {
        self.userId = userId
        self.platform = platform
        self.token = token
        self.tokenHash = tokenHash
        self.app = app
    }
}

/// What to do for one device of an event.
public enum DeviceAction<Request: Sendable>: Sendable {
    /// Send `request` to `provider`.
    case send(PushProvider, Request)
    /// Not sent on purpose (a skip rule or a muted recipient); `reason` goes into the receipt.
    case skipped(reason: SkipReason)
    /// Older than its rule's time to live: not sent.
    case expired
    /// Refused before sending, for good: the message's app cannot send (`AppRefusal`); `reason` goes into the
    /// `rejected` receipt.
    case rejected(reason: String)
    /// Cannot be sent (e.g. `payload_too_large`, `unknown_type`): dead-lettered with this reason code.
    case deadLetter(reason: DeadLetterReason, message: String)
}

extension DeviceAction {
    /// The provider of a send; `nil` for every other decision.
    public var provider: PushProvider? {
        guard case .send(let provider, _) = self else { return nil }
        return provider
    }
}

/// One device of an event and the decision for it.
public struct PlannedDevice<Request: Sendable>: Sendable {
    public var target: DeviceTarget
    public var decision: DeviceAction<Request>

    public init(target: DeviceTarget, decision: DeviceAction<Request>) {
        self.target = target
        self.decision = decision
    }
}

/// A decoded event with a decision per device.
public struct PlannedEvent<Request: Sendable>: Sendable {
    public var messageId: String
    public var roomId: String
    public var type: String
    /// When the message was created, in epoch milliseconds, if the event says.
    public var eventTimeMillis: Int64?
    public var devices: [PlannedDevice<Request>]
    /// The IMKIT app the message belongs to (`appID`; the empty string is the default app): the scope of the
    /// token-invalidation guard.
    public var appID = ""
    /// Records the event passes on instead of sending (the `assigned` registry scope's fan-out records): produced with
    /// its other outputs, so the input offset is committed only once Kafka acknowledged them.
    public var forwarded: [KafkaProducerRecord] = []
    /// The event narrowed to some of its devices (indices into `devices`): a valid event that,
    /// replayed, sends only to them. Retry and dead-letter records carry it.
    public var narrowed: @Sendable ([Int]) -> [UInt8]

    public init(
        messageId: String, roomId: String, type: String, eventTimeMillis: Int64?, devices: [PlannedDevice<Request>],
        narrowed: @escaping @Sendable ([Int]) -> [UInt8]
    ) {
        self.messageId = messageId
        self.roomId = roomId
        self.type = type
        self.eventTimeMillis = eventTimeMillis
        self.devices = devices
        self.narrowed = narrowed
    }
}

/// A record value that is not a valid event: dead-lettered with its original bytes.
public struct UndecodableEvent: Error, Sendable, Equatable {
    /// Why, e.g. `decode_error`.
    public var reason: DeadLetterReason
    /// What is wrong, naming the field; never containing a device token.
    public var message: String

    public init(reason: DeadLetterReason, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// Turns record values into per-device decisions.
public protocol EventPlanner<Request>: Sendable {
    associatedtype Request: Sendable
    /// The decisions for the event in `value`, as of `nowMillis` (for time to live).
    func plan(_ value: [UInt8], nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent>
    /// How many devices `plan` returns for `value` at most, read without decoding it (the pipeline's device budget
    /// is taken before planning, so that records waiting for it hold no planned requests). A bound too low only
    /// lets the record take the rest of its devices from the budget without waiting.
    func deviceBound(_ value: [UInt8]) -> Int
    /// `value`'s device bound and its planning at once, for a planner whose bound needs the work planning needs too
    /// (a registry lookup): the pipeline takes the bound, waits for its devices, then plans. `scan` is `value`'s,
    /// made once for every planner the record passes through. By default `deviceBound`, then `plan`.
    func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request>
    /// `prepare(_:scan:)` for a record as Kafka handed it over, for a planner that needs to know where it was read
    /// (the fan-out stage's checks its partition: `OwnPartitionPlanner`). By default its value's preparation.
    func prepare(_ record: KafkaRecord, scan: RecordScan) -> PreparedPlan<Request>
}

extension EventPlanner {
    public func prepare(_ value: [UInt8], scan: RecordScan) -> PreparedPlan<Request> {
        PreparedPlan(deviceBound: deviceBound(value)) { nowMillis in plan(value, nowMillis: nowMillis) }
    }

    /// `prepare(_:scan:)` with `value`'s scan.
    public func prepare(_ value: [UInt8]) -> PreparedPlan<Request> { prepare(value, scan: RecordScan(value)) }

    public func prepare(_ record: KafkaRecord, scan: RecordScan) -> PreparedPlan<Request> {
        prepare(record.value, scan: scan)
    }

    /// `prepare(_:scan:)` of `record` with its value's scan.
    public func prepare(_ record: KafkaRecord) -> PreparedPlan<Request> {
        prepare(record, scan: RecordScan(record.value))
    }
}

/// A record prepared for planning (`EventPlanner.prepare`): its device bound, and the rest of its planning, as of a
/// time given later.
public struct PreparedPlan<Request: Sendable> {
    /// As `EventPlanner.deviceBound`.
    public let deviceBound: Int
    private let planning: (Int64) -> Result<PlannedEvent<Request>, UndecodableEvent>

    public init(
        deviceBound: Int, plan: @escaping (_ nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent>
    ) {
        self.deviceBound = deviceBound
        planning = plan
    }

    /// The decisions, as of `nowMillis` (as `EventPlanner.plan`).
    public func plan(nowMillis: Int64) -> Result<PlannedEvent<Request>, UndecodableEvent> { planning(nowMillis) }

    /// The same bound, with `transform` applied to the planning's result.
    public func map(
        _ transform:
            @escaping (consuming Result<PlannedEvent<Request>, UndecodableEvent>, _ nowMillis: Int64) -> Result<
                PlannedEvent<Request>, UndecodableEvent
            >
    ) -> PreparedPlan<Request> {
        let planning = planning
        return PreparedPlan(deviceBound: deviceBound) { nowMillis in transform(planning(nowMillis), nowMillis) }
    }
}
