import Synchronization

/// A value shared between a test and the handlers or tasks it starts (behind a mutex).
public final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    public init(_ value: Value) {
        storage = Mutex(value)
    }

    /// The value now.
    public var value: Value { storage.withLock { $0 } }

    /// Changes the value in place and returns what `body` returns.
    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}

extension Shared where Value == Int {
    /// Adds one and returns the new count.
    @discardableResult
    public func increment() -> Int {
        update {
            $0 += 1; return $0
        }
    }
}
