import CLI
import Essentials
import Kafka
import Observability
import Providers
import PushCore
import PushPipeline
import TopicWindow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `push-worker replay`: sends a window of a topic again with the live worker's configuration and pipeline,
/// by explicit assignment (never the live group, nothing committed), then prints what it did.
public enum ReplayService {
    /// Exit code of a replay stopped by SIGINT or SIGTERM before the window's end (after its summary).
    public static let interrupted: Int32 = 130

    /// Runs the replay; returns the exit code (0 done, 3 configuration, 1 Kafka failure, 130 interrupted).
    public static func run(environment: [String: String], configFile: String?, options: ReplayOptions) async
        -> Int32
    {
        let files = SystemFileReading()
        let configuration: WorkerConfiguration
        let logger: Logger
        do {
            let variables = try WorkerService.variables(environment: environment, configFile: configFile, files: files)
            // The summary and progress are the interface: logs only say what goes wrong, unless asked.
            logger = Logger(
                label: "push-worker-replay",
                level: try LogLevel.fromEnvironment(["LOG_LEVEL": "warning"].merging(variables) { $1 }))
            configuration = try WorkerConfiguration.load(environment: variables)
        } catch {
            return WorkerService.refuse(error)
        }
        let stages: Stages
        do {
            stages = try await Stages(configuration: configuration, files: files, logger: logger)
        } catch let error as InvalidSetting {
            return WorkerService.refuse(error)
        } catch {
            StandardStreams.writeError("push-worker: error: cannot start: \(error)")
            return WorkerExitCode.failure
        }
        let status: Int32
        do {
            status = try await replay(options, stages: stages, configuration: configuration, logger: logger)
        } catch {
            StandardStreams.writeError("push-worker: error: replay failed: \(error)")
            status = WorkerExitCode.failure
        }
        // Before `main` exits: shutting a client down also removes its combined CA file.
        for transport in stages.transports { await transport.shutdown() }
        return status
    }

    private static func replay(
        _ options: ReplayOptions, stages: Stages, configuration: WorkerConfiguration, logger: Logger
    ) async throws -> Int32 {
        let delivered = options.skipDelivered ? try await deliveredSends(options, configuration: configuration) : nil
        let reader = try TopicWindowReader(configuration: configuration.kafka, topic: options.topic)
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

        let source = ReplayRecordSource(reader: reader, windows: windows, runId: options.runId)
        let live: any EventPlanner<ProviderSend> =
            configuration.pipeline.skipKnownInvalidTokens
            ? SkippingKnownInvalidTokens(inner: stages.planner, table: try await invalidTokens(configuration))
            : stages.planner
        let planner = ReplayPlanner(
            inner: live, maxAgeMillis: options.maxAge?.wholeMilliseconds, delivered: delivered, tally: tally)
        let clock = SystemWallClock()
        let sender: any PushSender<ProviderSend> =
            if options.dryRun {
                DryRunSender<ProviderSend>()
            } else if let rate = options.sendsPerSecond {
                PacedSender(stages.sender, sendsPerSecond: rate, clock: clock)
            } else {
                stages.sender
            }
        let sink = ReplaySink(
            inner: KafkaRecordSink(producer: stages.producer), runId: options.runId,
            deadLetterTopic: configuration.pipeline.deadLetterTopic, dryRun: options.dryRun,
            onUndecodable: { tally.update { $0.undecodable += 1 } })
        var settings = configuration.pipeline
        settings.group = "push-worker-replay"
        let pipeline = Pipeline(
            source: source, sink: sink, planner: planner, sender: sender,
            retryPolicy: Backoff(base: configuration.retryBase, cap: configuration.retryCap),
            clock: clock, observer: tally, settings: settings)
        let stopRequested = SharedInt32()
        let signals = SignalHandler(logger: logger) {
            stopRequested.set(1)
            pipeline.shutdown()
        }
        let started = ContinuousClock.now
        let monitor = Task {
            let live = isatty(STDERR_FILENO) == 1
            var lastLine = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                if source.isComplete {
                    pipeline.shutdown()
                    return
                }
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
        _ = await pipeline.run()
        monitor.cancel()
        signals.cancel()
        if !options.dryRun { try? await stages.producer.flush(timeout: .seconds(30)) }
        _ = await stages.producer.close(timeout: .seconds(10))

        var summary = tally.current
        summary.durationSeconds = (ContinuousClock.now - started).fractionalSeconds
        summary.stoppedAt = source.resumePositions
        summary.complete = source.isComplete
        if isatty(STDERR_FILENO) == 1 { StandardStreams.writeError("") }
        StandardStreams.writeOut(options.json ? summary.json : summary.text)
        return summary.complete
            ? WorkerExitCode.success : stopRequested.value == 1 ? interrupted : WorkerExitCode.failure
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
                delivered.add(messageId: messageId, tokenHash: tokenHash, status: status)
            }
        }
        return delivered
    }
}
