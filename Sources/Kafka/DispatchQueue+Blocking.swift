import Dispatch
import Essentials

extension DispatchQueue {
    /// Runs a blocking librdkafka call on this queue, off Swift's cooperative thread pool, and awaits its result.
    func blocking<Value: Sendable>(
        _ body: @escaping @Sendable () throws(KafkaError) -> Value
    ) async throws(KafkaError) -> Value {
        let result: Result<Value, KafkaError> = await withCheckedContinuation { continuation in
            self.async { continuation.resume(returning: Result { () throws(KafkaError) in try body() }) }
        }
        return try result.get()
    }
}

extension Duration {
    /// Whole milliseconds, clamped to what librdkafka's `int timeout_ms` parameters accept.
    var milliseconds: Int32 { Int32(clamping: max(wholeMilliseconds, 0)) }
}
