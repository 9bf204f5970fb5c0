import Synchronization

/// A small shared integer: the exit code chosen by a helper task, or a count of signals.
final class ExitCodeBox: Sendable {
    private let stored = Atomic<Int32>(0)

    var value: Int32 { stored.load(ordering: .acquiring) }

    func set(_ value: Int32) { stored.store(value, ordering: .releasing) }

    /// Adds one and returns the new value.
    func increment() -> Int32 { stored.add(1, ordering: .acquiringAndReleasing).newValue }
}
