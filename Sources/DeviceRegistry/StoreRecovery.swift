/// A damaged file a store found at opening and moved aside, to be rebuilt from the topics.
public struct StoreRecovery: Sendable, Equatable {
    /// The damaged file's path.
    public var file: String
    /// Where it is now.
    public var movedTo: String
    /// What was wrong, as a metric label: `meta`, `truncated`, `page` or `unreadable`.
    public var reason: String
    /// What was wrong, in a sentence naming the page or the sizes.
    public var detail: String

    /// Every `reason`.
    public static let reasons = LMDBFileCheck.Damage.Kind.allCases.map(\.rawValue)
}
