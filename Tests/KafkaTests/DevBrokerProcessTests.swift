import Foundation
import Testing

/// `push-worker dev-broker` run as a child process, as other processes (kcat, the worker's tests) use it.
final class DevBrokerProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let lines = Shared<[String]>([])

    init(arguments: [String] = []) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("push-worker")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["dev-broker"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let lines = lines
        let pending = Shared("")
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            let complete = pending.update { buffer -> [String] in
                buffer += text
                var parts = buffer.components(separatedBy: "\n")
                buffer = parts.removeLast()
                return parts
            }
            lines.update { $0 += complete }
        }
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
    }

    /// The stdout line number `index` (from 0), waiting up to `limit` for it.
    func line(_ index: Int, within limit: Duration = .seconds(20)) async throws -> String? {
        _ = try await waitUntil(within: limit) { lines.value.count > index }
        let current = lines.value
        return index < current.count ? current[index] : nil
    }

    /// Sends one control command and returns its answer line.
    func send(_ command: String) async throws -> String? {
        let answerIndex = lines.value.count
        input.write(Data((command + "\n").utf8))
        return try await line(answerIndex)
    }

    /// Sends SIGTERM and returns the exit status (nil if it did not exit within 20 s).
    func terminate() async throws -> Int32? {
        process.terminate()
        let exited = try await waitUntil(within: .seconds(20)) { !process.isRunning }
        return exited ? process.terminationStatus : nil
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Runs `kcat` with `arguments`, feeding `input`, and returns its exit status and stdout.
func kcat(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/kcat")
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

@Suite(.serialized, .timeLimit(.minutes(2)))
struct DevBrokerProcessTests {
    @Test func kcatRoundTripsRecordsThroughTheDevBrokerAndControlCommandsInjectFaults() async throws {
        let broker = try DevBrokerProcess(arguments: [
            "--brokers", "2", "--partitions", "2", "--topics", "chat.messages,push.dlq",
        ])
        let ready = try #require(try await broker.line(0))
        #expect(ready.hasPrefix("bootstrap.servers=127.0.0.1:"))
        let servers = String(ready.dropFirst("bootstrap.servers=".count))
        #expect(servers.split(separator: ",").count == 2)

        let events = ["{\"id\":\"m-1\",\"type\":\"text\"}", "{\"id\":\"m-2\",\"type\":\"image\"}"]
        let produced = try kcat(
            ["-P", "-b", servers, "-t", "chat.messages", "-p", "0", "-k", "r-42", "-H", "trace=t-1"],
            input: events.joined(separator: "\n") + "\n")
        #expect(produced.status == 0)
        let consumed = try kcat(["-C", "-b", servers, "-t", "chat.messages", "-e", "-q", "-f", "%k|%s|%h\\n"])
        #expect(consumed.status == 0)
        #expect(consumed.output == events.map { "r-42|\($0)|trace=t-1\n" }.joined())

        #expect(
            try await broker.send("request-errors Produce 1 TOPIC_AUTHORIZATION_FAILED")
                == "ok request-errors Produce 1 TOPIC_AUTHORIZATION_FAILED")
        let refused = try kcat(["-P", "-b", servers, "-t", "push.dlq", "-p", "0"], input: "refused\n")
        #expect(refused.status != 0)
        #expect(
            try await broker.send("request-errors OffsetCommit 5 REQUEST_TIMED_OUT")
                == "ok request-errors OffsetCommit 5 REQUEST_TIMED_OUT")
        #expect(try await broker.send("clear-request-errors OffsetCommit") == "ok clear-request-errors OffsetCommit")
        #expect(try await broker.send("rtt 2 50") == "ok rtt 2 50")
        #expect(try await broker.send("broker-down 1") == "ok broker-down 1")
        #expect(try await broker.send("broker-up 1") == "ok broker-up 1")
        #expect(try await broker.send("leader chat.messages 0 2") == "ok leader chat.messages 0 2")
        #expect(try await broker.send("create-topic push.retry 3") == "ok create-topic push.retry 3")
        #expect(
            try await broker.send("request-errors Produce 1 NO_SUCH_ERROR")
                == "error request-errors Produce 1 NO_SUCH_ERROR: unknown error name 'NO_SUCH_ERROR'")
        #expect(try await broker.send("explode") == "error explode: unknown command 'explode'")

        let accepted = try kcat(["-P", "-b", servers, "-t", "push.retry", "-p", "2"], input: "later\n")
        #expect(accepted.status == 0)
        #expect(try await broker.terminate() == 0)
    }
}
