import Observability

/// The producer's readiness check: `kafka.producer` fails while outputs are being produced again after a failure
/// (backing off) and passes again once Kafka acknowledges them; the service fails it for good on a fatal
/// producer error.
public struct ProducerHealth: Sendable {
    /// The readiness check's name (`/readyz` reports it).
    public static let readinessCondition = "kafka.producer"

    let readiness: HealthChecks

    init(_ readiness: HealthChecks) {
        self.readiness = readiness
        readiness.set(Self.readinessCondition, passing: true, detail: "acknowledged")
    }

    func failed() { readiness.set(Self.readinessCondition, passing: false, detail: "backing off after a failure") }

    func recovered() { readiness.set(Self.readinessCondition, passing: true, detail: "acknowledged") }
}
