import Dispatch
import Glibc

/// The POSIX signals a process receives, as an async sequence (iterate it once). While it exists the signals are
/// diverted from their default action (which would end the process) to the sequence; the process's one place that
/// turns signals into shutdown is `ServiceGroup`.
public struct SignalSource: AsyncSequence, Sendable {
    public typealias Element = UnixSignal

    private let signals: AsyncStream<UnixSignal>

    /// Starts receiving `signals`.
    public init(_ signals: [UnixSignal] = [.terminate, .interrupt]) {
        let (stream, continuation) = AsyncStream.makeStream(of: UnixSignal.self)
        let sources = DispatchSignalSources(signals) { continuation.yield($0) }
        continuation.onTermination = { _ in sources.cancel() }
        self.signals = stream
    }

    public func makeAsyncIterator() -> AsyncStream<UnixSignal>.Iterator {
        signals.makeAsyncIterator()
    }
}

/// One Dispatch signal source per signal, each calling `received`.
// @unchecked Sendable: the sources are created in `init` and never changed; `cancel()` is the only call made on
// them afterwards, and Dispatch sources may be cancelled from any thread.
private final class DispatchSignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [UnixSignal], received: @escaping @Sendable (UnixSignal) -> Void) {
        sources = signals.map { unixSignal in
            // A Dispatch source sees a signal only when its default action (ending the process) is off.
            signal(unixSignal.rawValue, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: unixSignal.rawValue, queue: .global())
            source.setEventHandler { received(unixSignal) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
