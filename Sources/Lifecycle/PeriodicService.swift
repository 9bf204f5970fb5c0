public import Essentials

/// Runs `tick` every `interval` of `clock` until its shutdown, handing it the state it keeps from one tick to the
/// next; a tick that throws a `ServiceGroupExit` ends the group with it. What the worker checks or samples on a
/// schedule (files, apps, metrics, Kafka's fatal errors) runs as one of these.
public struct PeriodicService<State: Sendable>: Service {
    let interval: Duration
    let clock: any WallClock
    let initial: State
    let tick: @Sendable (inout State) throws(ServiceGroupExit) -> Void

    /// Ticks every `interval` of `clock`, starting from `initial`.
    public init(
        interval: Duration, clock: any WallClock, initial: State,
        tick: @escaping @Sendable (inout State) throws(ServiceGroupExit) -> Void
    ) {
        self.interval = interval
        self.clock = clock
        self.initial = initial
        self.tick = tick
    }

    public func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { try await repeatTicks() }
    }

    /// Ticks every `interval` until cancelled, or until a tick throws.
    private func repeatTicks() async throws(ServiceGroupExit) {
        var state = initial
        while (try? await clock.sleep(for: interval)) != nil {
            try tick(&state)
        }
    }
}

extension PeriodicService where State == Void {
    /// A service that keeps no state between its ticks.
    public init(interval: Duration, clock: any WallClock, tick: @escaping @Sendable () throws(ServiceGroupExit) -> Void)
    {
        self.init(interval: interval, clock: clock, initial: ()) { _ throws(ServiceGroupExit) in try tick() }
    }
}
