/// The rule that lets a pod resolve the recipients of its fan-out partitions from the same partitions of the
/// registry: `push.fanout`, `push.devices` and `push.clients` have one partition count (and the producers of all three
/// place a client's records with `ClientPartitioner`, which the counts alone cannot show).
public enum CoPartitioning {
    /// One topic and its partition count as the metadata gives it (`nil`: the topic does not exist).
    public struct Topic: Sendable, Equatable {
        public var name: String
        public var partitions: Int?

        public init(name: String, partitions: Int?) {
            self.name = name
            self.partitions = partitions
        }
    }

    /// Why the topics are not co-partitioned; its description names every topic and its count.
    public struct Mismatch: Error, Sendable, Equatable, CustomStringConvertible {
        public var topics: [Topic]

        public init(topics: [Topic]) {
            self.topics = topics
        }

        public var description: String {
            let counts = topics.map { topic in
                "\(topic.name) has " + (topic.partitions.map { "\($0) partitions" } ?? "no metadata (missing)")
            }
            return "topics are not co-partitioned: " + counts.joined(separator: ", ")
                + "; they need one partition count"
        }
    }

    /// The topics' common partition count, or the mismatch: a topic without metadata, a count below 1, or counts that
    /// differ.
    public static func check(fanout: Topic, devices: Topic, clients: Topic) -> Result<Int, Mismatch> {
        let topics = [fanout, devices, clients]
        let counts = Set(topics.map(\.partitions))
        guard counts.count == 1, let count = fanout.partitions, count > 0 else {
            return .failure(Mismatch(topics: topics))
        }
        return .success(count)
    }
}
