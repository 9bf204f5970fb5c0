import Foundation
import HTTP2
import HTTPTypes
import Providers
import PushCore
import Synchronization

/// What a group of sends costs the HTTP/2 transport: `groups` groups of `size` APNs-like POSTs (600-byte bodies,
/// the worker's headers) to `url`, one group at a time, each sent either as one concurrent `send` per request in a
/// task group (`send`) or with one `sendAll` (`sendAll`); `apns-send` and `apns-sendAll` do the same through an
/// `APNsClient` (certificate auth: no signing), its answers classified. For `deploy/local/bench_send_all.py`, which
/// runs it against the benchmark's nginx and counts the Swift runtime's calls in it.
///
///     TransportBenchmark URL CA_FILE send|sendAll|apns-send|apns-sendAll SIZE GROUPS [nghttp2|curl]
///
/// Prints `ready` once its connection is open, waits for a line on standard input (the time to attach a recorder),
/// then sends and prints one line: `MODE SIZE x GROUPS: N requests in S s: R requests/s, CPU C s, failed F`.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 5, ["send", "sendAll", "apns-send", "apns-sendAll"].contains(arguments[2]),
    let size = Int(arguments[3]),
    let groups = Int(arguments[4]), size > 0, groups > 0,
    let kind = HTTP2TransportKind(rawValue: arguments.count > 5 ? arguments[5] : "nghttp2")
else {
    print("usage: TransportBenchmark URL CA_FILE send|sendAll|apns-send|apns-sendAll SIZE GROUPS [nghttp2|curl]")
    exit(2)
}
let (url, caFile, mode) = (arguments[0], arguments[1], arguments[2])

let transport = try kind.make(HTTP2TransportConfiguration(extraCAFile: caFile))
let headers = [
    HTTPHeader("content-type", "application/json"), HTTPHeader("apns-push-type", "alert"),
    HTTPHeader("apns-topic", "com.example.chat"), HTTPHeader("apns-priority", "10"),
    HTTPHeader("apns-expiration", "1800000000"), HTTPHeader("apns-collapse-id", "r-42"),
    HTTPHeader("authorization", "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IktFWSJ9.e30.c2lnbmF0dXJl"),
]
let body = Array(#"{"aps":{"alert":{"body":"\#(String(repeating: "x", count: 560))"}}}"#.utf8)
let apns = APNsClient(
    configuration: APNsConfiguration(authentication: .certificate, productionURL: url, sandboxURL: url),
    transport: transport)
let notifications = (0..<size).map { index in
    APNsNotification(
        deviceToken: String(format: "%064x", index), sandbox: false, headers: Array(headers.dropLast()), body: body)
}
let group = (0..<size).map { index in
    HTTPRequest(
        method: "POST", url: "\(url)/3/device/\(String(format: "%064x", index))", headers: headers, body: body,
        deadline: .seconds(30))
}

/// Sends `group` once the way `mode` says; the requests that got no 200.
func sendOnce() async -> Int {
    switch mode {
    case "send":
        return await withTaskGroup(of: Bool.self) { tasks in
            for request in group {
                tasks.addTask { (try? await transport.send(request).status) == 200 }
            }
            return await tasks.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
    case "sendAll":
        let failed = Atomic(0)
        await transport.sendAll(group) { _, result in
            if (try? result.get().status) != 200 { failed.add(1, ordering: .relaxed) }
        }
        return failed.load(ordering: .relaxed)
    case "apns-send":
        return await withTaskGroup(of: Bool.self) { tasks in
            for notification in notifications {
                tasks.addTask {
                    await apns.send(
                        deviceToken: notification.deviceToken, sandbox: false, headers: notification.headers,
                        body: notification.body
                    ).isDelivered
                }
            }
            return await tasks.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
    default:
        let failed = Atomic(0)
        await apns.sendAll(notifications) { _, outcome in
            if !outcome.isDelivered { failed.add(1, ordering: .relaxed) }
        }
        return failed.load(ordering: .relaxed)
    }
}

extension DeliveryOutcome {
    var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}

/// The process's CPU time so far, user and system, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

_ = await sendOnce()
/// Writes `line` to standard output at once (a pipe's output is otherwise buffered).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

say("ready")
_ = readLine()
let started = ContinuousClock.now
let cpuBefore = cpuSeconds()
var failed = 0
for _ in 0..<groups { failed += await sendOnce() }
let seconds =
    Double((ContinuousClock.now - started).components.attoseconds) / 1e18
    + Double((ContinuousClock.now - started).components.seconds)
let cpu = cpuSeconds() - cpuBefore
let requests = size * groups
say(
    "\(mode) \(size) x \(groups): \(requests) requests in \(String(format: "%.2f", seconds)) s: "
        + "\(Int(Double(requests) / seconds)) requests/s, CPU \(String(format: "%.2f", cpu)) s, failed \(failed)")
await transport.shutdown()
