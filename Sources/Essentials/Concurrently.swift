/// Runs `work` for every index of `0..<count` at the same time, a child task each (a single one in the calling
/// task), and returns once every one has returned.
public func concurrently(_ count: Int, _ work: @escaping @Sendable (Int) async -> Void) async {
    if count == 1 { return await work(0) }
    await withDiscardingTaskGroup { group in
        for index in 0..<count { group.addTask { await work(index) } }
    }
}
