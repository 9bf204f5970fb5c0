import Configuration
package import Essentials
package import Lifecycle
package import Observability

/// Re-reads `PUSH_APPS_DIR` every `interval` (`AppCatalog.refresh`), logging each app added, changed, removed or
/// broken, and drops the clients of idle apps. Its shutdown stops the checks.
package struct AppsReloadService: Service {
    let catalog: AppCatalog
    let senders: AppSenders
    let interval: Duration
    let metrics: AppMetrics
    let logger: Logger
    let clock: any WallClock

    package init(
        catalog: AppCatalog, senders: AppSenders, interval: Duration, metrics: AppMetrics, logger: Logger,
        clock: any WallClock
    ) {
        self.catalog = catalog
        self.senders = senders
        self.interval = interval
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
    }

    package func run(shutdown: GracefulShutdown) async throws {
        let (catalog, senders, metrics, logger) = (catalog, senders, metrics, logger)
        try await PeriodicService(interval: interval, clock: clock) {
            let changes = catalog.refresh()
            Self.log(changes, logger: logger)
            metrics.count(changes)
            senders.dropIdle()
            metrics.liveApps.set(Double(senders.liveApps))
        }.run(shutdown: shutdown)
    }

    /// One line per change: a broken folder at error level, naming the file at fault.
    static func log(_ changes: [AppCatalog.Change], logger: Logger) {
        for change in changes {
            switch change {
            case .added(let app): logger.notice("app loaded", metadata: ["push.app": .string(app)])
            case .changed(let app): logger.notice("app reloaded", metadata: ["push.app": .string(app)])
            case .removed(let app): logger.notice("app removed", metadata: ["push.app": .string(app)])
            case .broken(let app, let error):
                logger.error(
                    "app folder refused, the app's sends rejected until it is fixed",
                    metadata: [
                        "push.app": .string(app), "push.app_file": .string(error.path), "error": .string(error.reason),
                    ])
            case .unlisted(let error):
                logger.error(
                    "apps folder cannot be listed, apps kept as they were",
                    metadata: ["push.apps_dir": .string(error.path), "error": .string(error.reason)])
            }
        }
    }
}
