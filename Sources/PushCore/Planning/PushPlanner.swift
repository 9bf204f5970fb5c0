import Foundation

/// Decides, for every device of an event, whether to send (and the exact request), skip, expire or dead-letter.
///
/// Pure: the time comes in as `now`; the same inputs always give the same decisions and bytes.
public struct PushPlanner: Sendable {
    public var rules: RulesTable
    public var context: ProviderContext

    public init(rules: RulesTable, context: ProviderContext) {
        self.rules = rules
        self.context = context
    }

    /// One decision per device address of `event`, in event order.
    public func plan(_ event: ChatMessageEvent, now: Date) -> [DeviceDecision] {
        let lookup = rules.rule(for: event.type)
        var decisions: [DeviceDecision] = []
        decisions.reserveCapacity(event.recipients.reduce(0) { $0 + $1.devices.count })
        var planner = EventPlan(event: event, lookup: lookup, rules: rules, context: context, now: now)
        for (recipientIndex, recipient) in event.recipients.enumerated() {
            for (deviceIndex, device) in recipient.devices.enumerated() {
                let address = DeviceAddress(recipient: recipientIndex, device: deviceIndex)
                let outcome = planner.outcome(for: device, of: recipient, at: address)
                decisions.append(
                    DeviceDecision(address: address, userID: recipient.userID, device: device, outcome: outcome))
            }
        }
        return decisions
    }
}

/// The work shared by every device of one event: the rule, the rendering, the size fitting and the expiry.
private struct EventPlan {
    let event: ChatMessageEvent
    let lookup: RulesTable.RuleLookup
    let renderer: PushRenderer?
    let apns: APNsRequestBuilder
    let fcm: FCMRequestBuilder
    let now: Date
    /// The size fitting of each platform, made for its first device and shared by the others.
    var fittings: [Platform: SizeFitting] = [:]

    init(event: ChatMessageEvent, lookup: RulesTable.RuleLookup, rules: RulesTable, context: ProviderContext, now: Date)
    {
        self.event = event
        self.lookup = lookup
        self.now = now
        apns = APNsRequestBuilder(context: context)
        fcm = FCMRequestBuilder(context: context)
        switch lookup {
        case .listed(let rule), .fallback(let rule):
            renderer = PushRenderer(rule: rule, event: event, anonymousName: rules.anonymousName)
        case .skip, .deadLetter:
            renderer = nil
        }
    }

    mutating func outcome(
        for device: Device?, of recipient: ChatMessageEvent.Recipient, at address: DeviceAddress
    ) -> DeviceDecision.Outcome {
        guard let device else {
            return .deadLetter(
                event.invalidDevices[address] ?? EventError(.decodeError, path: address.description, "invalid device"))
        }
        guard let renderer else {
            if lookup == .skip { return .skipped(.unknownType) }
            return .deadLetter(EventError(.unknownType, path: "type", "type '\(event.type)' is not in the rules table"))
        }
        let rule = renderer.rule
        if rule.kind == .skip { return .skipped(.rule) }
        if recipient.muted, rule.kind != .silent { return .skipped(.muted) }
        guard accepts(device.platform, rule.kind) else { return .skipped(.platform) }
        let expiresAt = event.timeToLiveStart(now: now).addingTimeInterval(TimeInterval(rule.timeToLiveSeconds))
        if rule.timeToLiveSeconds > 0, now > expiresAt { return .expired }
        let expiresAtSeconds = Int(clampingRoundedDown: expiresAt.timeIntervalSince1970)
        let platform = device.platform
        // Taken out and put back, so the shared caches are changed in place rather than copied.
        var fitting = fittings.removeValue(forKey: platform) ?? Self.fitting(for: platform, renderer)
        defer { fittings[platform] = fitting }
        guard let trim = fitting.trim(token: platform == .fcm ? device.token : "", badge: recipient.badge) else {
            return .deadLetter(
                EventError(
                    .payloadTooLarge, path: address.description,
                    "the \(platform.rawValue) request does not fit \(fitting.limit) bytes even with every text cut"))
        }
        let push = fitting.rendering(trim)
        switch platform {
        case .apns, .apnsVoip:
            return .send(apns.request(push, device: device, badge: recipient.badge, expiresAt: expiresAtSeconds))
        case .fcm:
            return .send(fcm.request(push, device: device, badge: recipient.badge, expiresAt: expiresAtSeconds))
        }
    }

    private func accepts(_ platform: Platform, _ kind: PushRule.Kind) -> Bool {
        switch (platform, kind) {
        case (.apnsVoip, .voip), (.fcm, _): true
        case (.apnsVoip, _), (.apns, .voip): false
        case (.apns, _): true
        }
    }

    /// The size fitting of `platform`'s requests, measuring the body its builder writes.
    private static func fitting(for platform: Platform, _ renderer: PushRenderer) -> SizeFitting {
        let limit = PayloadLimit.bytes(for: platform)
        switch platform {
        case .apns, .apnsVoip:
            let voip = platform == .apnsVoip
            return SizeFitting(limit: limit, renderer: renderer) { push, _, badge in
                APNsRequestBuilder.body(push, voip: voip, badge: badge)
            }
        case .fcm:
            return SizeFitting(limit: limit, renderer: renderer) { push, token, badge in
                FCMRequestBuilder.body(push, token: token, badge: badge)
            }
        }
    }
}
