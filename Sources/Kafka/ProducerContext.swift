internal import CRdKafka
import Synchronization

/// The Swift side of a producer's librdkafka error and log callbacks: fatal error and closed state.
///
/// librdkafka gets an unretained pointer to it as the handle's opaque; the `RDKafkaClient` owning the handle
/// keeps it alive until the handle is destroyed.
final class ProducerContext: KafkaLogReceiving {
    private struct State {
        var fatalError: KafkaError?
        var isClosed = false
    }

    private let state = Mutex(State())
    private let errorHandler: KafkaProducer.ErrorHandler?
    let logHandler: KafkaLogHandler?

    init(errorHandler: KafkaProducer.ErrorHandler?, logHandler: KafkaLogHandler?) {
        self.errorHandler = errorHandler
        self.logHandler = logHandler
    }

    var fatalError: KafkaError? { state.withLock { $0.fatalError } }
    var isClosed: Bool { state.withLock { $0.isClosed } }

    func close() {
        state.withLock { $0.isClosed = true }
    }

    var callbacks: RDKafkaClient.Callbacks {
        RDKafkaClient.Callbacks(
            owner: self,
            error: { handle, code, reason, opaque in
                guard let handle, let opaque else { return }
                let context = Unmanaged<ProducerContext>.fromOpaque(opaque).takeUnretainedValue()
                let error = RDKafkaClient.callbackError(handle: handle, code: code, reason: reason)
                if error.isFatal { context.state.withLock { $0.fatalError = $0.fatalError ?? error } }
                context.errorHandler?(error)
            },
            statistics: nil,
            rebalance: nil,
            delivery: DeliveryBatch.callback
        )
    }
}
