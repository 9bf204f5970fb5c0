/// Runs services for the lifetime of a process and returns its exit code, in the shape of swift-service-lifecycle's
/// `ServiceGroup`:
///
/// - the services start in order (each in its own task, with its own `GracefulShutdown`);
/// - the first signal (SIGTERM, SIGINT) shuts them down gracefully: the last started is asked to shut down first, and
///   each next one only when the one before it has ended, so a service can rely on those started before it until it
///   has shut down; nothing is cancelled while they finish their work;
/// - a service that returns or throws on its own ends the group the same way, with its exit code
///   (`ServiceGroupExit`, else `ExitCodes.failure` for an error and `ExitCodes.finished` for a return); a
///   `ServiceGroupExit` with mode `.immediately` ends it at once;
/// - the whole shutdown has one budget; past it, or at a second signal, the group cancels the services still running
///   and returns `ExitCodes.forced` without waiting for them (the process exits right after).
///
/// `main` is the only place that exits, with the code `run` returns.
public struct ServiceGroup: Sendable {
    /// The exit codes the group returns.
    public struct ExitCodes: Sendable {
        /// Shut down by a signal.
        public var signal: Int32
        /// A service returned on its own.
        public var finished: Int32
        /// A service threw an error that is not a `ServiceGroupExit`.
        public var failure: Int32
        /// A second signal, or the shutdown budget exceeded (128 + SIGINT, as a shell reports Ctrl-C).
        public var forced: Int32

        public init(signal: Int32 = 0, finished: Int32 = 0, failure: Int32 = 1, forced: Int32 = 130) {
            self.signal = signal
            self.finished = finished
            self.failure = failure
            self.forced = forced
        }
    }

    /// A service with the name its events are reported under.
    public struct Entry: Sendable {
        public var name: String
        public var service: any Service

        public init(_ name: String, _ service: any Service) {
            self.name = name
            self.service = service
        }

        /// A service whose `run(shutdown:)` is `run`.
        public init(_ name: String, run: @escaping @Sendable (GracefulShutdown) async throws -> Void) {
            self.init(name, ClosureService(body: run))
        }
    }

    public let services: [Entry]
    /// The most the whole shutdown may take, from the first signal or the first service that ended.
    public let shutdownBudget: Duration
    public let exitCodes: ExitCodes
    private let report: @Sendable (ServiceGroupEvent, _ service: String?) -> Void

    /// `report` receives what the group does, with the name of the service concerned, for the log.
    public init(
        services: [Entry], shutdownBudget: Duration, exitCodes: ExitCodes = ExitCodes(),
        report: @escaping @Sendable (ServiceGroupEvent, _ service: String?) -> Void = { _, _ in }
    ) {
        self.services = services
        self.shutdownBudget = shutdownBudget
        self.exitCodes = exitCodes
        self.report = report
    }

    /// Runs the services until they are shut down by one of `signals` or one of them ends; returns the exit code
    /// (`ExitCodes.failure` when the task running the group is cancelled, which cancels the services).
    public func run(signals: some AsyncSequence<UnixSignal, Never> & Sendable) async -> Int32 {
        typealias Input = ServiceGroupStateMachine.Input
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        var machine = ServiceGroupStateMachine(serviceCount: services.count, codes: exitCodes)
        let shutdowns = services.map { _ in GracefulShutdown() }
        // Tasks of their own, not a task group: past the budget the group returns without waiting for a service
        // that does not end (a blocking C call), so that `main` can exit with the forced code.
        let tasks = services.enumerated().map { index, entry in
            report(.starting(index: index), entry.name)
            return Task { [shutdown = shutdowns[index]] in
                do {
                    try await entry.service.run(shutdown: shutdown)
                    input.yield(.ended(index: index, exit: nil))
                } catch let exit as ServiceGroupExit {
                    input.yield(.ended(index: index, exit: exit))
                } catch {
                    input.yield(.ended(index: index, exit: ServiceGroupExit(code: exitCodes.failure, mode: .graceful)))
                }
            }
        }
        let listener = Task {
            for await signal in signals { input.yield(.signal(signal)) }
        }
        var budget: Task<Void, Never>?
        defer {
            listener.cancel()
            budget?.cancel()
        }
        if services.isEmpty { return exitCodes.finished }
        for await next in inputs {
            for action in machine.handle(next) {
                switch action {
                case .requestShutdown(let index):
                    report(.stopping(index: index), services[index].name)
                    shutdowns[index].request()
                case .cancel(let index):
                    tasks[index].cancel()
                case .startBudget:
                    budget = Task { [shutdownBudget] in
                        guard (try? await Task.sleep(for: shutdownBudget)) != nil else { return }
                        input.yield(.budgetExpired)
                    }
                case .report(let event):
                    report(event, event.serviceIndex.map { services[$0].name })
                case .exit(let code):
                    return code
                }
            }
        }
        // Only when the task running the group is cancelled: so are the services, left to the process's exit.
        for task in tasks { task.cancel() }
        return exitCodes.failure
    }
}

/// A service given as its `run(shutdown:)` body.
private struct ClosureService: Service {
    let body: @Sendable (GracefulShutdown) async throws -> Void

    func run(shutdown: GracefulShutdown) async throws { try await body(shutdown) }
}

extension ServiceGroupEvent {
    /// The service the event is about, if any.
    fileprivate var serviceIndex: Int? {
        switch self {
        case .starting(let index), .serviceEnded(let index, _), .stopping(let index): index
        case .shutdownRequested, .forced, .budgetExceeded: nil
        }
    }
}
