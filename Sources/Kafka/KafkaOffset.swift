internal import CRdKafka

/// Where an explicitly assigned partition starts reading.
public enum KafkaOffset: Sendable, Hashable {
    /// This exact offset.
    case offset(Int64)
    /// The oldest record the broker still has.
    case beginning
    /// Only records written from now on.
    case end
    /// The group's committed offset (`auto.offset.reset` when there is none).
    case committed

    var rawValue: Int64 {
        switch self {
        case .offset(let offset): offset
        case .beginning: pw_rd_kafka_offset_beginning
        case .end: pw_rd_kafka_offset_end
        case .committed: pw_rd_kafka_offset_stored
        }
    }
}
