/// The id of one replay run, in every receipt (`replayRunId`) and every retry and dead-letter record
/// (`x-replay-run-id`) the run writes. Pure.
public enum ReplayRunID {
    /// The longest id, in UTF-8 bytes: `replay --run-id` and an `x-replay-run-id` header alike.
    public static let maximumBytes = 200

    /// Whether `text` can be a run id: 1 to `maximumBytes` bytes, no control characters.
    public static func isValid(_ text: String) -> Bool {
        (1...maximumBytes).contains(text.utf8.count)
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
