import Synchronization

/// Collects the delivery reports of a batch of records, each in its record's place, and hands them over once the
/// last one came (from librdkafka's poll thread, or from the caller for a record that could not be queued).
final class DeliveryReports: Sendable {
    private struct State {
        var reports: [Result<KafkaDeliveryReport, KafkaError>?]
        var missing: Int
    }

    private let state: Mutex<State>
    private let completion: @Sendable ([Result<KafkaDeliveryReport, KafkaError>]) -> Void

    /// Waits for `count` reports (at least one).
    init(count: Int, completion: @escaping @Sendable ([Result<KafkaDeliveryReport, KafkaError>]) -> Void) {
        state = Mutex(State(reports: Array(repeating: nil, count: count), missing: count))
        self.completion = completion
    }

    /// The report of the record at `index`; the last one runs the completion with all of them in order.
    func set(_ index: Int, _ report: Result<KafkaDeliveryReport, KafkaError>) {
        let complete: [Result<KafkaDeliveryReport, KafkaError>]? = state.withLock { state in
            guard state.reports.indices.contains(index), state.reports[index] == nil else { return nil }
            state.reports[index] = report
            state.missing -= 1
            guard state.missing == 0 else { return nil }
            return state.reports.compactMap { $0 }
        }
        if let complete { completion(complete) }
    }
}
