import Foundation
import PushCore
import TestSupport
import Testing

/// `push-worker render` end to end: the built executable (beside this test binary) on every sample event.
@Suite struct RenderCommandTests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("push-worker")
    }

    func render(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ChildProcessResult.run(Self.executable, ["render"] + arguments, environment: [:])
        return (result.status, result.stdout, result.stderr)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: executable.path), "run `swift build` first"))
    func rendersEverySampleEventAsJSON() throws {
        for file in try Repository.jsonFiles(in: Repository.examples.appendingPathComponent("chat-message")) {
            let (status, stdout, stderr) = try render(["--event", file.path, "--apns-topic", "com.example.chat"])
            #expect(status == 0, "\(file.lastPathComponent): \(stderr)")
            let report = try JSONParser.parse(Array(stdout.utf8))
            guard case .array(let devices)? = report["devices"] else {
                Issue.record("\(file.lastPathComponent): no devices")
                continue
            }
            #expect(devices.count == 4)
            #expect(devices.contains { $0["decision"] == .string("send") } || file.lastPathComponent == "poll.json")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: executable.path), "run `swift build` first"))
    func badFilesPrintOneLineAndExitOne() throws {
        let badRules = try Repository.temporaryFile(Array(#"{"types": {"text": {"ttlSeconds": "soon"}}}"#.utf8))
        defer { try? FileManager.default.removeItem(at: badRules) }
        let event = Repository.examples.appendingPathComponent("chat-message/text.json").path
        let cases: [([String], String)] = [
            (
                ["--event", "/nonexistent.json"],
                "push-worker render: error: cannot read /nonexistent.json: No such file or directory\n"
            ),
            (
                ["--event", "/dev/zero"],
                "push-worker render: error: cannot read /dev/zero: is not a regular file (a directory, FIFO, socket or "
                    + "device)\n"
            ),
            (
                ["--event", event, "--rules", badRules.path],
                "push-worker render: error: \(badRules.path): types.text.ttlSeconds: must be a whole number of seconds from 0 to 2419200\n"
            ),
            (["--event", badRules.path], "push-worker render: error: \(badRules.path): decode_error: id: required\n"),
            (
                ["--event", event, "--now", "later"],
                "push-worker render: error: --now: 'later' is neither RFC 3339 nor epoch milliseconds\n"
            ),
        ]
        for (arguments, message) in cases {
            let (status, stdout, stderr) = try render(arguments)
            #expect(status == 1)
            #expect(stdout.isEmpty)
            #expect(stderr == message)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: executable.path), "run `swift build` first"))
    func eachDeviceShowsTheLanguageOfItsFallbackTexts() throws {
        let event = Repository.examples.appendingPathComponent("chat-message/image-four-languages.json").path
        let (status, stdout, _) = try render(["--event", event])
        #expect(status == 0)
        guard case .array(let devices)? = try JSONParser.parse(Array(stdout.utf8))["devices"] else {
            Issue.record("no devices")
            return
        }
        let shown = devices.map { device in
            [
                device["locale"]?.stringValue,
                device["request"]?["body"]?["aps"]?["alert"]?["body"]?.stringValue
                    ?? device["request"]?["body"]?["message"]?["notification"]?["body"]?.stringValue,
            ]
        }
        #expect(
            shown == [
                ["ko", "Alice님이 사진을 보냈습니다"], ["ja", "Alice が画像を送信しました"], ["zh-Hant", "Alice 傳送了一張圖片"],
                ["en", "Alice sent a photo"],
            ])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: executable.path), "run `swift build` first"))
    func theDefaultLocaleComesFromTheEnvironmentAndIsChecked() throws {
        let event = Repository.examples.appendingPathComponent("chat-message/image.json").path
        let korean = try ChildProcessResult.run(
            Self.executable, ["render", "--event", event], environment: ["PUSH_DEFAULT_LOCALE": "ko"])
        #expect(korean.status == 0)
        #expect(korean.stdout.contains(#""body": "Alice님이 사진을 보냈습니다""#))
        let bad = try ChildProcessResult.run(
            Self.executable, ["render", "--event", event], environment: ["PUSH_DEFAULT_LOCALE": "korean"])
        #expect(bad.status == 1)
        #expect(
            bad.stderr.hasPrefix(#"push-worker render: error: PUSH_DEFAULT_LOCALE: "korean" is not a language tag"#))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: executable.path), "run `swift build` first"))
    func planningTimeDecidesExpiry() throws {
        let event = Repository.examples.appendingPathComponent("chat-message/text.json").path
        let (status, stdout, _) = try render(["--event", event, "--now", "2026-12-01T00:00:00Z"])
        #expect(status == 0)
        #expect(stdout.contains(#""decision": "expired""#))
        #expect(!stdout.contains(#""decision": "send""#))
    }
}
