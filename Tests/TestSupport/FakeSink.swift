import Essentials
public import KafkaTypes
import PushCore
public import PushPipeline
public import Synchronization

/// The error `FakeSink` fails with.
public struct SinkFailure: Error {}

/// A producer that keeps what it was given; it can fail a number of times first.
public final class FakeSink: RecordSink {
    public struct State {
        public var records: [KafkaProducerRecord] = []
        public var failuresLeft = 0
        public var attempts = 0
        /// The values of every record `produce` was called with, failed calls included.
        public var attemptedValues: Set<[UInt8]> = []
        public var flushed = false
        /// Values larger than this are refused for good, like Kafka's `message.max.bytes`.
        public var maximumValueBytes = Int.max
        /// Records whose header values add up to more than this are refused for good too.
        public var maximumHeaderBytes = Int.max
        /// Every call fails like a producer with a fatal error.
        public var fatal = false
    }

    public let state = Mutex(State())

    public init() {}

    public func failNext(_ count: Int) { state.withLock { $0.failuresLeft = count } }

    public var records: [KafkaProducerRecord] { state.withLock { $0.records } }

    public func records(on topic: String) -> [KafkaProducerRecord] { records.filter { $0.topic == topic } }

    public func produce(_ records: [KafkaProducerRecord]) async throws {
        try state.withLock { state in
            state.attempts += 1
            state.attemptedValues.formUnion(records.map(\.value))
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                throw SinkFailure()
            }
            if state.fatal {
                throw ProduceFailed(reason: "OUT_OF_ORDER_SEQUENCE_NUMBER", message: "fatal", isFatal: true)
            }
            let tooLarge = records.indices.filter {
                records[$0].value.count > state.maximumValueBytes
                    || records[$0].headers.reduce(0, { $0 + ($1.value?.count ?? 0) }) > state.maximumHeaderBytes
            }
            state.records += records.indices.filter { !tooLarge.contains($0) }.map { records[$0] }
            if !tooLarge.isEmpty { throw OutputRejected(indices: tooLarge, reason: "MSG_SIZE_TOO_LARGE") }
        }
    }

    public func flush(timeout: Duration) async { state.withLock { $0.flushed = true } }
}
