import Foundation

extension Thread {
    /// Runs `body` on a new thread named `name` (at most 15 bytes: what `top -H` and `perf` show). The thread names
    /// itself: `Thread.name` set before `start()` never reaches the OS thread here.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.start()
    }
}
