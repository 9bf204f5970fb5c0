/// What the ingress does with one request: answer it at once, or write a record to the input topic first and
/// answer `IngressAnswer.accepted` once Kafka acknowledged it.
public enum IngressDecision: Sendable, Equatable {
    case answer(IngressAnswer)
    /// The record: its key (the room id, or a custom push's id) and its value.
    case write(key: [UInt8], value: [UInt8])
}
