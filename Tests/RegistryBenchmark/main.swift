import DeviceRegistry
import Foundation
import PushCore
import PushPipeline

/// What a lookup in each device store costs beside planning one send, in one process with no I/O but the LMDB file:
/// `RegistryBenchmark [DEVICES] [LOOKUPS]` loads DEVICES subscriptions (half `ios`, half `fcm` with 163-character
/// tokens, two per client) into a memory store and an LMDB store in a temporary folder, looks LOOKUPS random clients
/// up in each (their devices and settings, what resolving one client takes), decodes LOOKUPS registry records (key and
/// JSON value, as `push.devices` holds them), plans LOOKUPS one-device chat-message events with the default rules,
/// and prints one line per figure in nanoseconds.
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let deviceCount = arguments.first ?? 1_000_000
let lookupCount = arguments.dropFirst().first ?? 200_000
let clientCount = max(1, deviceCount / 2)

func subscription(_ index: Int) -> Subscription {
    let client = "client-\(index / 2)"
    if index % 2 == 0 {
        let hex = String(index, radix: 16)
        return Subscription(
            appID: "BenchApp", clientID: client, type: .ios,
            token: String(repeating: "0", count: 64 - hex.count) + hex, deviceID: "phone")
    }
    let prefix = "fcm:\(index):"
    return Subscription(
        appID: "BenchApp", clientID: client, type: .fcm,
        token: prefix + String(repeating: "A", count: 163 - prefix.count), deviceID: "tablet")
}

func load(_ store: any DeviceStore) throws {
    for start in stride(from: 0, to: deviceCount, by: 1000) {
        let changes = (start..<min(start + 1000, deviceCount)).map { index in
            let subscription = subscription(index)
            return RegistryChange.put(subscription.key, subscription)
        }
        try store.apply(RegistryBatch(topic: "push.devices", devices: changes, offsets: [0: Int64(start + 1000)]))
    }
}

/// Nanoseconds per operation of `body` over `count` operations.
func nanoseconds(_ count: Int, _ body: (Int) -> Int) -> (Double, Int) {
    var checksum = 0
    let elapsed = ContinuousClock().measure {
        for index in 0..<count { checksum &+= body(index) }
    }
    let (seconds, attoseconds) = elapsed.components
    return ((Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(count), checksum)
}

var generator = SystemRandomNumberGenerator()
let clients = (0..<lookupCount).map { _ in
    ClientKey(appID: "BenchApp", clientID: "client-\(Int.random(in: 0..<clientCount, using: &generator))")
}
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("registry-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
defer { try? FileManager.default.removeItem(at: folder) }

let memory = MemoryDeviceStore()
let lmdb = try LMDBDeviceStore(path: folder.path, mapBytes: 1 << 30)
for (name, store) in [("memory", memory as any DeviceStore), ("lmdb", lmdb)] {
    try load(store)
    let (perLookup, found) = nanoseconds(lookupCount) { index in
        store.subscriptions(of: clients[index]).count + (store.settings(of: clients[index]) == nil ? 0 : 1)
    }
    print("\(name) lookup_ns \(Int(perLookup)) devices_found \(found)")
}

let records = (0..<1000).map { index in
    let subscription = subscription(index)
    let key = "BenchApp/\(subscription.clientID)/\(subscription.type.rawValue)/\(subscription.deviceID)"
    let value =
        #"{"appID": "BenchApp", "clientId": "\#(subscription.clientID)", "type": "\#(subscription.type.rawValue)", "#
        + #""token": "\#(subscription.token)", "deviceId": "\#(subscription.deviceID)", "locale": "en-US", "#
        + #""updatedAtMS": 1795953600000}"#
    return (key: Array(key.utf8), value: Array(value.utf8))
}
var locales = LocaleMemo()
let (perDecode, decoded) = nanoseconds(lookupCount) { index in
    let record = records[index % records.count]
    let change = try? RegistryRecordDecoder.subscription(key: record.key, value: record.value, locales: &locales)
    if case .put? = change { return 1 }
    return 0
}
print("decode_record_ns \(Int(perDecode)) records_decoded \(decoded)")

let planner = CorePlanner(
    rules: .standard, context: ProviderContext(apnsTopic: "com.example.chat", fcmProjectID: "bench-project"))
let events = (0..<1000).map { index in
    Array(
        #"{"id": "m-\#(index)", "type": "text", "room": {"id": "r-\#(index % 50)", "name": "Team"}, "sender": {"id": "u-1", "nickname": "Alice"}, "content": "Hello \#(index)", "createdAt": 1795953600000, "recipients": [{"userId": "u-\#(index)", "badge": 1, "devices": [{"platform": "fcm", "token": "\#(subscription(2 * index + 1).token)"}]}]}"#
            .utf8)
}
let (perPlan, planned) = nanoseconds(lookupCount) { index in
    (try? planner.plan(events[index % events.count], nowMillis: 1_795_953_600_000).get())?.devices.count ?? 0
}
print("planning_one_send_ns \(Int(perPlan)) sends_planned \(planned)")
lmdb.close()
