public import KafkaTypes

/// One line of the dev broker's control protocol (`protocolHelp` lists the commands), parsed;
/// `apply(to:)` carries it out on a `MockCluster`.
public enum MockClusterCommand: Sendable, Equatable {
    case brokerDown(Int32)
    case brokerUp(Int32)
    case roundTripTime(broker: Int32, milliseconds: Int)
    case requestErrors(KafkaAPI, count: Int, error: KafkaError.Code)
    case clearRequestErrors(KafkaAPI)
    case leader(TopicPartition, broker: Int32)
    case coordinator(group: String, broker: Int32)
    case createTopic(String, partitions: Int)
    case ping

    /// The protocol summary shown in `push-worker dev-broker --help` and `docs/kafka.md`.
    public static let protocolHelp = """
        broker-down ID                  take broker ID down (connections close, new ones are refused)
        broker-up ID                    bring broker ID back up
        rtt ID MS                       delay every response of broker ID by MS milliseconds (0: none)
        request-errors API COUNT ERROR  fail the next COUNT requests of API (Produce, Fetch, OffsetCommit,
                                        OffsetFetch, JoinGroup, Heartbeat, SyncGroup, …) with ERROR
                                        (a librdkafka error name such as REQUEST_TIMED_OUT)
        clear-request-errors API        drop the errors still queued for API
        leader TOPIC PARTITION ID       make broker ID the leader of the partition
        coordinator GROUP ID            make broker ID the coordinator of the consumer group
        create-topic NAME PARTITIONS    create another topic
        ping                            do nothing (a readiness probe)
        """

    /// Parses one control line; the error says what is wrong with it.
    public static func parse(_ line: String) throws(KafkaError) -> MockClusterCommand {
        let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let verb = words.first else { throw KafkaError.invalidArgument("empty command") }
        let arguments = Array(words.dropFirst())
        switch verb {
        case "broker-down":
            try expect(arguments, "ID")
            return .brokerDown(try number(arguments[0], "ID"))
        case "broker-up":
            try expect(arguments, "ID")
            return .brokerUp(try number(arguments[0], "ID"))
        case "rtt":
            try expect(arguments, "ID", "MS")
            return .roundTripTime(broker: try number(arguments[0], "ID"), milliseconds: try number(arguments[1], "MS"))
        case "request-errors":
            try expect(arguments, "API", "COUNT", "ERROR")
            guard let error = KafkaError.Code(name: arguments[2]) else {
                throw KafkaError.invalidArgument("unknown error name '\(arguments[2])'")
            }
            return .requestErrors(try api(arguments[0]), count: try number(arguments[1], "COUNT"), error: error)
        case "clear-request-errors":
            try expect(arguments, "API")
            return .clearRequestErrors(try api(arguments[0]))
        case "leader":
            try expect(arguments, "TOPIC", "PARTITION", "ID")
            let partition = TopicPartition(arguments[0], try number(arguments[1], "PARTITION"))
            return .leader(partition, broker: try number(arguments[2], "ID"))
        case "coordinator":
            try expect(arguments, "GROUP", "ID")
            return .coordinator(group: arguments[0], broker: try number(arguments[1], "ID"))
        case "create-topic":
            try expect(arguments, "NAME", "PARTITIONS")
            let partitions: Int = try number(arguments[1], "PARTITIONS")
            guard partitions >= 1 else { throw KafkaError.invalidArgument("PARTITIONS must be at least 1") }
            return .createTopic(arguments[0], partitions: partitions)
        case "ping":
            try expect(arguments)
            return .ping
        default:
            throw KafkaError.invalidArgument("unknown command '\(verb)'")
        }
    }

    /// Carries the command out.
    public func apply(to cluster: MockCluster) throws(KafkaError) {
        switch self {
        case .brokerDown(let id): try cluster.setBrokerDown(id)
        case .brokerUp(let id): try cluster.setBrokerUp(id)
        case .roundTripTime(let id, let milliseconds):
            try cluster.setRoundTripTime(broker: id, milliseconds: milliseconds)
        case .requestErrors(let api, let count, let error):
            cluster.pushRequestErrors(api, Array(repeating: error, count: count))
        case .clearRequestErrors(let api): cluster.clearRequestErrors(api)
        case .leader(let partition, let id): try cluster.setLeader(of: partition, broker: id)
        case .coordinator(let group, let id): try cluster.setGroupCoordinator(group, broker: id)
        case .createTopic(let name, let partitions): try cluster.createTopic(name, partitions: partitions)
        case .ping: break
        }
    }

    private static func expect(_ arguments: [String], _ names: String...) throws(KafkaError) {
        guard arguments.count == names.count else {
            let usage = names.isEmpty ? "no arguments" : names.joined(separator: " ")
            throw KafkaError.invalidArgument("expected \(usage), got \(arguments.count) argument(s)")
        }
    }

    private static func number<Number: FixedWidthInteger>(_ text: String, _ name: String) throws(KafkaError) -> Number {
        guard let value = Number(text), value >= 0 else {
            throw KafkaError.invalidArgument("\(name) must be a non-negative whole number, not '\(text)'")
        }
        return value
    }

    private static func api(_ name: String) throws(KafkaError) -> KafkaAPI {
        guard let api = KafkaAPI(name: name) else { throw KafkaError.invalidArgument("unknown API '\(name)'") }
        return api
    }
}
