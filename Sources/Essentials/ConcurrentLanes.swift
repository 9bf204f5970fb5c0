import Synchronization

/// Runs `work` on every item, at most `width` at once, in lanes: `min(items.count, width)` tasks, the calling one
/// among them, each taking the next item as it finishes one. A task per lane, not per item: a thousand items at a
/// width of 200 start 199 child tasks, and each lane's items run one after another in its task. Returns the outputs
/// in the order they finished. When `work` throws, the lanes take no further item and the first error is rethrown
/// once every lane stopped.
public func inConcurrentLanes<Item: Sendable, Output: Sendable>(
    _ items: [Item], width: Int, _ work: @escaping @Sendable (Item) async throws -> Output
) async throws -> [Output] {
    guard !items.isEmpty else { return [] }
    let cursor = LaneCursor(count: items.count)
    @Sendable func lane() async throws -> [Output] {
        var outputs: [Output] = []
        while let index = cursor.next() {
            do {
                outputs.append(try await work(items[index]))
            } catch {
                cursor.stop()
                throw error
            }
        }
        return outputs
    }
    return try await withThrowingTaskGroup(of: [Output].self) { group in
        for _ in 1..<min(items.count, max(1, width)) { group.addTask { try await lane() } }
        var outputs = try await lane()
        for try await more in group { outputs += more }
        return outputs
    }
}

/// The next item's index for the lanes of `inConcurrentLanes`, or none once all are taken or a lane failed.
private final class LaneCursor: Sendable {
    private let count: Int
    private let taken = Atomic<Int>(0)

    init(count: Int) {
        self.count = count
    }

    func next() -> Int? {
        let index = taken.wrappingAdd(1, ordering: .relaxed).oldValue
        return index >= 0 && index < count ? index : nil
    }

    /// No lane takes another item.
    func stop() {
        taken.store(Int.min / 2, ordering: .relaxed)
    }
}
