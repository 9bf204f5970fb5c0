import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import TestSupport
import Testing

/// Workers in the `assigned` registry scope against the dev broker and the push simulator: a registry of 300 clients
/// on 6 partitions, each worker holding only the registry partitions of its fan-out partitions.
final class AssignedScopeRun {
    static let partitions = 6
    static let clients = (0..<300).map { "c-\($0)" }
    /// Every tenth client mutes the rooms of the messages.
    static func mutes(_ index: Int) -> Bool { index % 10 == 3 }
    static func token(_ index: Int) -> String { "fcm-token-\(index)" }

    let simulator: PushSimulator
    let broker: DevBrokerProcess
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let environment: [String: String]
    private(set) var workers: [String: ChildProcess] = [:]

    init(extraEnvironment: [String: String] = [:]) async throws {
        simulator = try await PushSimulator.start()
        let bootstrap: String
        (broker, bootstrap) = try await startDevBroker(partitions: Self.partitions)
        kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        producer = try KafkaProducer(configuration: kafka)
        let apns = try await simulator.apnsCredentials()
        let fcm = try await simulator.serviceAccountFile()
        environment = EndToEnd.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
            .merging(["PUSH_REGISTRY_SCOPE": "assigned"].merging(extraEnvironment) { $1 }) { $1 }
    }

    static func partition(of client: String) -> Int32 {
        ClientPartitioner.partition(of: ClientKey(appID: "SampleApp", clientID: client), partitions: partitions)
    }

    /// One FCM device per client (FCM: the simulator's APNs takes one provider token per key, and three workers sign
    /// three) and the mutes, each in its client's partition.
    func writeRegistry() async throws {
        for (index, client) in Self.clients.enumerated() {
            let device =
                #"{"appID": "SampleApp", "clientId": "\#(client)", "type": "fcm", "token": "\#(Self.token(index))", "deviceId": "D1"}"#
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: "push.devices", partition: Self.partition(of: client),
                    key: Array("SampleApp/\(client)/fcm/D1".utf8), value: Array(device.utf8)))
            guard Self.mutes(index) else { continue }
            let settings = #"{"appID": "SampleApp", "clientId": "\#(client)", "mute": ["room-a", "room-b"]}"#
            _ = try await producer.send(
                KafkaProducerRecord(
                    topic: "push.clients", partition: Self.partition(of: client),
                    key: Array("SampleApp/\(client)".utf8), value: Array(settings.utf8)))
        }
    }

    /// IMKIT message `id` from `sender` to `recipients` (the sender among them).
    func sendMessage(_ id: String, from sender: String, to recipients: [String]) async throws {
        let list = (recipients + [sender]).map { "\"\($0)\"" }.joined(separator: ", ")
        let room = id.hasSuffix("0") ? "room-a" : "room-b"
        let message =
            #"{"_id": "\#(id)", "message": "hello", "room": "\#(room)", "sender": {"_id": "\#(sender)", "nickname": "S"}, "messageType": "text", "appID": "SampleApp", "pushToClients": [\#(list)]}"#
        _ = try await producer.send(
            KafkaProducerRecord(topic: "chat.messages", key: Array(room.utf8), value: Array(message.utf8)))
    }

    func startWorker(_ id: String) throws {
        workers[id] = try workerProcess(environment: environment.merging(["PUSH_WORKER_ID": id]) { $1 })
    }

    /// The receipts (every partition) until `count` distinct `messageId userId status` lines arrived or `limit`
    /// passed; the lines, and how many receipts were read.
    func receipts(count: Int, within limit: Duration) async throws -> (lines: Set<String>, read: Int) {
        let reader = try KafkaConsumer(
            configuration: kafka.merging(KafkaConfiguration(["group.id": "reader-\(UUID().uuidString.prefix(8))"])))
        try await reader.assign(
            Dictionary(
                uniqueKeysWithValues: (0..<Int32(Self.partitions)).map {
                    (TopicPartition("push.receipts", $0), .beginning)
                }))
        var lines: Set<String> = []
        var read = 0
        let deadline = ContinuousClock.now + limit
        while lines.count < count, ContinuousClock.now < deadline {
            for record in try await reader.poll(maxRecords: 500, timeout: .milliseconds(200)) {
                read += 1
                guard let receipt = try? JSONParser.parse(record.value) else { continue }
                lines.insert(
                    [receipt["messageId"], receipt["userId"], receipt["status"], receipt["reason"]]
                        .map { $0?.stringValue ?? "-" }.joined(separator: " "))
            }
        }
        _ = await reader.close(timeout: .seconds(5))
        return (lines, read)
    }

    /// Stops every worker left with SIGTERM, returning their exit statuses; then the broker and simulator.
    func stop() async -> [String: Int32?] {
        var statuses: [String: Int32?] = [:]
        for worker in workers.values where worker.isRunning { worker.signal(SIGTERM) }
        for (id, worker) in workers { statuses[id] = await worker.exitStatus(within: .seconds(60)) }
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        return statuses
    }

    func kill(_ id: String) { workers[id]?.signal(SIGKILL) }

    func terminate(_ id: String) async -> Int32? {
        workers[id]?.signal(SIGTERM)
        return await workers[id]?.exitStatus(within: .seconds(60))
    }
}

@Suite(.serialized) struct AssignedScopeTests {
    /// Message `m-k` (k from `range`) from client `k` to the 30 clients `30k … 30k+29` (mod 300), which with 10
    /// messages name every client once; the receipts expected: one per recipient but the sender, `delivered`, or
    /// `skipped muted` for the muting clients.
    static func messages(_ range: Range<Int>) -> [(id: String, sender: String, recipients: [String])] {
        range.map { k in
            ("m-\(k)", "c-\((30 * k + 7) % 300)", (0..<30).map { "c-\((30 * k + $0) % 300)" })
        }
    }

    static func expected(_ messages: [(id: String, sender: String, recipients: [String])]) -> Set<String> {
        Set(
            messages.flatMap { message in
                message.recipients.filter { $0 != message.sender }.map { client in
                    let index = Int(client.dropFirst(2)) ?? -1
                    return "\(message.id) \(client) "
                        + (AssignedScopeRun.mutes(index) ? "skipped muted" : "delivered -")
                }
            })
    }

    /// The tokens of the unmuted recipients of `messages`.
    static func sentTokens(_ messages: [(id: String, sender: String, recipients: [String])]) -> Set<String> {
        Set(
            messages.flatMap { message in
                message.recipients.filter { $0 != message.sender }.compactMap { client in
                    let index = Int(client.dropFirst(2)) ?? -1
                    return AssignedScopeRun.mutes(index) ? nil : AssignedScopeRun.token(index)
                }
            })
    }

    /// The device tokens of the FCM requests.
    static func tokens(_ requests: [RecordedRequest]) -> Set<String> {
        Set(
            requests.filter { $0.path.hasSuffix("/messages:send") }.compactMap { request in
                (try? JSONParser.parse(Array(request.body.utf8)))?["message"]?["token"]?.stringValue
            })
    }

    @Test func threeWorkersResolveEveryRecipientAgainstOnlyTheirRegistryPartitions() async throws {
        let run = try await AssignedScopeRun()
        try await run.writeRegistry()
        for id in ["worker-a", "worker-b", "worker-c"] { try run.startWorker(id) }
        let messages = Self.messages(0..<10)
        for message in messages { try await run.sendMessage(message.id, from: message.sender, to: message.recipients) }
        let expected = Self.expected(messages)
        let (lines, _) = try await run.receipts(count: expected.count, within: .seconds(120))
        let requests = try await run.simulator.requests()
        // One fan-out record per receipt expected: a muting client's is written too, and skipped in stage 2.
        let fanout = try await readRecords(run.kafka, topic: "push.fanout", count: expected.count, within: .seconds(30))
        let workers = run.workers
        let statuses = await run.stop()

        // No device missing, none foreign (a client looked up in a partition not held would be `no_devices`), never
        // the sender, mutes respected.
        #expect(
            lines == expected, "\(Self.whereMissing(expected.subtracting(lines), fanout: fanout, workers: workers))")
        // A room's messages are fanned out in its order: in every partition, room-b's (m-1 … m-9) come in that order
        // (a message fanned out again after a rebalance comes after its first copies).
        for (partition, records) in Dictionary(grouping: fanout, by: \.partition) {
            var firstSeen: [Int] = []
            for record in records.sorted(by: { $0.offset < $1.offset }) {
                guard let number = Self.messageNumber(of: record), number > 0, !firstSeen.contains(number) else {
                    continue
                }
                firstSeen.append(number)
            }
            #expect(firstSeen == firstSeen.sorted(), "push.fanout[\(partition)] has room-b's messages \(firstSeen)")
        }
        #expect(Self.tokens(requests) == Self.sentTokens(messages))
        #expect(statuses.values.allSatisfy { $0 == 0 })
        // Each worker restored registry partitions, and none restored the whole registry.
        for (id, worker) in workers {
            #expect(worker.stderr.contains("registry partition restored"), "\(id) restored nothing")
            #expect(!worker.stderr.contains("device registry loaded"), "\(id) loaded the whole registry")
        }
    }

    /// The number `k` of the message `m-k` a fan-out record carries.
    static func messageNumber(of record: KafkaRecord) -> Int? {
        guard let id = (try? JSONParser.parse(record.value))?["_id"]?.stringValue else { return nil }
        return Int(id.dropFirst(2))
    }

    /// For a failure's message: where each missing receipt's fan-out record is (`push.fanout[p]@offset`, or none),
    /// and each worker's rebalances and restores of the fan-out stage.
    static func whereMissing(_ missing: Set<String>, fanout: [KafkaRecord], workers: [String: ChildProcess]) -> String {
        guard !missing.isEmpty else { return "" }
        let positions = missing.sorted().map { line in
            let parts = line.split(separator: " ")
            let found = fanout.filter { record in
                record.key == Array("SampleApp/\(parts[1])".utf8)
                    && messageNumber(of: record) == Int(parts[0].dropFirst(2))
            }
            return "\(parts[0]) \(parts[1]): "
                + (found.isEmpty
                    ? "no fan-out record"
                    : found.map { "push.fanout[\($0.partition)]@\($0.offset)" }.joined(separator: ","))
        }
        let rebalances = workers.sorted(by: { $0.key < $1.key }).flatMap { id, worker in
            worker.stderr.lines.filter { line in
                line.contains("registry partition restored")
                    || (line.contains("push.fanout[")
                        && (line.contains("partitions assigned") || line.contains("partitions revoked")
                            || line.contains("partitions lost")))
            }.map { "\(id): \($0)" }
        }
        return (["missing:"] + positions + ["fan-out stage:"] + rebalances).joined(separator: "\n")
    }

    @Test func aKilledAndAScaledInWorkersPartitionsAreRestoredElsewhereAndNothingIsLost() async throws {
        let run = try await AssignedScopeRun()
        try await run.writeRegistry()
        for id in ["worker-a", "worker-b", "worker-c"] { try run.startWorker(id) }
        let first = Self.messages(0..<4)
        for message in first { try await run.sendMessage(message.id, from: message.sender, to: message.recipients) }
        let (before, _) = try await run.receipts(count: Self.expected(first).count, within: .seconds(120))
        #expect(before == Self.expected(first))

        run.kill("worker-a")
        #expect(await run.terminate("worker-b") == 0)
        let second = Self.messages(4..<10)
        for message in second { try await run.sendMessage(message.id, from: message.sender, to: message.recipients) }
        let expected = Self.expected(first + second)
        let (lines, _) = try await run.receipts(count: expected.count, within: .seconds(180))
        let survivor = try #require(run.workers["worker-c"])
        let statuses = await run.stop()

        #expect(lines == expected)
        #expect(statuses["worker-c"] == 0)
        // The survivor took over every partition: it restored all six registry partitions at some point.
        let restored = Set(
            survivor.stderr.lines.filter { $0.contains("registry partition restored") }.compactMap { line in
                line.firstMatch(of: /"kafka.partition":(\d+)/).map { String($0.1) }
            })
        #expect(restored == Set((0..<AssignedScopeRun.partitions).map(String.init)))
    }

    @Test func theFanoutStagesPipelineAndConsumerAreExportedWithTheirStage() async throws {
        let run = try await AssignedScopeRun()
        try await run.writeRegistry()
        try run.startWorker("worker-scraped")
        let messages = Self.messages(0..<2)
        for message in messages { try await run.sendMessage(message.id, from: message.sender, to: message.recipients) }
        let (lines, _) = try await run.receipts(count: Self.expected(messages).count, within: .seconds(120))
        let worker = try #require(run.workers["worker-scraped"])
        let port = try #require(WorkerScrapeTests.statusPort(in: worker.stderr.text))
        // Commits and lag are sampled once a second, the lag from librdkafka's statistics: both show within seconds.
        var scrape = ""
        let fanoutLag = { (scrape: String) in
            scrape.split(separator: "\n").filter {
                $0.hasPrefix("kafka_consumer_lag{") && $0.contains(#"topic="push.fanout""#)
            }
        }
        _ = try await eventually(within: .seconds(60), every: .milliseconds(500)) {
            scrape = try WorkerScrapeTests.get(port: port, "/metrics").body
            let commits = WorkerScrapeTests.sample(#"kafka_commits_total{result="success",stage="fanout"}"#, in: scrape)
            return (commits ?? 0) > 0 && fanoutLag(scrape).count == AssignedScopeRun.partitions
        }
        _ = await run.stop()
        #expect(lines == Self.expected(messages))
        #expect(WorkerScrapeTests.sample(#"kafka_partitions_assigned{stage="fanout"}"#, in: scrape) == 6, "\(scrape)")
        #expect(WorkerScrapeTests.sample(#"push_records_in_flight{stage="fanout"}"#, in: scrape) != nil)
        #expect(WorkerScrapeTests.sample(#"kafka_partitions_assigned{stage="input"}"#, in: scrape) != nil)
        #expect(
            (WorkerScrapeTests.sample(#"kafka_commits_total{result="success",stage="fanout"}"#, in: scrape) ?? 0) > 0)
        #expect(fanoutLag(scrape).count == AssignedScopeRun.partitions, "\(scrape)")
    }

    @Test func aFanoutRecordInAnotherPartitionThanItsClientsIsDeadLetteredAndItsPartitionGoesOn() async throws {
        let run = try await AssignedScopeRun()
        try await run.writeRegistry()
        try run.startWorker("worker-misplaced")
        let client = "c-5"
        let wrong = (AssignedScopeRun.partition(of: client) + 1) % Int32(AssignedScopeRun.partitions)
        // A fan-out record as the input stage writes it, in a partition its client does not belong to.
        let forged =
            #"{"_id": "m-forged", "message": "hello", "room": "room-b", "sender": {"_id": "c-1", "nickname": "S"}, "messageType": "text", "appID": "SampleApp", "pushToClients": ["\#(client)"]}"#
        _ = try await run.producer.send(
            KafkaProducerRecord(
                topic: "push.fanout", partition: wrong, key: Array("SampleApp/\(client)".utf8),
                value: Array(forged.utf8)))
        let deadLetters = try await readRecords(run.kafka, topic: "push.dlq", count: 1, within: .seconds(90))
        // The forged record's partition goes on: a message to a client of that partition is sent.
        let next = try #require(
            AssignedScopeRun.clients.indices.first { index in
                index >= 10 && !AssignedScopeRun.mutes(index)
                    && AssignedScopeRun.partition(of: AssignedScopeRun.clients[index]) == wrong
            }
            .map { AssignedScopeRun.clients[$0] })
        try await run.sendMessage("m-after", from: "c-1", to: [next, client])
        let receipts = try await run.receipts(count: 2, within: .seconds(90))
        let statuses = await run.stop()
        #expect(deadLetters.map { $0.headers.text("x-dlq-reason") } == ["misplaced_fanout"])
        #expect(deadLetters.map { String(decoding: $0.value, as: UTF8.self) } == [forged])
        #expect(receipts.lines == ["m-after \(next) delivered -", "m-after \(client) delivered -"])
        #expect(statuses.values.allSatisfy { $0 == 0 })
    }

    @Test func aFanoutTopicOfAnotherPartitionCountIsRefusedWithExit3() async throws {
        let run = try await AssignedScopeRun(extraEnvironment: ["PUSH_FANOUT_TOPIC": "fanout-four"])
        try await run.broker.control("create-topic fanout-four 4")
        try run.startWorker("worker-refused")
        let worker = try #require(run.workers["worker-refused"])
        let status = await worker.exitStatus(within: .seconds(60))
        _ = await run.stop()
        #expect(status == 3)
        #expect(
            worker.stderr.contains(
                "fanout-four has 4 partitions, push.devices has 6 partitions, push.clients has 6 partitions"))
    }

    /// The broker creates topics on request (the mock cluster does, as Kafka's `auto.create.topics.enable`): the
    /// worker's metadata lookups must not create the fan-out topic with the broker's default partition count.
    @Test func aMissingFanoutTopicIsRefusedWithExit3AndNotCreated() async throws {
        let run = try await AssignedScopeRun(extraEnvironment: ["PUSH_FANOUT_TOPIC": "fanout-missing"])
        try run.startWorker("worker-refused")
        let worker = try #require(run.workers["worker-refused"])
        let status = await worker.exitStatus(within: .seconds(60))
        let partitions = (try? await run.producer.partitions(ofExisting: ["fanout-missing"]))?["fanout-missing"] ?? []
        _ = await run.stop()
        #expect(status == 3)
        #expect(worker.stderr.contains("fanout-missing has no metadata (missing)"))
        #expect(partitions.isEmpty)
    }
}
