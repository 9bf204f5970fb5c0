import Essentials
import KafkaTypes

/// What the worker's own failure headers (`x-attempts`, `x-first-failure`, `x-retry-due`) say about a record's
/// earlier passes, read only on records of a retry topic and checked there. Pure.
///
/// On any other topic the headers were written by whoever produced the event and are not believed: a hostile
/// `x-attempts: -1` would switch the attempt limit off, `9223372036854775807` would overflow. On a retry topic a
/// value that is not a whole number in range is ignored (and reported in `ignored`); attempts are clamped to
/// `0...maxAttempts`.
struct FailureHistory: Sendable, Equatable {
    /// A failure header that was not taken, for one log line.
    struct IgnoredHeader: Sendable, Equatable {
        var name: String
        var reason: String
    }

    /// Sends made on earlier passes, `0...maxAttempts`.
    var priorAttempts = 0
    /// When the first of them failed, epoch milliseconds.
    var firstFailureMillis: Int64?
    /// When the record is due again, epoch milliseconds; `nil`: now.
    var retryDueMillis: Int64?
    /// Headers present but not taken.
    var ignored: [IgnoredHeader] = []

    /// How far ahead of now a due time or first failure may lie before it counts as forged: a retry is due at
    /// most `PipelineSettings.maxRetryDelay` after it was written, plus clock skew between pods.
    static let futureSkewMillis: Int64 = 60 * 60 * 1000

    /// The history of `record` at `nowMillis`: empty unless it comes from one of `settings`' retry topics.
    init(of record: borrowing KafkaRecord, settings: borrowing PipelineSettings, nowMillis: Int64) {
        guard settings.isRetryTopic(record.topic) else { return }
        let latest = nowMillis.addingClamped(settings.maxRetryDelay.wholeMilliseconds + Self.futureSkewMillis)
        if let text = record.headers.text(FailureHeaders.attempts) {
            if let attempts = Int(text) {
                priorAttempts = min(max(attempts, 0), settings.maxAttempts)
                if priorAttempts != attempts {
                    ignored.append(IgnoredHeader(name: FailureHeaders.attempts, reason: "out of range, clamped"))
                }
            } else {
                ignored.append(IgnoredHeader(name: FailureHeaders.attempts, reason: "not a whole number"))
            }
        }
        firstFailureMillis = read(FailureHeaders.firstFailure, of: record, in: 0...min(nowMillis, latest), "now")
        retryDueMillis = read(FailureHeaders.retryDue, of: record, in: 0...latest, "the longest retry delay ahead")
    }

    /// Only the due time of `record` (no report): what flow control needs on every check.
    static func retryDueMillis(of record: KafkaRecord, settings: borrowing PipelineSettings, nowMillis: Int64) -> Int64?
    {
        FailureHistory(of: record, settings: settings, nowMillis: nowMillis).retryDueMillis
    }

    private mutating func read(
        _ name: String, of record: KafkaRecord, in range: ClosedRange<Int64>, _ upperBound: String
    ) -> Int64? {
        guard let text = record.headers.text(name) else { return nil }
        guard let millis = Int64(text), range.contains(millis) else {
            ignored.append(IgnoredHeader(name: name, reason: "not epoch milliseconds from 0 to \(upperBound)"))
            return nil
        }
        return millis
    }
}
