import KafkaTypes

/// Sizes of what the worker writes to Kafka, so that every output fits the producer's `message.max.bytes` (the
/// input side, the largest event accepted, is `EventLimits.maximumRecordBytes(messageMaxBytes:)`). Pure.
enum OutputLimits {
    /// The longest header value written, in UTF-8 bytes (`x-dlq-error` especially: it may quote an event's
    /// hostile `type`); longer texts are cut on a character boundary and end with `…`.
    static let headerValueBytes = 1024

    /// `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, marked with a final `…`.
    static func bounded(_ text: String, maxBytes: Int = headerValueBytes) -> String {
        guard text.utf8.count > maxBytes else { return text }
        let marker = "…"
        let budget = maxBytes - marker.utf8.count
        var used = 0
        var end = text.startIndex
        for character in text {
            let size = character.utf8.count
            guard used + size <= budget else { break }
            used += size
            end = text.index(after: end)
        }
        return text[..<end] + marker
    }
}

extension KafkaHeader {
    /// A header whose value is `text` bounded to `OutputLimits.headerValueBytes`.
    init(name: String, boundedText text: String) {
        self.init(name: name, text: OutputLimits.bounded(text))
    }
}
