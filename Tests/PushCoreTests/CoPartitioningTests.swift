import PushCore
import Testing

@Suite struct CoPartitioningTests {
    private func topics(_ fanout: Int?, _ devices: Int?, _ clients: Int?) -> [CoPartitioning.Topic] {
        [
            .init(name: "push.fanout", partitions: fanout), .init(name: "push.devices", partitions: devices),
            .init(name: "push.clients", partitions: clients),
        ]
    }

    private func check(_ fanout: Int?, _ devices: Int?, _ clients: Int?) -> Result<Int, CoPartitioning.Mismatch> {
        let topics = topics(fanout, devices, clients)
        return CoPartitioning.check(fanout: topics[0], devices: topics[1], clients: topics[2])
    }

    @Test func oneCountForTheThreeTopicsIsTheirCount() {
        #expect(check(6, 6, 6) == .success(6))
        #expect(check(1, 1, 1) == .success(1))
    }

    @Test(
        arguments: [
            (8, 6, 6), (6, 8, 6), (6, 6, 8), (6, nil, 6), (nil, nil, nil), (0, 0, 0),
        ] as [(Int?, Int?, Int?)])
    func anyDifferenceOrMissingTopicIsAMismatchNamingEveryTopic(fanout: Int?, devices: Int?, clients: Int?) {
        #expect(check(fanout, devices, clients) == .failure(.init(topics: topics(fanout, devices, clients))))
    }

    @Test func theMismatchNamesTheTopicsAndTheirCounts() {
        guard case .failure(let mismatch) = check(8, 6, nil) else {
            Issue.record("8, 6 and a missing topic passed")
            return
        }
        #expect(
            mismatch.description
                == "topics are not co-partitioned: push.fanout has 8 partitions, push.devices has 6 partitions, "
                + "push.clients has no metadata (missing); they need one partition count")
    }
}
