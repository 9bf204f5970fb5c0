package import Configuration
package import Essentials
package import Lifecycle

extension PeriodicService where State == FileReloader {
    /// Checks a followed file every `interval` (`FileReloader`) and hands each check that found a new version,
    /// applied or refused, to `report`.
    package init(
        reloading reloader: FileReloader, every interval: Duration, clock: any WallClock,
        report: @escaping @Sendable (FileReloader.Check) -> Void
    ) {
        self.init(interval: interval, clock: clock, initial: reloader) { reloader in
            let result = reloader.check()
            if result != .unchanged { report(result) }
        }
    }
}
