import Essentials
import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// The real processes: `push-worker dev-broker`, the push simulator (APNs, FCM and OAuth over TLS HTTP/2) and
/// `push-worker run`, with events produced into Kafka and the receipts, retry and dead-letter records read back.
final class EndToEnd {
    let simulator: PushSimulator
    /// What the worker signs APNs and OAuth requests with.
    let apns: APNsCredentials
    let fcm: ServiceAccountFile
    let broker: DevBrokerProcess
    /// The first worker process; `startWorker()` starts more (or a replacement).
    private(set) var worker: ChildProcess
    /// The environment every worker process (and a replay) of this run gets.
    let workerEnvironment: [String: String]
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    /// Partitions of every topic of the dev broker.
    let partitions: Int

    /// `partitions`: the dev broker's partitions per topic. The mock cluster keeps about 5 MB per partition
    /// (librdkafka's `max_size`), some 8,500 receipts: a run that writes more needs more partitions. `broker`: the
    /// mock cluster or Tansu (`PUSH_TEST_BROKER`'s choice unless a test needs the mock's fault injection).
    init(
        workerEnvironment: [String: String] = [:], producerProperties: [String: String] = [:], partitions: Int = 2,
        broker kind: TestBroker = .chosen, beforeStart: (PushSimulator) async throws -> Void = { _ in }
    )
        async throws
    {
        simulator = try await PushSimulator.start()
        try await beforeStart(simulator)
        apns = try await simulator.apnsCredentials()
        fcm = try await simulator.serviceAccountFile()
        let bootstrap: String
        self.partitions = partitions
        (broker, bootstrap) = try await startDevBroker(partitions: partitions, kind: kind)
        let environment = Self.workerEnvironment(bootstrap: bootstrap, simulator: simulator, apns: apns, fcm: fcm)
        self.workerEnvironment = environment.merging(workerEnvironment) { $1 }
        worker = try workerProcess(environment: self.workerEnvironment)
        kafka = KafkaConfiguration(["bootstrap.servers": bootstrap])
        producer = try KafkaProducer(configuration: kafka.merging(KafkaConfiguration(producerProperties)))
    }

    /// What a worker needs against the dev broker at `bootstrap` and `simulator`, signing with `apns` and `fcm`.
    static func workerEnvironment(
        bootstrap: String, simulator: PushSimulator, apns: APNsCredentials, fcm: ServiceAccountFile
    ) -> [String: String] {
        [
            "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "KAFKA_SESSION_TIMEOUT_MS": "6000",
            "KAFKA_HEARTBEAT_INTERVAL_MS": "300", "KAFKA_AUTO_COMMIT_INTERVAL_MS": "200",
            "APNS_URL": simulator.baseURL, "APNS_SANDBOX_URL": simulator.baseURL, "APNS_KEY_FILE": apns.keyFile,
            "APNS_KEY_ID": apns.keyId, "APNS_TEAM_ID": apns.teamId, "APNS_TOPIC": apns.topic,
            "FCM_URL": simulator.baseURL, "FCM_SERVICE_ACCOUNT_FILE": fcm.serviceAccountFile,
            "PUSH_CA_FILE": simulator.endpoint.caFile, "PUSH_HTTP_PORT": "0", "PUSH_HTTP_HOST": "127.0.0.1",
            "PUSH_WORKER_ID": "worker-e2e", "PUSH_SHUTDOWN_GRACE_SECONDS": "5",
        ]
    }

    /// Starts another worker process in the same group; with `replacing`, it becomes `worker`.
    @discardableResult
    func startWorker(replacing: Bool = false, id: String = "worker-e2e") throws -> ChildProcess {
        let started = try workerProcess(environment: workerEnvironment.merging(["PUSH_WORKER_ID": id]) { $1 })
        if replacing { worker = started }
        return started
    }

    /// Writes every value (keyed by its room) and waits for all delivery reports.
    func produce(_ values: [(key: String, value: String)]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, value) in values {
                let record = KafkaProducerRecord(
                    topic: "chat.messages", key: Array(key.utf8), value: Array(value.utf8))
                group.addTask { [producer] in _ = try await producer.send(record) }
            }
            try await group.waitForAll()
        }
    }

    /// A text message to one user with an APNs and an FCM device, in room `r-(index % 3)`.
    static func event(_ index: Int, apnsToken: String) -> String {
        ChatEvents.text(
            index, room: "r-\(index % 3)", devices: [.apns(token: apnsToken), .fcm(token: "fcm-token-\(index)")])
    }

    /// A text message to one user with one device, APNs (`device` 0) or FCM (1), in room `r-(index % rooms)`.
    static func event(_ index: Int, device: Int, rooms: Int) -> String {
        let device: ChatEvents.Device =
            device == 0 ? .apns(token: String(format: "%064x", index + 1)) : .fcm(token: "fcm-token-\(index)")
        return ChatEvents.text(index, room: "r-\(index % rooms)", devices: [device])
    }

    func produce(_ value: String, key: String) async throws {
        _ = try await producer.send(
            KafkaProducerRecord(topic: "chat.messages", key: Array(key.utf8), value: Array(value.utf8)))
    }

    /// How many records `topics` hold now (every partition), from their watermarks: exact at once, where reading
    /// them all could stop at a time limit.
    func recordCount(_ topics: [String]) async throws -> Int64 {
        let reader = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": "e2e-reader"])))
        var count: Int64 = 0
        for topic in topics {
            for partition in 0..<Int32(partitions) {
                let marks = try await reader.watermarks(of: TopicPartition(topic, partition))
                count += marks.high - marks.low
            }
        }
        _ = await reader.close(timeout: .seconds(5))
        return count
    }

    /// Records of `topics` (every partition, from the start) until `count` arrived or `limit` passed.
    func read(_ topics: [String], count: Int, within limit: Duration = .seconds(90)) async throws -> [KafkaRecord] {
        try await read(topics, within: limit) { $0.count >= count }
    }

    /// Records of `topics` (every partition, from the start) until `done` says so or `limit` passed.
    func read(_ topics: [String], within limit: Duration, until done: ([KafkaRecord]) -> Bool) async throws
        -> [KafkaRecord]
    {
        let reader = try KafkaConsumer(configuration: kafka.merging(KafkaConfiguration(["group.id": "e2e-reader"])))
        var assignment: [TopicPartition: KafkaOffset] = [:]
        for topic in topics {
            for partition in 0..<Int32(partitions) { assignment[TopicPartition(topic, partition)] = .beginning }
        }
        try await reader.assign(assignment)
        var records: [KafkaRecord] = []
        let deadline = ContinuousClock.now + limit
        while !done(records), ContinuousClock.now < deadline {
            records += try await reader.poll(maxRecords: 500, timeout: .milliseconds(200))
        }
        _ = await reader.close(timeout: .seconds(5))
        return records
    }

    /// Stops the worker with SIGTERM and returns its exit status; then stops the rest.
    func stop() async -> Int32? {
        worker.signal(SIGTERM)
        let status = await worker.exitStatus()
        _ = await producer.close(timeout: .seconds(5))
        _ = try? await broker.terminate()
        await simulator.stop()
        return status
    }
}

@Suite(.serialized) struct WorkerEndToEndTests {
    static let unregistered = String(repeating: "0f", count: 32)

    @Test(arguments: ["curl", "nghttp2"])
    func eventsBecomeProviderRequestsReceiptsAndDeadLetters(transport: String) async throws {
        let run = try await EndToEnd(workerEnvironment: ["PUSH_HTTP_TRANSPORT": transport]) { simulator in
            _ = try await simulator.control(
                "POST", "/control/apns-unregister",
                body: "{\"tokens\": [\"\(Self.unregistered)\"], \"timestamp\": 1700000000000}")
        }
        let count = 20
        for index in 0..<count {
            let token = index == 7 ? Self.unregistered : String(format: "%064x", index + 1)
            try await run.produce(EndToEnd.event(index, apnsToken: token), key: "r-\(index % 3)")
        }
        try await run.produce("{\"id\": 5", key: "r-x")
        let outputs = try await run.read(["push.receipts", "push.dlq", "push.invalid-tokens"], count: 2 * count + 2)
        // A later event to the dead token makes no provider request: every worker skips what the topic lists.
        try await run.produce(EndToEnd.event(99, apnsToken: Self.unregistered), key: "r-0")
        // Every receipt, m-99's two included.
        let later = try await run.read(["push.receipts"], count: 2 * count + 2)
        let requests = try await run.simulator.requests()
        // What the analysts' and the token owners' commands make of the run equals what the topics hold.
        let environment = ["KAFKA_BOOTSTRAP_SERVERS": run.workerEnvironment["KAFKA_BOOTSTRAP_SERVERS"] ?? ""]
        let stats = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["receipts", "stats", "--format", "json"], environment: environment)
        let export = try await ChildProcessResult.run(
            ChildProcess.built("push-worker"), ["receipts", "invalid-tokens", "--format", "json"],
            environment: environment)
        let log = run.worker.stderr.text
        #expect(await run.stop() == 0)
        #expect(requests.filter { $0.path.hasSuffix(Self.unregistered) }.count == 1)
        let counted = Dictionary(
            grouping: later.compactMap { try? JSONParser.parse($0.value) }, by: { $0["status"]?.stringValue ?? "?" }
        ).mapValues { JSONValue.number(String($0.count)) }
        let summary = try JSONParser.parse(Array(stats.stdout.utf8))
        #expect(summary["byStatus"] == .object(counted.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value) }))
        #expect(summary["total"] == .number(String(later.count)))
        guard case .array(let tokens) = try JSONParser.parse(Array(export.stdout.utf8)) else {
            Issue.record("receipts invalid-tokens: \(export.stdout) \(export.stderr)")
            return
        }
        #expect(tokens.map { $0["token"] } == [.string(Self.unregistered)])
        #expect(tokens.first?["messageId"] == .string("m-7"))
        let skipped = later.compactMap { try? JSONParser.parse($0.value) }.first {
            $0["messageId"] == .string("m-99") && $0["platform"] == .string("apns")
        }
        #expect(skipped?["status"] == .string("skipped"))
        #expect(skipped?["reason"] == .string("invalid_token"))

        let receipts = outputs.filter { $0.topic == "push.receipts" }.compactMap { try? JSONParser.parse($0.value) }
        #expect(receipts.count == 2 * count)
        let statuses = Dictionary(grouping: receipts) { $0["status"]?.stringValue ?? "?" }.mapValues(\.count)
        #expect(statuses == ["delivered": 2 * count - 1, "invalid_token": 1])
        let invalid = receipts.first { $0["status"] == .string("invalid_token") }
        #expect(invalid?["messageId"] == .string("m-7"))
        #expect(
            !outputs.filter { $0.topic == "push.receipts" }.contains {
                String(decoding: $0.value, as: UTF8.self).contains(Self.unregistered)
            })
        let dead = outputs.filter { $0.topic == "push.invalid-tokens" }
        #expect(
            dead.map { String(decoding: $0.key ?? [], as: UTF8.self) } == [
                "apns:" + SHA256.tokenHash(Self.unregistered)
            ])
        let record = dead.first.flatMap { InvalidTokenRecord(json: $0.value) }
        #expect(record?.token == Self.unregistered)
        #expect(record?.invalidSinceMillis == 1_700_000_000_000)
        #expect(record?.app == run.apns.topic)
        #expect(try schemaViolations(dead.map(\.value), schema: "invalid-token.schema.json") == nil)
        let deadLetters = outputs.filter { $0.topic == "push.dlq" }
        #expect(deadLetters.map { String(decoding: $0.value, as: UTF8.self) } == ["{\"id\": 5"])
        #expect(deadLetters.first?.key == Array("r-x".utf8))
        #expect(
            try schemaViolations(
                outputs.filter { $0.topic == "push.receipts" }.map(\.value), schema: "receipt.schema.json") == nil)
        #expect(try schemaViolations(deadLetters.map(\.headersJSON), schema: "dead-letter-headers.schema.json") == nil)
        if receipts.count != 2 * count { Issue.record("worker log: \(log.suffix(3000))") }
    }

    @Test func poisonRecordsAreDeadLetteredWithTheirReasonAndThePartitionKeepsFlowing() async throws {
        let run = try await EndToEnd(producerProperties: ["message.max.bytes": "4000000"])
        let badToken = EndToEnd.event(100, apnsToken: "not-hex").replacingOccurrences(of: "m-100", with: "m-bad")
        let poison = [
            ("not json", "{\"id\": "),
            ("missing fields", "{\"id\": \"m-x\", \"type\": \"text\"}"),
            ("2 MiB", "{\"id\": \"m-big\", \"pad\": \"" + String(repeating: "a", count: 2 << 20) + "\"}"),
            ("token syntax", badToken),
        ]
        var values: [(key: String, value: String)] = []
        for (index, (_, value)) in poison.enumerated() {
            values.append((key: "r-0", value: value))
            values.append((key: "r-0", value: EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1))))
        }
        for value in values { try await run.produce(value.value, key: value.key) }
        let outputs = try await run.read(["push.receipts", "push.dlq"], within: .seconds(90)) { records in
            records.filter { $0.topic == "push.dlq" }.count >= 4 && ReceiptCount(records).distinct >= 2 * 4 + 1
        }
        #expect(await run.stop() == 0)
        // Dead letters keep no input order (the 2 MiB one goes again without its value, maybe after the next one's):
        // each names its input offset, which orders them here.
        let deadLetters = outputs.filter { $0.topic == "push.dlq" }.sorted {
            Int($0.headers.text(FailureHeaders.sourceOffset) ?? "") ?? -1
                < Int($1.headers.text(FailureHeaders.sourceOffset) ?? "") ?? -1
        }
        let reasons = deadLetters.map { record in
            record.headers.first { $0.name == "x-dlq-reason" }.flatMap { $0.value }.map {
                String(decoding: $0, as: UTF8.self)
            }
        }
        #expect(deadLetters.count == 4)
        #expect(reasons == ["decode_error", "decode_error", "record_too_large", "decode_error"])
        #expect(deadLetters[2].value.isEmpty)
        #expect(deadLetters[2].headers.contains { $0.name == "x-value-dropped" })
        #expect(String(decoding: deadLetters[0].value, as: UTF8.self) == "{\"id\": ")
        // The bad-token event still reaches its FCM device; the dead letter holds only the bad device.
        let narrowed = try JSONParser.parse(deadLetters[3].value)
        #expect(narrowed["recipients"]?.arrayCount == 1)
        let receipts = ReceiptCount(outputs)
        #expect(receipts.distinct == 2 * 4 + 2)
        #expect(
            try schemaViolations(
                outputs.filter { $0.topic == "push.receipts" }.map(\.value), schema: "receipt.schema.json") == nil)
        #expect(try schemaViolations(deadLetters.map(\.headersJSON), schema: "dead-letter-headers.schema.json") == nil)
    }

    @Test func aSecondSignalDuringShutdownExitsAtOnceWith130() async throws {
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_SHUTDOWN_GRACE_SECONDS": "60", "PUSH_REQUEST_TIMEOUT_MS": "60000",
        ]) { simulator in
            try await simulator.addFaultRule("{\"path\": \".\", \"stall\": true}")
        }
        try await run.produce(EndToEnd.event(0, apnsToken: String(format: "%064x", 1)), key: "r-0")
        var checks = 0
        while checks < 600, try await run.simulator.stats().streams == 0 {  // every 50 ms, at most 30 s
            checks += 1
            try await Task.sleep(for: .milliseconds(50))
        }
        run.worker.signal(SIGTERM)
        #expect(await run.worker.stderr.waitForLine(containing: "\"shutting down\""))
        run.worker.signal(SIGTERM)
        #expect(await run.worker.exitStatus(within: .seconds(10)) == 130)
        _ = await run.stop()
    }

    /// APNs fails a random 30 % of requests. With the default 8 attempts, one of the 30 APNs devices drew 8 failures
    /// in a row and was dead-lettered in about 0.2 % of runs (30 × 0.3⁸); 40 attempts make that 30 × 0.3⁴⁰.
    @Test(arguments: ["curl", "nghttp2"])
    func providerErrorsAreRetriedUntilDeliveredAndRoomsKeepTheirOrder(transport: String) async throws {
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_RETRY_BUDGET_MS": "300", "PUSH_RETRY_BASE_MS": "50", "PUSH_RETRY_CAP_MS": "200",
            "PUSH_MAX_ATTEMPTS": "40", "PUSH_HTTP_TRANSPORT": transport,
        ]) { simulator in
            try await simulator.addFaultRule("{\"path\": \"^/3/device/\", \"rate\": 0.3, \"status\": 503}")
            try await simulator.addFaultRule(
                "{\"path\": \"messages:send$\", \"times\": 4, \"status\": 429, \"retry_after\": 1}")
        }
        let count = 30
        for index in 0..<count {
            try await run.produce(
                EndToEnd.event(index, apnsToken: String(format: "%064x", index + 1)), key: "r-\(index % 3)")
        }
        let outputs = try await run.read(["push.receipts", "push.dlq"], count: 2 * count)
        // Every retry record: all were written before the last receipt.
        let retried = try await run.read(RetryTiers(base: "push.retry").topics, within: .seconds(3)) { _ in false }
        let input = try await run.read(["chat.messages"], count: count, within: .seconds(30))
        let requests = try await run.simulator.requests()
        #expect(await run.stop() == 0)

        let receipts = outputs.filter { $0.topic == "push.receipts" }.compactMap { try? JSONParser.parse($0.value) }
        #expect(receipts.count == 2 * count)
        let undelivered = receipts.filter { $0["status"] != .string("delivered") }
        #expect(undelivered.isEmpty, "\(undelivered.prefix(3))")
        #expect(outputs.allSatisfy { $0.topic != "push.dlq" })
        #expect(!retried.isEmpty)
        #expect(try schemaViolations(retried.map(\.headersJSON), schema: "dead-letter-headers.schema.json") == nil)
        #expect(retried.allSatisfy { $0.headers.contains { $0.name == "x-retry-due" } })
        #expect(requests.contains { $0.status == 503 } && requests.contains { $0.status == 429 })
        // Each APNs receipt counts the device's requests the simulator saw, those of every retry record included.
        let apnsAttempts = receipts.filter { $0["platform"] == .string("apns") }.compactMap { receipt in
            receipt["messageId"]?.stringValue.flatMap { Int($0.dropFirst(2)) }.map { ($0, receipt["attempts"]) }
        }
        #expect(apnsAttempts.count == count)
        for (index, attempts) in apnsAttempts {
            let path = "/3/device/" + String(format: "%064x", index + 1)
            #expect(attempts == .number(String(requests.filter { $0.path == path }.count)), "m-\(index)")
        }

        // Per room, the first attempts of each message go out in event order; and (strict order, the default)
        // a message's in-process retries all come before the room's next message, unless it was handed off.
        let order = RoomOrder(input)
        #expect(order.rooms == 3)
        #expect(order.violations(in: requests).isEmpty, "\(order.violations(in: requests).prefix(5))")
        let handedOff = Set(retried.compactMap { try? JSONParser.parse($0.value)["id"]?.stringValue })
        #expect(handedOff.count < count / 2)
        let strict = order.strictViolations(in: requests, handedOff: handedOff)
        #expect(strict.isEmpty, "\(strict.prefix(5))")
    }

    /// Strict room order and the retry tiers with real processes. Room r-0: m-0's APNs send fails twice with 503
    /// and is retried in process, then m-2 and m-4. Room r-1: m-1 is answered 429 with Retry-After 600 s and m-3
    /// 503 with Retry-After 1 s, both beyond the budget: handed to the tiers of 600 s and 1 s, m-3 after m-1 on
    /// the same key (one retry partition used to hold m-3 back for the 10 minutes).
    @Test func aRetriedMessageIsDeliveredBeforeItsRoomsNextOneAndANearRetryPassesAFarOne() async throws {
        func token(_ index: Int) -> String { String(format: "%064x", index + 1) }
        let run = try await EndToEnd(workerEnvironment: [
            "PUSH_RETRY_BUDGET_MS": "500", "PUSH_RETRY_BASE_MS": "50", "PUSH_RETRY_CAP_MS": "100",
            "PUSH_RETRY_TIERS": "1s,600s",
        ]) { simulator in
            try await simulator.addFaultRule(
                #"{"path": "^/3/device/\#(token(0))$", "times": 2, "status": 503}"#)
            try await simulator.addFaultRule(
                #"{"path": "^/3/device/\#(token(1))$", "times": 1, "status": 429, "retry_after": 600}"#)
            try await simulator.addFaultRule(
                #"{"path": "^/3/device/\#(token(3))$", "times": 1, "status": 503, "retry_after": 1}"#)
        }
        let started = ContinuousClock.now
        for index in 0..<5 {
            try await run.produce(EndToEnd.event(index, device: 0, rooms: 2), key: "r-\(index % 2)")
        }
        let outputs = try await run.read(
            ["push.receipts", "push.retry-1000", "push.retry-600000"], within: .seconds(60)
        ) {
            ReceiptCount($0).distinct >= 4 && $0.filter { $0.topic.hasPrefix("push.retry-") }.count >= 2
        }
        let elapsed = ContinuousClock.now - started
        let requests = try await run.simulator.requests()
        let input = try await run.read(["chat.messages"], count: 5, within: .seconds(30))
        #expect(await run.stop() == 0)

        var receipts: [String: JSONValue] = [:]
        for record in outputs where record.topic == "push.receipts" {
            if let receipt = try? JSONParser.parse(record.value), let id = receipt["messageId"]?.stringValue {
                receipts[id] = receipt
            }
        }
        #expect(Set(receipts.keys) == ["m-0", "m-2", "m-3", "m-4"])
        #expect(receipts.values.allSatisfy { $0["status"] == .string("delivered") })
        #expect(receipts["m-0"]?["attempts"] == .number("3"))
        #expect(receipts["m-3"]?["attempts"] == .number("2"))
        #expect(elapsed < .seconds(600))
        let retries = Dictionary(
            outputs.filter { $0.topic.hasPrefix("push.retry-") }.map { ($0.topic, $0) }, uniquingKeysWith: { $1 })
        let far = retries["push.retry-600000"]
        #expect(far.map { try? JSONParser.parse($0.value)["id"]?.stringValue } == "m-1")
        let due = far?.headers.first { $0.name == "x-retry-due" }?.value.flatMap {
            Int64(String(decoding: $0, as: UTF8.self))
        }
        let failed = far?.headers.first { $0.name == "x-first-failure" }?.value.flatMap {
            Int64(String(decoding: $0, as: UTF8.self))
        }
        #expect((due ?? 0) - (failed ?? 0) >= 600_000)
        #expect(retries["push.retry-1000"].map { try? JSONParser.parse($0.value)["id"]?.stringValue } == "m-3")

        // m-0's two retries and its delivery all come before m-2's first request, and m-2's before m-4's.
        let pushes = requests.filter(\.isPush).sorted { $0.seq < $1.seq }
        #expect(pushes.filter { $0.messageId == "m-0" }.map(\.status) == [503, 503, 200])
        #expect(RoomOrder(input).strictViolations(in: pushes, handedOff: ["m-1", "m-3"]).isEmpty)
        let firstOf = { (id: String) in pushes.first { $0.messageId == id }?.seq ?? 0 }
        #expect(pushes.last { $0.messageId == "m-0" }.map(\.seq) ?? .max < firstOf("m-2"))
        #expect(firstOf("m-2") < firstOf("m-4"))
    }
}

/// Checks JSON documents against a schema of `schemas/` with `check-jsonschema` (from `.venv`); returns its
/// output when they do not all validate, nil when they do.
func schemaViolations(_ documents: [[UInt8]], schema: String) throws -> String? {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var files: [String] = []
    for (index, document) in documents.enumerated() {
        let file = directory.appendingPathComponent("\(index).json")
        try Data(document).write(to: file)
        files.append(file.path)
    }
    let (status, output) = try Repository.runTool(
        "check-jsonschema", ["--schemafile", Repository.path("schemas/\(schema)").path] + files)
    return status == 0 ? nil : output
}

extension KafkaRecord {
    /// The headers as one JSON object (name → UTF-8 value), the shape of `dead-letter-headers.schema.json`.
    var headersJSON: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        for header in headers { writer.field(header.name, String(decoding: header.value ?? [], as: UTF8.self)) }
        writer.endObject()
        return writer.bytes
    }
}

/// Receipts counted by device send (message, user, token): how many distinct sends have one, and the extras.
struct ReceiptCount {
    var distinct = 0
    var duplicates = 0
    /// The first ten sends with more than one receipt, each receipt as `receiptId status attempts worker topic[partition]@offset`:
    /// whether they are copies of one send (one receipt id) or sends again, and where each came from.
    var repeated: [String] = []

    init(_ records: [KafkaRecord]) {
        var seen: [String: String] = [:]
        for record in records where record.topic == "push.receipts" {
            guard let receipt = try? JSONParser.parse(record.value) else { continue }
            let key = [receipt["messageId"], receipt["userId"], receipt["tokenHash"]]
                .map { $0?.stringValue ?? "" }.joined(separator: "|")
            let source = receipt["source"]
            let described = [
                receipt["receiptId"]?.stringValue, receipt["status"]?.stringValue,
                receipt["attempts"]?.numberText, receipt["worker"]?.stringValue,
                "\(source?["topic"]?.stringValue ?? "?")[\(source?["partition"]?.numberText ?? "?")]@"
                    + (source?["offset"]?.numberText ?? "?"),
            ].map { $0 ?? "?" }.joined(separator: " ")
            if let first = seen[key] {
                duplicates += 1
                if repeated.count < 10 { repeated.append("\(key): \(first) / \(described)") }
            } else {
                seen[key] = described
                distinct += 1
            }
        }
    }
}

extension JSONValue {
    /// The number's text when this is a number.
    fileprivate var numberText: String? {
        if case .number(let literal) = self { return literal }
        return nil
    }

    /// The number of elements when this is an array.
    fileprivate var arrayCount: Int? {
        if case .array(let elements) = self { return elements.count }
        return nil
    }
}
