import Adapters
import CLI
import Configuration
import DeviceRegistry
import Essentials
import Glibc
import Kafka
import KafkaTypes
import Lifecycle
import Observability
import Providers
import PushCore
import PushPipeline
import TopicWindow

/// `push-worker replay`: sends a window of a topic again with the live worker's configuration and pipeline,
/// by explicit assignment (never the live group, nothing committed), then prints what it did.
public enum ReplayService {
    /// Exit code of a replay stopped by SIGINT or SIGTERM before the window's end (after its summary).
    public static let interrupted: Int32 = 130

    /// Runs the replay; returns the exit code (0 done, 3 configuration, 1 Kafka failure, 130 interrupted).
    public static func run(environment: [String: String], configFile: String?, options: ReplayOptions) async
        -> Int32
    {
        let settings: ReplayConfiguration
        do {
            settings = try ReplayConfiguration.load(environment: environment, configFile: configFile)
        } catch {
            return WorkerExitCode.refuse(error)
        }
        let configuration = settings.worker
        let logger = Logger(label: "push-worker-replay", level: settings.logLevel)
        logger.logAbsent(settings.absentProviders)
        do {
            return try await withPipelineAdapters(
                configuration: configuration, rules: settings.rules, credentials: settings.credentials,
                files: SystemFileReading(), logger: logger
            ) { adapters in
                do {
                    return try await replay(options, adapters: adapters, configuration: configuration, logger: logger)
                } catch {
                    StandardStreams.writeError("push-worker: error: replay failed: \(error)")
                    return WorkerExitCode.failure
                }
            }
        } catch {
            StandardStreams.writeError("push-worker: error: cannot start: \(error)")
            return WorkerExitCode.failure
        }
    }

    private static func replay(
        _ options: ReplayOptions, adapters: PipelineAdapters, configuration: WorkerConfiguration, logger: Logger
    ) async throws -> Int32 {
        let delivered = options.skipDelivered ? try await deliveredSends(options, configuration: configuration) : nil
        let reader = try TopicWindowReader(configuration: configuration.kafka.forPipelineInput, topic: options.topic)
        let windows = try await reader.plan(from: options.from, to: options.to, partitions: options.partitions)
        var initial = ReplaySummary(runId: options.runId, topic: options.topic, dryRun: options.dryRun)
        initial.recordsInWindow = windows.reduce(0) { total, window in
            let (sum, overflow) = total.addingReportingOverflow(window.count)
            return overflow ? .max : sum
        }
        let tally = ReplayTally(initial)
        StandardStreams.writeError(
            "replay \(options.runId): \(options.topic), \(initial.recordsInWindow) records in "
                + "\(windows.filter { $0.count > 0 }.count) partitions"
                + (delivered.map { ", \($0.count) earlier receipts to skip" } ?? "")
                + (options.dryRun ? " (dry run)" : ""))

        let source = ReplayRecordSource(reader: reader, windows: windows)
        let invalidations = TokenInvalidationWatch(configuration.pipeline.invalidationGuard)
        let directory = try await registry(configuration)
        let custom = CustomPushPlanner(
            events: adapters.planner, directory: directory, apps: adapters.appContexts,
            decoder: CustomPushDecoder(limits: adapters.eventLimits))
        let resolving = IMKITPlanner(events: custom, directory: directory)
        let live: any EventPlanner<ProviderSend> =
            configuration.pipeline.skipKnownInvalidTokens
            ? SkippingKnownInvalidTokens(
                inner: resolving, table: try await invalidTokens(configuration), invalidations: invalidations)
            : resolving
        let planner = replanning(live, maxAge: options.maxAge, delivered: delivered, tally: tally)
        let clock = SystemWallClock()
        let sender: any PushSender<ProviderSend> =
            if options.dryRun {
                DryRunSender<ProviderSend>()
            } else if let rate = options.sendsPerSecond {
                PacedSender(adapters.sender, sendsPerSecond: rate, clock: clock)
            } else {
                adapters.sender
            }
        let sink = ReplaySink(
            inner: KafkaRecordSink(producer: adapters.producer), runId: options.runId,
            deadLetterTopic: configuration.pipeline.deadLetterTopic, dryRun: options.dryRun,
            onUndecodable: { tally.update { $0.undecodable += 1 } })
        var settings = configuration.pipeline
        settings.group = "push-worker-replay"
        settings.replayRunId = options.runId
        let pipeline = Pipeline(
            source: source, sink: sink, planner: planner, sender: sender,
            retryPolicy: configuration.retryDelays,
            clock: clock, observer: tally, settings: settings, invalidations: invalidations)
        let started = ContinuousClock.now
        // Started in this order, shut down in the reverse one: the pipeline drains, then the producer flushes and
        // closes, then the HTTP/2 clients stop. The progress service ends the group when the window is read.
        let group = ServiceGroup(
            services: [
                adapters.transportsService,
                .init(
                    "producer",
                    ResourceService {
                        if !options.dryRun { try? await adapters.producer.flush(timeout: .seconds(30)) }
                        _ = await adapters.producer.close(timeout: .seconds(10))
                    }),
                .init("progress") { shutdown in
                    try await shutdown.cancelOnRequest { await reportProgress(tally, source: source, started: started) }
                },
                .init("pipeline") { shutdown in _ = await pipeline.run(until: shutdown) },
            ],
            shutdownBudget: configuration.shutdownBudget + .seconds(30),
            exitCodes: ServiceGroup.ExitCodes(
                signal: interrupted, finished: WorkerExitCode.success, failure: WorkerExitCode.failure,
                forced: interrupted),
            report: logger.serviceGroupReport)
        let code = await group.run(signals: SignalSource())

        var summary = tally.current
        summary.durationSeconds = (ContinuousClock.now - started).fractionalSeconds
        summary.stoppedAt = source.resumePositions
        summary.complete = source.isComplete
        if isatty(STDERR_FILENO) == 1 { StandardStreams.writeError("") }
        StandardStreams.writeOut(options.json ? summary.json : summary.text)
        return summary.complete
            ? WorkerExitCode.success : code == WorkerExitCode.success ? WorkerExitCode.failure : code
    }

    /// Prints progress on stderr (a live line on a terminal, else a line every 5 s) until the window is read
    /// (then returns, which ends the replay's group) or the task is cancelled.
    /// The replay's planner over `live` (`ReplayPlanner`), compiled for the planner `live` holds.
    private static func replanning<Live: EventPlanner<ProviderSend>>(
        _ live: Live, maxAge: Duration?, delivered: DeliveredSends?, tally: ReplayTally
    ) -> any EventPlanner<ProviderSend> {
        ReplayPlanner(inner: live, maxAgeMillis: maxAge?.wholeMilliseconds, delivered: delivered, tally: tally)
    }

    private static func reportProgress(
        _ tally: ReplayTally, source: ReplayRecordSource, started: ContinuousClock.Instant
    )
        async
    {
        let live = isatty(STDERR_FILENO) == 1
        var lastLine = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            // Checked after the first records were handed out: before, nothing is outstanding.
            if source.isComplete { return }
            let now = ContinuousClock.now
            guard now - lastLine >= (live ? .milliseconds(500) : .seconds(5)) else { continue }
            lastLine = now
            let line = tally.current.progressLine(elapsedSeconds: (now - started).fractionalSeconds)
            if live {
                StandardStreams.writeErrorText("\r\u{1B}[K" + line)
            } else {
                StandardStreams.writeError(line)
            }
        }
    }

    /// The tokens on the invalid-token topic, read to its end: a replay skips them as the live worker does.
    private static func invalidTokens(_ configuration: WorkerConfiguration) async throws -> InvalidTokenTable {
        let table = InvalidTokenTable()
        try await TopicWindowReader.read(configuration.pipeline.invalidTokensTopic, configuration: configuration.kafka)
        {
            table.apply($0)
        }
        table.isLoaded = true
        return table
    }

    /// The device registry and the client settings, each topic read to its end (`PUSH_DEVICE_STORE=none`: empty), that
    /// IMKIT messages are resolved through as the live worker resolves them; records it ignores are ignored here too.
    private static func registry(_ configuration: WorkerConfiguration) async throws -> any DeviceDirectory {
        let tables = RegistryTables(store: MemoryDeviceStore())
        guard configuration.registry.store != .none else { return tables.store }
        try await TopicWindowReader.read(configuration.registry.devicesTopic, configuration: configuration.kafka) {
            for record in $0 { _ = try tables.applyDevice(key: record.key, value: record.value) }
        }
        try await TopicWindowReader.read(configuration.registry.clientsTopic, configuration: configuration.kafka) {
            for record in $0 { _ = try tables.applyClient(key: record.key, value: record.value) }
        }
        return tables.store
    }

    /// `--skip-delivered`: the receipts topic from the window's start time less `receiptsMargin` (from its
    /// beginning when the window starts at an offset), read to its end.
    private static func deliveredSends(_ options: ReplayOptions, configuration: WorkerConfiguration) async throws
        -> DeliveredSends
    {
        let from: TopicPosition =
            if case .time(let millis) = options.from {
                .time(epochMillis: millis - ReplayOptions.receiptsMargin.wholeMilliseconds)
            } else { .beginning }
        var delivered = DeliveredSends()
        try await TopicWindowReader.read(
            configuration.pipeline.receiptsTopic, configuration: configuration.kafka, from: from
        ) {
            records in
            for record in records {
                guard let receipt = try? JSONParser.parse(record.value),
                    let messageId = receipt["messageId"]?.stringValue,
                    let tokenHash = receipt["tokenHash"]?.stringValue, let status = receipt["status"]?.stringValue
                else { continue }
                delivered.add(
                    messageId: messageId, tokenHash: tokenHash, status: status,
                    suspect: receipt["suspect"] == .bool(true))
            }
        }
        return delivered
    }
}
