import Foundation
import PushCore
import PushPipeline

/// What planning costs alone, in one thread with no I/O: the worker's planner stack (`IMKITPlanner` over
/// `CustomPushPlanner` over `CorePlanner`, the default rules) run over events shaped like the benchmark's
/// (`deploy/local/bench_events.py`), `prepare` then `plan`, and the CPU time per event, best of 7 passes
/// (`PLANNING_BENCHMARK_PASSES`). For changes to decoding and planning too small for an end-to-end run on a shared
/// machine to resolve.
///
///     PlanningBenchmark            # 20,000 stream events of 1–3 devices
///     PlanningBenchmark 500        # 100 fan-out events of 500 recipients with an APNs and an FCM device each
///     PlanningBenchmark imkit      # 20,000 IMKIT messages to 1–3 clients, resolved through a directory
///     PlanningBenchmark imkit 500  # 100 IMKIT messages to 500 clients
///
/// In the directory every client has one device, APNs or FCM in turn. Prints one line: the recipients per event (0:
/// the stream case), µs per event and per device, devices per pass. The events are the same in every run (a fixed
/// seed).
let arguments = CommandLine.arguments.dropFirst()
let imkit = arguments.first == "imkit"
let recipients = arguments.dropFirst(imkit ? 1 : 0).first.flatMap { Int($0) }.map { max(0, $0) } ?? 0
let eventCount = recipients > 0 ? 100 : 20_000
/// `PLANNING_BENCHMARK_PASSES` lowers it, for a run under valgrind.
let passes =
    ProcessInfo.processInfo.environment["PLANNING_BENCHMARK_PASSES"].flatMap { Int($0) }.map { max(1, $0) }
    ?? 7

/// A directory without devices: events carry their own.
struct NoDevices: DeviceDirectory {
    func subscriptions(of client: ClientKey) -> [Subscription] { [] }
    func settings(of client: ClientKey) -> ClientSettings? { nil }
}

/// The IMKIT messages' clients `c-0` to `c-99999`: one device each, APNs for even numbers, FCM for odd ones. Made
/// once, so that a lookup costs what a memory store's does.
struct OneDeviceEach: DeviceDirectory {
    let devices: [[Subscription]] = (0..<100_000).map { number in
        let apns = number % 2 == 0
        let digits = String(number, radix: 16)
        return [
            Subscription(
                appID: "BenchApp", clientID: "c-\(number)", type: apns ? .ios : .fcm,
                token: String(repeating: apns ? "a" : "f", count: (apns ? 64 : 140) - digits.count) + digits,
                deviceID: "d")
        ]
    }

    func subscriptions(of client: ClientKey) -> [Subscription] {
        guard client.appID == "BenchApp", client.clientID.hasPrefix("c-"),
            let number = Int(client.clientID.dropFirst(2)),
            devices.indices.contains(number)
        else { return [] }
        return devices[number]
    }

    func settings(of client: ClientKey) -> ClientSettings? { nil }
}

/// SplitMix64: the same events in every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

func hexDigits(_ count: Int, _ random: inout SeededGenerator) -> String {
    let digits = Array("0123456789abcdef")
    return String((0..<count).map { _ in digits[Int(random.next() % 16)] })
}

func device(apns: Bool, _ random: inout SeededGenerator) -> String {
    apns
        ? #"{"platform":"apns","token":"\#(hexDigits(64, &random))"}"#
        : #"{"platform":"fcm","token":"f\#(hexDigits(140, &random))"}"#
}

func recipient(devices: [String], _ random: inout SeededGenerator) -> String {
    let user = Int.random(in: 0..<100_000, using: &random)
    let badge = Int.random(in: 0..<20, using: &random)
    return #"{"userId":"u-\#(user)","badge":\#(badge),"muted":false,"devices":[\#(devices.joined(separator: ","))]}"#
}

func events(nowMillis: Int64) -> [[UInt8]] {
    var random = SeededGenerator(state: 42)
    let types = ["text", "text", "text", "image", "sticker", "file"]
    return (0..<eventCount).map { index in
        var members: [String] = []
        if recipients > 0 {
            for _ in 0..<recipients {
                members.append(
                    recipient(devices: [device(apns: true, &random), device(apns: false, &random)], &random))
            }
        } else {
            let count = [1, 1, 2, 2, 3][Int(random.next() % 5)]
            let devices = (0..<count).map { _ in device(apns: random.next() % 2 == 0, &random) }
            members.append(recipient(devices: devices, &random))
        }
        let room = "r-\(Int.random(in: 0..<5000, using: &random))"
        let type = types[Int(random.next() % UInt64(types.count))]
        let sender = Int.random(in: 0..<100_000, using: &random)
        let content =
            "Hello there, this is a benchmark message "
            + String(repeating: "x", count: Int.random(in: 0..<80, using: &random))
        let json =
            #"{"id":"m-\#(index)","type":"\#(type)","room":{"id":"\#(room)","name":"Room \#(room)"},"#
            + #""sender":{"id":"u-\#(sender)","nickname":"Alice"},"content":"\#(content)","createdAt":\#(nowMillis),"#
            + #""recipients":[\#(members.joined(separator: ","))],"#
            + #""payload":{"messageId":"m-\#(index)","kind":"benchmark"}}"#
        return Array(json.utf8)
    }
}

/// IMKIT messages (IMKIT's Message Model) to clients of `OneDeviceEach`, shaped like the events.
func messages(nowMillis: Int64) -> [[UInt8]] {
    var random = SeededGenerator(state: 42)
    let types = ["text", "text", "text", "image", "sticker", "file"]
    return (0..<eventCount).map { index in
        let count = recipients > 0 ? recipients : [1, 1, 2, 2, 3][Int(random.next() % 5)]
        let clients = (0..<count).map { _ in #""c-\#(Int.random(in: 0..<100_000, using: &random))""# }
        let room = "r-\(Int.random(in: 0..<5000, using: &random))"
        let type = types[Int(random.next() % UInt64(types.count))]
        let content =
            "Hello there, this is a benchmark message "
            + String(repeating: "x", count: Int.random(in: 0..<80, using: &random))
        let json =
            #"{"_id":"m-\#(index)","message":"\#(content)","room":"\#(room)","roomName":"Room \#(room)","#
            + #""sender":{"_id":"sender","nickname":"Alice"},"messageType":"\#(type)","appID":"BenchApp","#
            + #""messageTimeMS":\#(nowMillis),"pushToClients":[\#(clients.joined(separator: ","))]}"#
        return Array(json.utf8)
    }
}

/// The process's CPU time (user and system), in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

let nowMillis = Int64(Date().timeIntervalSince1970 * 1000)
let apps = SingleApp(ProviderContext(apnsTopic: "com.example.app", fcmProjectID: "example-project"))
let core = CorePlanner(rules: RulesTable.standard, apps: apps)
let directory: any DeviceDirectory = imkit ? OneDeviceEach() : NoDevices()
let planner: any EventPlanner<ProviderSend> = IMKITPlanner(
    events: CustomPushPlanner(events: core, directory: directory, apps: apps), directory: directory)
let records = imkit ? messages(nowMillis: nowMillis) : events(nowMillis: nowMillis)

/// One pass over every record: the devices planned. A function of its own, so that `callgrind --toggle-collect`
/// (`ab_planning.sh --instructions`) counts the instructions of planning alone.
@inline(never)
func planningPass(_ records: [[UInt8]]) -> Int {
    var devices = 0
    for record in records {
        switch planner.prepare(record).plan(nowMillis: nowMillis) {
        case .success(let planned): devices += planned.devices.count
        case .failure(let problem):
            print("PlanningBenchmark: an event was not planned: \(problem.reason) \(problem.message)")
            exit(1)
        }
    }
    return devices
}

var devicesPerPass = 0
var best = Double.infinity
for _ in 0..<passes {
    let start = cpuSeconds()
    devicesPerPass = planningPass(records)
    best = min(best, cpuSeconds() - start)
}
print(
    (imkit ? "imkit " : "")
        + String(
            format: "recipients %d: %.2f µs per event, %.3f µs per device (best of %d passes; %d devices a pass)",
            recipients, best / Double(eventCount) * 1e6, best / Double(max(1, devicesPerPass)) * 1e6, passes,
            devicesPerPass))
