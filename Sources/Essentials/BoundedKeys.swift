/// The distinct values a statistic keeps apart, at most `limit` of them; later new values all count as
/// `overflowKey`, so hostile or runaway values cannot grow the statistics without bound. Pure.
public struct BoundedKeys: Sendable {
    public static let overflowKey = "(other)"
    public let limit: Int
    private var admitted: Set<String> = []

    public init(limit: Int) {
        self.limit = limit
    }

    /// `value` itself while it is known or there is room for it, else `overflowKey`.
    public mutating func key(for value: String) -> String {
        if admitted.contains(value) { return value }
        guard admitted.count < limit else { return Self.overflowKey }
        admitted.insert(value)
        return value
    }
}
