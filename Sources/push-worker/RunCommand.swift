import CLI
import Foundation
import PushPipeline
import Worker

/// `push-worker run`: the service.
enum RunCommand {
    static let subcommand = Subcommand(
        name: "run",
        summary: "Runs the push worker: Kafka chat messages in, APNs/FCM pushes out, receipts back to Kafka.",
        synopsis: "[--config FILE]",
        discussion: """
            Configured by environment variables (every one in docs/configuration.md); --config FILE reads
            NAME=value lines first, and the environment wins. A bad setting stops the start with one line
            naming it (exit 3), as do fan-out and registry topics of different partition counts with
            PUSH_REGISTRY_SCOPE=assigned (docs/partitioned-registry.md). SIGTERM/SIGINT drain, flush,
            commit and exit 0; a second signal, or a shutdown longer than PUSH_SHUTDOWN_GRACE_SECONDS
            + 30 s, exits at once (130). A stalled poll loop exits 4; a runtime failure, or a fatal Kafka
            client error (consumer or producer), exits 1.
            """,
        options: [.value("--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them.")],
        run: { arguments in
            await WorkerService.run(
                environment: ProcessInfo.processInfo.environment, configFile: arguments.value("--config"))
        }
    )
}
