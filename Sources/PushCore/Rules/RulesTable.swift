/// The rules table: a push rule per message type, and what to do with a type it does not list.
public struct RulesTable: Sendable, Equatable {
    /// What happens to an event whose type the table does not list.
    public enum UnknownTypePolicy: Sendable, Equatable {
        /// Push it with this generic rule.
        case fallback(PushRule)
        /// Record every device as skipped.
        case skip
        /// Send the event to the dead-letter topic (`unknown_type`).
        case deadLetter
    }

    /// The rule of every listed type.
    public var types: [String: PushRule]
    public var unknownType: UnknownTypePolicy
    /// Shown instead of a missing nickname, so a lock screen never says "null".
    public var anonymousName: String
    /// The language every localized text has (`defaultLocale`, default `en`): the last resort for a reader whose
    /// language a text does not name.
    public var defaultLocale: LanguageTag

    public init(
        types: [String: PushRule], unknownType: UnknownTypePolicy, anonymousName: String,
        defaultLocale: LanguageTag = .english
    ) {
        self.types = types
        self.unknownType = unknownType
        self.anonymousName = anonymousName
        self.defaultLocale = defaultLocale
    }

    /// How an event of `type` is handled: a rule, or the unknown-type policy when the table does not list it.
    public func rule(for type: String) -> RuleLookup {
        if let rule = types[type] { return .listed(rule) }
        switch unknownType {
        case .fallback(let rule): return .fallback(rule)
        case .skip: return .skip
        case .deadLetter: return .deadLetter
        }
    }

    /// The answer of `rule(for:)`.
    public enum RuleLookup: Sendable, Equatable {
        case listed(PushRule)
        case fallback(PushRule)
        case skip
        case deadLetter
    }
}
