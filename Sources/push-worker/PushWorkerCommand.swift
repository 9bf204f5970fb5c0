import CLI
import Observability
import PushPipeline

/// The `push-worker` tool: every subcommand it offers.
enum PushWorkerCommand {
    static let tool = CommandLineTool(
        name: "push-worker",
        summary: "Turns chat messages from Kafka into APNs and FCM push notifications.",
        version: BuildInfo.version,
        subcommands: [
            RunCommand.subcommand,
            IngressCommand.subcommand,
            RenderCommand.subcommand,
            ReplayCommand.subcommand,
            StringsCommand.subcommand,
            DevBrokerCommand.subcommand,
            ReceiptsStatsCommand.subcommand,
            ReceiptsInvalidTokensCommand.subcommand,
        ] + DevicesCommand.subcommands
    )
}
