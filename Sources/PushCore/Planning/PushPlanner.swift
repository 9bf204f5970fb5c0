import Essentials
public import Foundation

/// Decides, for every device of an event, whether to send (and the exact request), skip, expire or dead-letter.
///
/// Pure: the time comes in as `now`; the same inputs always give the same decisions and bytes.
public struct PushPlanner: Sendable {
    public var rules: RulesTable
    public var context: ProviderContext
    /// The language of recipients without a `locale` or with one no text names (`PUSH_DEFAULT_LOCALE`); when it
    /// has no text either, the table's `defaultLocale` does.
    public var defaultLocale: LanguageTag?

    public init(rules: RulesTable, context: ProviderContext, defaultLocale: LanguageTag? = nil) {
        self.rules = rules
        self.context = context
        self.defaultLocale = defaultLocale
    }

    /// One decision per device address of `event`, in event order.
    public func plan(_ event: ChatMessageEvent, now: Date) -> [DeviceDecision] {
        plan(event, now: now, context: context)
    }

    /// `plan(_:now:)` with the apps of `context` in place of the planner's own (the message's app); the planner's
    /// when `nil`. The event is taken, not borrowed: the renderers of its rule keep it, and a caller done with it
    /// hands it over (`consume`) where a copy would retain each of its strings.
    public func plan(_ event: consuming ChatMessageEvent, now: Date, context: ProviderContext?) -> [DeviceDecision] {
        let context = context ?? self.context
        let skipsUnknownType: Bool
        switch rules.rule(for: event.type) {
        case .listed(let rule), .fallback(let rule):
            // The event moves into the source the renderers share, and its parts are read there: handed on whole, it
            // would be copied, a retain of each of its strings.
            let source = RenderSource(rule: rule, event: consume event, anonymousName: rules.anonymousName)
            let planner = EventPlan(
                source: source, skipsUnknownType: false, type: source.event.type,
                invalidDevices: source.event.invalidDevices, createdAt: source.event.createdAt, rules: rules,
                context: context, defaultLocale: defaultLocale, now: now)
            return decisions(of: source.event.recipients, planner)
        case .skip: skipsUnknownType = true
        case .deadLetter: skipsUnknownType = false
        }
        let planner = EventPlan(
            source: nil, skipsUnknownType: skipsUnknownType, type: event.type, invalidDevices: event.invalidDevices,
            createdAt: event.createdAt, rules: rules, context: context, defaultLocale: defaultLocale, now: now)
        return decisions(of: event.recipients, planner)
    }

    /// One decision per device of `recipients` (the event's), made by `planner`.
    private func decisions(
        of recipients: [ChatMessageEvent.Recipient], _ planner: consuming EventPlan
    ) -> [DeviceDecision] {
        var decisions: [DeviceDecision] = []
        decisions.reserveCapacity(recipients.reduce(0) { $0 + $1.devices.count })
        for (recipientIndex, recipient) in recipients.enumerated() {
            let renderer = planner.renderer(for: recipient)
            for (deviceIndex, device) in recipient.devices.enumerated() {
                let address = DeviceAddress(recipient: recipientIndex, device: deviceIndex)
                let outcome = planner.outcome(for: device, of: recipient, at: address, renderer: renderer)
                let locale: LanguageTag? = if case .send = outcome { renderer?.texts.language } else { nil }
                decisions.append(
                    DeviceDecision(
                        address: address, userID: recipient.userID, device: device, outcome: outcome, locale: locale))
            }
        }
        return decisions
    }
}

/// The work shared by every device of one event: the rule, the rendering, the size fitting and the expiry.
///
/// It holds the rule and the event once, in the renderers' shared source (a copy of either retains every string in
/// it), and the few parts of the event a decision reads besides the recipient.
private struct EventPlan {
    /// The rule and event every renderer of the event shares; `nil` when the event's type has no rule.
    let source: RenderSource?
    /// What a type without a rule gets: skipped (`unknownType.policy` "skip"), else dead-lettered.
    let skipsUnknownType: Bool
    /// The languages tried after the recipient's own: `PUSH_DEFAULT_LOCALE`, then the table's `defaultLocale`.
    let defaultLocale: LanguageTag?
    let tableDefaultLocale: LanguageTag
    let apns: APNsRequestBuilder
    var fcm: FCMRequestBuilder
    /// Whether the app sends Web Push (it has VAPID keys).
    let sendsWebPush: Bool
    let now: Date
    /// The size fitting of each platform and language's texts, made for its first device and shared by the others:
    /// an event renders once per platform, language and byte budget (badge), never per device. A few entries at
    /// most (platforms × languages), found by comparison: cheaper than hashing the texts for every device.
    var fittings: [(key: FittingKey, fitting: SizeFitting)] = []
    /// The renderer of the last recipient's language: a group chat's recipients mostly share one (or have none), so
    /// the rule's texts are looked up and the renderer made once for them, not per recipient.
    private var lastRenderer: (locale: LanguageTag?, renderer: PushRenderer)?

    struct FittingKey: Equatable {
        var platform: Platform
        var texts: FallbackTexts
    }

    /// The event's type, for the dead-letter message of a type without a rule.
    let type: String
    /// The event's unusable device entries, with why.
    let invalidDevices: [DeviceAddress: EventError]
    /// When the time to live of the event's pushes starts (`ChatMessageEvent.timeToLiveStart`).
    let timeToLiveStart: Date

    init(
        source: RenderSource?, skipsUnknownType: Bool, type: String, invalidDevices: [DeviceAddress: EventError],
        createdAt: Date?, rules: RulesTable, context: ProviderContext, defaultLocale: LanguageTag?, now: Date
    ) {
        self.source = source
        self.skipsUnknownType = skipsUnknownType
        self.type = type
        self.invalidDevices = invalidDevices
        timeToLiveStart = EventTime.timeToLiveStart(createdAt: createdAt, now: now)
        self.now = now
        self.defaultLocale = defaultLocale
        tableDefaultLocale = rules.defaultLocale
        apns = APNsRequestBuilder(context: context)
        fcm = FCMRequestBuilder(context: context)
        sendsWebPush = context.sendsWebPush
    }

    /// The renderer of the rule's texts in `recipient`'s language; `nil` when the event's type has no rule.
    mutating func renderer(for recipient: ChatMessageEvent.Recipient) -> PushRenderer? {
        guard let source else { return nil }
        if let lastRenderer, lastRenderer.locale == recipient.locale { return lastRenderer.renderer }
        let texts = FallbackTexts(
            title: source.rule.title, body: source.rule.body,
            preferring: LanguagePreferences(recipient.locale, defaultLocale, tableDefaultLocale))
        let renderer = PushRenderer(source: source, texts: texts)
        lastRenderer = (recipient.locale, renderer)
        return renderer
    }

    mutating func outcome(
        for device: Device?, of recipient: ChatMessageEvent.Recipient, at address: DeviceAddress,
        renderer: PushRenderer?
    ) -> DeviceDecision.Outcome {
        guard let device else {
            return .deadLetter(
                invalidDevices[address] ?? EventError(.decodeError, path: address.description, "invalid device"))
        }
        guard let renderer else {
            if skipsUnknownType { return .skipped(.unknownType) }
            return .deadLetter(EventError(.unknownType, path: "type", "type '\(type)' is not in the rules table"))
        }
        // Read in place: a copy of the rule would retain each of its strings, for every device.
        let kind = renderer.source.rule.kind
        let timeToLiveSeconds = renderer.source.rule.timeToLiveSeconds
        if kind == .skip { return .skipped(.rule) }
        if recipient.muted, kind != .silent { return .skipped(.muted) }
        guard accepts(device.platform, kind) else { return .skipped(.platform) }
        let expiresAt = timeToLiveStart.addingTimeInterval(TimeInterval(timeToLiveSeconds))
        if timeToLiveSeconds > 0, now > expiresAt { return .expired }
        let expiresAtSeconds = Int(clampingRoundedDown: expiresAt.timeIntervalSince1970)
        let platform = device.platform
        // Compared in place; the key (a copy of the texts) is made only for a new fitting.
        let index =
            fittings.firstIndex { $0.key.platform == platform && $0.key.texts == renderer.texts }
            ?? {
                let key = FittingKey(platform: platform, texts: renderer.texts)
                fittings.append((key, Self.fitting(for: platform, renderer)))
                return fittings.count - 1
            }()
        // Changed in place in the array, so the shared caches are not copied.
        guard let (push, body) = fittings[index].fitting.fittedBody(token: device.token, badge: recipient.badge) else {
            return .deadLetter(
                EventError(
                    .payloadTooLarge, path: address.description,
                    "the \(platform.rawValue) request does not fit \(PayloadLimit.bytes(for: platform)) bytes even with every text cut"
                ))
        }
        switch platform {
        case .apns, .apnsVoip:
            return .send(apns.request(push, device: device, body: body, expiresAt: expiresAtSeconds))
        case .fcm:
            return .send(fcm.request(body: body, expiresAt: expiresAtSeconds))
        case .web:
            // The decoder checked the token: a failure here is an invariant broken, not bad input.
            guard let subscription = try? WebPushSubscription(token: device.token) else {
                return .deadLetter(EventError(.decodeError, path: address.description, "invalid web subscription"))
            }
            return .send(
                WebPushRequestBuilder.request(
                    to: subscription, body: body, visible: kind != .silent, collapseKey: push.collapseKey,
                    timeToLiveSeconds: expiresAtSeconds.addingClamped(
                        -Int(clampingRoundedDown: now.timeIntervalSince1970)),
                    expiresAt: expiresAtSeconds))
        }
    }

    private func accepts(_ platform: Platform, _ kind: PushRule.Kind) -> Bool {
        switch (platform, kind) {
        case (.apnsVoip, .voip), (.fcm, _): true
        case (.apnsVoip, _), (.apns, .voip): false
        case (.apns, _): true
        case (.web, _): sendsWebPush
        }
    }

    /// The size fitting of `platform`'s requests, measuring the body its builder writes.
    private static func fitting(for platform: Platform, _ renderer: PushRenderer) -> SizeFitting {
        let limit = PayloadLimit.bytes(for: platform)
        switch platform {
        case .apns, .apnsVoip:
            let voip = platform == .apnsVoip
            return SizeFitting(
                limit: limit, renderer: renderer,
                body: { push, _, badge in APNsRequestBuilder.body(push, voip: voip, badge: badge) }, token: nil)
        case .fcm:
            return SizeFitting(
                limit: limit, renderer: renderer, body: FCMRequestBuilder.body,
                token: (FCMRequestBuilder.tokenOffset, FCMRequestBuilder.tokenBytes))
        case .web:
            return SizeFitting(
                limit: limit, renderer: renderer,
                body: { push, _, badge in WebPushRequestBuilder.body(push, badge: badge) },
                token: nil)
        }
    }
}
