import KafkaTypes
import Testing

@testable import Kafka

@Suite struct ConsumerInternalsTests {
    let first = TopicPartition("t", 0)
    let second = TopicPartition("t", 1)

    @Test func resumeTouchesOnlyPausedPartitions() {
        var state = ConsumerState()
        state.assign([first, second])
        #expect(state.resume([first, second]).isEmpty)
        #expect(state.pause([first, TopicPartition("other", 0)]) == [first])
        #expect(state.pause([first]).isEmpty)
        #expect(state.resume([first, second]) == [first])
        #expect(state.paused.isEmpty)
    }

    @Test func recordsOfPartitionsNotOwnedOrRevokingAreNeverHandedOut() {
        var state = ConsumerState()
        state.assign([first, second])
        state.revoking = [second]
        func record(_ partition: TopicPartition) -> KafkaRecord {
            KafkaRecord(topic: partition.topic, partition: partition.partition, offset: 0, key: nil, value: [])
        }
        #expect(state.mayHandOut(record(first)))
        #expect(!state.mayHandOut(record(second)))
        #expect(!state.mayHandOut(record(TopicPartition("t", 2))))
        // Nor is a revoking partition paused or resumed: it is about to go.
        #expect(state.pause([first, second]) == [first])
        state.unassign([second])
        #expect(state.revoking.isEmpty)
    }

    @Test func losingAPartitionForgetsItsPauseStoredOffsetAndLag() {
        var state = ConsumerState()
        state.assign([first, second])
        _ = state.pause([first])
        state.stored[first] = 10
        state.lag[first] = 3
        state.timestampFloor[first] = 5
        state.unassign([first])
        #expect(state.assignment == [second])
        #expect(state.paused.isEmpty && state.stored.isEmpty && state.lag.isEmpty && state.timestampFloor.isEmpty)
    }

    @Test func takingStoredOffsetsRemovesThem() {
        var state = ConsumerState()
        state.assign([first, second])
        state.stored = [first: 4, second: 9]
        #expect(state.takeStored([first]) == [first: 4])
        #expect(state.stored == [second: 9])
    }

    @Test func failedCommitPutsBackOnlyOffsetsNotSupersededOrLost() {
        var state = ConsumerState()
        state.assign([first, second, TopicPartition("t", 2)])
        state.stored = [first: 4, second: 9, TopicPartition("t", 2): 1]
        let taken = state.takeStored([first, second, TopicPartition("t", 2)])
        state.stored[second] = 12
        state.unassign([TopicPartition("t", 2)])
        state.restoreStored(taken)
        #expect(state.stored == [first: 4, second: 12])
    }

    @Test func timestampFloorDropsOnlyOlderRecordsOfItsPartition() {
        var state = ConsumerState()
        state.timestampFloor[first] = 1000
        func record(_ partition: Int32, _ timestamp: Int64?) -> KafkaRecord {
            KafkaRecord(
                topic: "t", partition: partition, offset: 0, key: nil, value: [], timestampMilliseconds: timestamp)
        }
        #expect(state.isBeforeTimestampFloor(record(0, 999)))
        #expect(!state.isBeforeTimestampFloor(record(0, 1000)))
        #expect(!state.isBeforeTimestampFloor(record(0, nil)))
        #expect(!state.isBeforeTimestampFloor(record(1, 1)))
    }

    @Test func lagComesFromStatisticsOfKnownPartitionsOnly() {
        let json = """
            {"name": "c", "topics": {"t": {"topic": "t", "partitions": {
              "0": {"partition": 0, "consumer_lag": 42},
              "1": {"partition": 1, "consumer_lag": -1},
              "-1": {"partition": -1, "consumer_lag": -1}}}}}
            """
        #expect(ConsumerStatistics.parse(Array(json.utf8))?.lag == [first: 42])
        #expect(ConsumerStatistics.parse(Array("not json".utf8)) == nil)
        // The case: records handed out and not done, nothing committed yet; the committed lag is -1
        // (unknown) there, and the metric read 0.
        let waiting = """
            {"topics": {"t": {"partitions": {
              "0": {"partition": 0, "consumer_lag": 7, "consumer_lag_stored": 3},
              "1": {"partition": 1, "consumer_lag": -1, "consumer_lag_stored": -1,
                    "lo_offset": 0, "hi_offset": 1000, "ls_offset": 1000}}}}}
            """
        #expect(ConsumerStatistics.parse(Array(waiting.utf8))?.lag == [first: 3, TopicPartition("t", 1): 1000])
        #expect(ConsumerStatistics.parse(Array("{}".utf8)) == ConsumerStatistics(lag: [:], brokersUp: 0))
    }

    @Test func groupAndBrokerStateComeFromStatistics() throws {
        let json = """
            {"brokers": {
              "127.0.0.1:9092/1": {"nodeid": 1, "state": "UP"},
              "127.0.0.1:9093/2": {"nodeid": 2, "state": "DOWN"},
              "GroupCoordinator": {"nodeid": -1, "state": "UP"}},
             "cgrp": {"state": "up", "join_state": "steady", "rebalance_cnt": 1}}
            """
        let statistics = try #require(ConsumerStatistics.parse(Array(json.utf8)))
        #expect(statistics.brokersUp == 1)
        let health = ConsumerHealth(
            groupState: statistics.group?.state, joinState: statistics.group?.joinState,
            brokersUp: statistics.brokersUp)
        #expect(health.hasJoinedGroup)
        #expect(!ConsumerHealth(groupState: "up", joinState: "wait-sync", brokersUp: 1).hasJoinedGroup)
        #expect(!ConsumerHealth(groupState: "wait-coord", joinState: "init", brokersUp: 0).hasJoinedGroup)
    }
}
