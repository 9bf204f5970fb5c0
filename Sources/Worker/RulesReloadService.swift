import Adapters
import Configuration
import Essentials
import Lifecycle
import Observability
import PipelineMetrics
import PushCore
import PushPipeline

/// Checks the rules file every `interval` and applies a valid new table (`FileReloader`), counting and logging
/// each reload or refusal. Its shutdown stops the checks.
struct RulesReloadService: Service {
    let path: String
    let interval: Duration
    let planner: CorePlanner
    let files: any FileReading
    let initial: FileStamp?
    let metrics: PushMetrics
    let logger: Logger
    let clock: any WallClock

    func run(shutdown: GracefulShutdown) async throws {
        let planner = planner
        let reloader = FileReloader(path: path, kind: .rules, files: files, initial: initial) { bytes in
            planner.replaceRules(with: try RulesTable.load(json: bytes))
        }
        let (path, metrics, logger) = (path, metrics, logger)
        try await PeriodicService(reloading: reloader, every: interval, clock: clock) { result in
            switch result {
            case .unchanged:
                break
            case .applied:
                metrics.rulesReloads(result: "applied").increment()
                logger.notice("rules reloaded", metadata: ["push.rules_file": .string(path)])
            case .refused(let reason):
                metrics.rulesReloads(result: "rejected").increment()
                logger.error(
                    "rules reload refused, previous table kept",
                    metadata: ["push.rules_file": .string(path), "error": .string(reason)])
            }
        }.run(shutdown: shutdown)
    }
}
