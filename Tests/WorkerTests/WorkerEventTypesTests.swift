import Foundation
import IntegrationSupport
import Kafka
import KafkaTypes
import PushCore
import PushPipeline
import TestSupport
import Testing

/// Events of every type the built-in rules table lists, plus one it does not (`poll`, sent by its fallback
/// rule), each with three devices of two users: APNs, APNs VoIP and FCM mixed, some sandbox, some users muted,
/// some events older than every time to live.
struct MixedEvents {
    static let types = RulesTable.standard.types.keys.sorted() + ["poll"]
    /// The content of encrypted events: it must never reach a provider.
    static let secret = "CIPHERTEXT-"

    let count: Int
    let rooms: Int
    let nowMillis: Int64

    /// Event `index`: type `types[index % types.count]`, in room `room-(index % rooms)`.
    func event(_ index: Int) -> (key: String, value: String) {
        let type = Self.types[index % Self.types.count]
        let room = "room-\(index % rooms)"
        // One event in 25 was made a day and an hour ago: past every rule's time to live.
        let createdAt = index % 25 == 0 ? nowMillis - 90_000_000 : nowMillis
        let content = type == "encrypted" ? "\(Self.secret)\(index)" : "Hello \(index)"
        let payload = type == "call" ? #", "payload": {"callId": "c-\#(index)", "media": "audio"}"# : ""
        let value = """
            {"id": "m-\(index)", "type": "\(type)", "room": {"id": "\(room)", "name": "Team \(index % rooms)"},
             "sender": {"id": "u-1", "nickname": "Alice"}, "target": {"id": "u-9", "nickname": "Bob"},
             "content": "\(content)", "createdAt": \(createdAt)\(payload),
             "recipients": [
               {"userId": "u-2", "badge": \(index % 5), "muted": \(index % 7 == 3),
                "devices": [\(device(index, slot: 0)), \(device(index, slot: 1))]},
               {"userId": "u-3", "muted": \(index % 3 == 0), "devices": [\(device(index, slot: 2))]}]}
            """
        return (key: room, value: value)
    }

    /// The device in `slot` (0...2) of event `index`: the platforms rotate over four layouts.
    private func device(_ index: Int, slot: Int) -> String {
        let layouts: [[String]] = [
            ["apns", "fcm", "apns-sandbox"], ["apns-sandbox", "apns-voip", "fcm"],
            ["apns-voip", "fcm", "apns"], ["fcm", "apns-sandbox", "apns-voip"],
        ]
        let token = String(format: "%056x%08x", index, slot)
        switch layouts[index % layouts.count][slot] {
        case "fcm": return #"{"platform": "fcm", "token": "fcm-\#(index)-\#(slot)"}"#
        case "apns-voip": return #"{"platform": "apns-voip", "token": "\#(token)"}"#
        case "apns-sandbox": return #"{"platform": "apns", "token": "\#(token)", "sandbox": true}"#
        default: return #"{"platform": "apns", "token": "\#(token)"}"#
        }
    }

    var all: [(key: String, value: String)] { (0..<count).map(event) }
}

/// What the worker must do with an event, from PushCore's planner (through the worker's own planner port).
struct ExpectedOutcomes {
    /// The receipt status per device send, keyed like `ReceiptCount` (message | user | token hash).
    var statuses: [String: String] = [:]
    /// Every provider request to send, as its path and body (`requestKey`), sorted.
    var requests: [String] = []

    init(_ events: [(key: String, value: String)], context: ProviderContext, nowMillis: Int64) {
        let planner = CorePlanner(rules: .standard, context: context)
        for (_, value) in events {
            guard case .success(let event) = planner.plan(Array(value.utf8), nowMillis: nowMillis) else { continue }
            for device in event.devices {
                let key = [event.messageId, device.target.userId, device.target.tokenHash].joined(separator: "|")
                switch device.decision {
                case .send(_, let send):
                    statuses[key] = ReceiptStatus.delivered.rawValue
                    requests.append(Self.requestKey(path: send.request.path, body: send.request.body))
                case .skipped: statuses[key] = ReceiptStatus.skipped.rawValue
                case .expired: statuses[key] = ReceiptStatus.expired.rawValue
                case .rejected: statuses[key] = ReceiptStatus.rejected.rawValue
                case .deadLetter: statuses[key] = ReceiptStatus.deadLettered.rawValue
                }
            }
        }
        requests.sort()
    }

    static func requestKey(path: String, body: [UInt8]) -> String {
        path + "\n" + String(decoding: body, as: UTF8.self)
    }
}

/// Every event type end to end, and the per-room order of first attempts, with real processes.
@Suite(.serialized) struct WorkerEventTypesTests {
    /// 1,000 events in total (about 60 of each of the 16 types), three devices each, in 40 rooms: enough for every
    /// type, platform, sandbox and mute combination many times over, while the run stays well under a minute on
    /// a loaded 2-core machine (1,000 events of *each* type would be 16,000 events and several minutes).
    @Test func everyEventTypeGetsOneReceiptPerDeviceWithThePlannedStatusAndAcceptedRequests() async throws {
        let run = try await EndToEnd()
        let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
        let events = MixedEvents(count: 1_000, rooms: 40, nowMillis: nowMillis).all
        let expected = ExpectedOutcomes(
            events, context: ProviderContext(apnsTopic: run.apns.topic, fcmProjectID: run.fcm.projectId),
            nowMillis: nowMillis)
        try await run.produce(events)
        let outputs = try await run.read(["push.receipts", "push.dlq"], within: .seconds(120)) {
            ReceiptCount($0).distinct >= expected.statuses.count
        }
        let input = try await run.read(["chat.messages"], count: events.count, within: .seconds(30))
        let requests = try await run.simulator.requests().sorted { $0.seq < $1.seq }
        #expect(await run.stop() == 0)

        var statuses: [String: String] = [:]
        for record in outputs where record.topic == "push.receipts" {
            guard let receipt = try? JSONParser.parse(record.value) else { continue }
            let key = [receipt["messageId"], receipt["userId"], receipt["tokenHash"]]
                .map { $0?.stringValue ?? "" }.joined(separator: "|")
            statuses[key] = receipt["status"]?.stringValue
        }
        #expect(expected.statuses.count == 3 * events.count)
        #expect(Set(expected.statuses.values) == ["delivered", "skipped", "expired"])
        #expect(statuses == expected.statuses)
        #expect(ReceiptCount(outputs).duplicates == 0)
        #expect(outputs.allSatisfy { $0.topic != "push.dlq" })

        // Every planned request reached the simulator once, byte for byte, and passed its strict checks.
        let sent = requests.filter(\.isPush)
        #expect(
            sent.map { ExpectedOutcomes.requestKey(path: $0.path, body: Array($0.body.utf8)) }.sorted()
                == expected.requests)
        let refused = requests.filter { $0.status != 200 }
        #expect(
            refused.isEmpty, "refused: \(refused.prefix(5).map { "\($0.path) \($0.status ?? 0) \($0.fault ?? "")" })")
        #expect(!requests.contains { $0.body.contains(MixedEvents.secret) })

        // Per room, the first attempts of a message all come before those of the room's next message.
        let order = RoomOrder(input)
        #expect(order.rooms == 40)
        #expect(order.violations(in: requests).isEmpty, "\(order.violations(in: requests).prefix(5))")
    }
}

/// The order of messages per room, as their input records' offsets give it.
struct RoomOrder {
    /// Room and position within the room, per message id.
    private var positions: [String: (room: String, position: Int)] = [:]
    private(set) var rooms = 0

    init(_ input: [KafkaRecord]) {
        var next: [String: Int] = [:]
        for record in input.sorted(by: { ($0.partition, $0.offset) < ($1.partition, $1.offset) }) {
            guard let event = try? JSONParser.parse(record.value), let id = event["id"]?.stringValue,
                let room = event["room"]?["id"]?.stringValue
            else { continue }
            positions[id] = (room, next[room, default: 0])
            next[room, default: 0] += 1
        }
        rooms = next.count
    }

    /// The places where first attempts (the first request of each path and body, in the simulator's order)
    /// step back within a room: a message's request after one of a later message of its room.
    func violations(in requests: [RecordedRequest]) -> [String] {
        var attempted = Set<String>()
        var latest: [String: (id: String, position: Int)] = [:]
        var violations: [String] = []
        for request in requests.sorted(by: { $0.seq < $1.seq }) where request.isPush {
            guard attempted.insert(request.path + "\n" + request.body).inserted, let id = request.messageId,
                let (room, position) = positions[id]
            else { continue }
            if let previous = latest[room], previous.position > position {
                violations.append("\(room): \(id) after \(previous.id)")
            } else {
                latest[room] = (id, position)
            }
        }
        return violations
    }

    /// Strict room order (`PUSH_ROOM_ORDER=strict`): the places where a request of a message (first attempt or
    /// in-process retry) comes after the first request of a later message of its room. Messages in `handedOff`
    /// went through the retry topic, which lets later messages pass, and are left out.
    func strictViolations(in requests: [RecordedRequest], handedOff: Set<String>) -> [String] {
        var first: [String: Int] = [:]
        var last: [String: Int] = [:]
        for request in requests where request.isPush {
            guard let id = request.messageId, positions[id] != nil else { continue }
            first[id] = min(first[id] ?? request.seq, request.seq)
            last[id] = max(last[id] ?? request.seq, request.seq)
        }
        let byRoom = Dictionary(grouping: positions) { $0.value.room }.mapValues { messages in
            messages.sorted { $0.value.position < $1.value.position }.map(\.key)
        }
        var violations: [String] = []
        for (room, ids) in byRoom {
            for (index, id) in ids.enumerated() where !handedOff.contains(id) {
                guard let end = last[id] else { continue }
                for later in ids[(index + 1)...] where first[later].map({ $0 < end }) ?? false {
                    violations.append("\(room): \(later) before \(id) was settled")
                }
            }
        }
        return violations.sorted()
    }
}

extension RecordedRequest {
    /// An APNs or FCM send (not an OAuth token request).
    var isPush: Bool { path.hasPrefix("/3/device/") || path.hasSuffix("messages:send") }

    /// The message id the worker put in the push (`mid`: top level for APNs, in `message.data` for FCM).
    var messageId: String? {
        guard let body = try? JSONParser.parse(Array(self.body.utf8)) else { return nil }
        return (body["mid"] ?? body["message"]?["data"]?["mid"])?.stringValue
    }
}
