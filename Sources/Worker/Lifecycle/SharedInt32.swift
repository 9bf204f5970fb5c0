import PushPipeline
import Synchronization

/// An integer shared between threads: the exit code a helper task chose, or the signals received so far.
final class SharedInt32: Sendable {
    private let stored = Atomic<Int32>(0)

    var value: Int32 { stored.load(ordering: .acquiring) }

    func set(_ value: Int32) { stored.store(value, ordering: .releasing) }

    /// Adds one and returns the new value.
    func increment() -> Int32 { stored.add(1, ordering: .acquiringAndReleasing).newValue }
}
