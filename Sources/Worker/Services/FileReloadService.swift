import Essentials
import Lifecycle

/// Checks a followed file every `interval` (`FileReloader`) and hands each check that found a new version, applied or
/// refused, to `report`. Its shutdown stops the checks.
struct FileReloadService: Service {
    let reloader: FileReloader
    let interval: Duration
    let clock: any WallClock
    let report: @Sendable (FileReloader.Check) -> Void

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { await check() }
    }

    /// Checks every `interval` until cancelled.
    private func check() async {
        var reloader = reloader
        while (try? await clock.sleep(for: interval)) != nil {
            let result = reloader.check()
            if result != .unchanged { report(result) }
        }
    }
}
