import Adapters
import CLI
import Configuration
import Essentials
import Kafka
import Lifecycle
import Observability
import StatusServer

/// `push-worker ingress`: reads the configuration, starts the ingress and its status endpoints, runs until a
/// signal, and shuts down in reverse order. Returns the process exit code (`WorkerExitCode`).
public enum IngressService {
    /// Runs the ingress with `environment` and the optional `--config` file.
    public static func run(environment: [String: String], configFile: String?) async -> Int32 {
        let configuration: IngressConfiguration
        do {
            configuration = try IngressConfiguration.load(environment: environment, configFile: configFile)
        } catch {
            return WorkerExitCode.refuse(error)
        }
        let logger = Logger(label: "push-worker-ingress", level: configuration.logLevel)
        logger.info("starting", metadata: ["config": .string(configuration.description)])
        let registry = MetricsRegistry()
        ProcessMetrics.register(in: registry)
        BuildInfo.register(
            in: registry, librdkafka: KafkaLibrary.version, libcurl: "none", libmicrohttpd: MicroHTTPDLibrary.version)
        let liveness = HealthChecks()
        let readiness = HealthChecks()
        readiness.set("kafka", passing: false, detail: "starting")
        let ingress: IngressServer
        let status: StatusServer
        do {
            ingress = try IngressServer.start(configuration: configuration, registry: registry, logger: logger)
        } catch {
            logger.critical("cannot start the ingress", metadata: ["error": .string(String(describing: error))])
            return WorkerExitCode.failure
        }
        do {
            status = try StatusServer.start(
                configuration: configuration.status, registry: registry, liveness: liveness, readiness: readiness,
                logger: logger)
        } catch {
            logger.critical("cannot start the status server", metadata: ["error": .string(error.description)])
            await ingress.stop(answerBudget: configuration.kafkaTimeout)
            return WorkerExitCode.failure
        }
        // Shut down in reverse: Kafka's readiness check, then the ingress (its last answers, then the producer's
        // flush), then the status endpoints.
        let budget = configuration.kafkaTimeout + .seconds(1)
        var services: [ServiceGroup.Entry] = [
            .init("status server", ResourceService { status.stop() }),
            .init("ingress", ResourceService { await ingress.stop(answerBudget: budget) }),
            .init(
                "kafka readiness",
                IngressReadinessService(producer: ingress.producer, topic: configuration.topic, readiness: readiness)),
        ]
        if let keysFile = configuration.keysFile {
            services.append(
                .init(
                    "keys reload",
                    IngressKeysReloadService(
                        file: keysFile, ingress: ingress, files: SystemFileReading(), logger: logger,
                        clock: SystemWallClock())))
        }
        let group = ServiceGroup(
            services: services,
            shutdownBudget: budget + .seconds(15), exitCodes: WorkerExitCode.serviceGroup,
            report: logger.serviceGroupReport)
        return await group.run(signals: SignalSource())
    }
}
