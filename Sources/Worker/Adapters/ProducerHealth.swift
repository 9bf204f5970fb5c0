import Observability

/// The producer's readiness condition: `kafka.producer` is unmet while outputs are being produced again after a
/// failure (backing off) and met again once Kafka acknowledges them; the service clears it for good on a fatal
/// producer error.
struct ProducerHealth: Sendable {
    /// The readiness condition's name (`/readyz` lists it when unmet).
    static let readinessCondition = "kafka.producer"

    let readiness: Readiness

    init(_ readiness: Readiness) {
        self.readiness = readiness
        readiness.set(Self.readinessCondition, ready: true)
    }

    func failed() { readiness.set(Self.readinessCondition, ready: false) }

    func recovered() { readiness.set(Self.readinessCondition, ready: true) }
}
