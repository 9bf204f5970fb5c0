import CLI
import Configuration
import Foundation
import Kafka
import Lifecycle

/// `push-worker dev-broker`: an embedded Kafka (librdkafka's mock cluster) for tests, demos and other clients.
enum DevBrokerCommand {
    static let subcommand = Subcommand(
        name: "dev-broker",
        summary: "Runs an embedded Kafka cluster (librdkafka mock) on loopback until SIGTERM or SIGINT.",
        synopsis: "[--brokers N] [--partitions N] [--topics a,b,…]",
        discussion: """
            When the cluster is ready, prints exactly one line on stdout:
              bootstrap.servers=HOST:PORT,…
            It keeps only the newest records of each partition: for tests and demos, not backlogs.

            Control protocol (fault injection): one command per line on stdin; each is answered by one
            line on stdout, `ok COMMAND` or `error COMMAND: REASON`. End of stdin is not a stop signal.
            \(MockClusterCommand.protocolHelp.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            """,
        options: [
            .value("--brokers", "N", "Number of brokers, ids 1…N (default 3)."),
            .value("--partitions", "N", "Partitions of each topic (default 6)."),
            .value(
                "--topics", "LIST",
                "Comma-separated topics (default \(DevBrokerConfiguration.defaultTopics.joined(separator: ",")))."),
        ],
        run: run
    )

    private static func run(_ arguments: ParsedArguments) async -> Int32 {
        let configuration: DevBrokerConfiguration
        do throws(UsageError) {
            configuration = try DevBrokerConfiguration(arguments)
        } catch {
            StandardStreams.writeError("push-worker: error: \(error.message)")
            StandardStreams.writeError(subcommand.usage(toolName: "push-worker"))
            return CommandLineTool.usageExitCode
        }
        let signals = SignalSource()
        do throws(KafkaError) {
            let cluster = try MockCluster(brokers: configuration.brokers)
            for topic in configuration.topics { try cluster.createTopic(topic, partitions: configuration.partitions) }
            StandardStreams.writeOut("bootstrap.servers=\(cluster.bootstrapServers)")
            ControlReader.start(cluster: cluster)
            // The cluster lives until the first signal.
            let group = ServiceGroup(
                services: [.init("mock cluster", ResourceService { withExtendedLifetime(cluster) {} })],
                shutdownBudget: .seconds(10))
            return await group.run(signals: signals)
        } catch {
            StandardStreams.writeError("push-worker dev-broker: \(error)")
            return 1
        }
    }
}

/// Reads control commands from stdin on its own thread and answers each on stdout.
private enum ControlReader {
    static func start(cluster: MockCluster) {
        let thread = Thread {
            Thread.current.name = "broker-control"
            while let line = readLine() {
                let command = line.trimmingCharacters(in: .whitespaces)
                guard !command.isEmpty else { continue }
                do throws(KafkaError) {
                    try MockClusterCommand.parse(command).apply(to: cluster)
                    StandardStreams.writeOut("ok \(command)")
                } catch {
                    StandardStreams.writeOut("error \(command): \(error.message)")
                }
            }
        }
        thread.start()
    }
}
