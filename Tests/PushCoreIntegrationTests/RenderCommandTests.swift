import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// `push-worker render` end to end: the built executable (beside this test binary) on every sample event.
@Suite struct RenderCommandTests {
    /// The built `push-worker`; when it is missing, every test here fails saying so (never skips).
    static var executable: URL { ChildProcess.built("push-worker") }

    func render(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ChildProcessResult.run(Self.executable, ["render"] + arguments, environment: [:])
        return (result.status, result.stdout, result.stderr)
    }

    @Test func rendersEverySampleEventAsJSON() throws {
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

    @Test func badFilesPrintOneLineAndExitOne() throws {
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

    /// Registry records of the IMKIT examples' clients: aaa with two devices, bbb muted in the room, sss the sender.
    static let registryRecords = [
        #"{"appID": "SampleApp", "clientId": "aaa", "type": "ios", "token": "\#(String(repeating: "a1", count: 32))", "deviceId": "D1"}"#,
        #"{"appID": "SampleApp", "clientId": "aaa", "type": "fcm", "token": "fcm-token-of-aaa", "deviceId": "P1"}"#,
        #"{"appID": "SampleApp", "clientId": "bbb", "type": "ios", "token": "\#(String(repeating: "b2", count: 32))", "deviceId": "D2"}"#,
        #"{"appID": "SampleApp", "clientId": "bbb", "mute": ["demo-room"]}"#,
        #"{"appID": "SampleApp", "clientId": "sss", "type": "ios", "token": "\#(String(repeating: "e5", count: 32))", "deviceId": "D5"}"#,
    ]

    /// Each device of a report as `userId platform decision[ reason]`.
    static func outline(_ stdout: String) throws -> [String] {
        guard case .array(let devices)? = try JSONParser.parse(Array(stdout.utf8))["devices"] else { return [] }
        return devices.map { device in
            [device["userId"], device["platform"], device["decision"], device["reason"]].compactMap { $0?.stringValue }
                .joined(separator: " ")
        }
    }

    @Test func anIMKITMessageIsResolvedThroughTheDevicesFileAndTheReportEndsWithWhoIsNotSentTo() throws {
        let devices = try Repository.temporaryFile(Array(Self.registryRecords.joined(separator: "\n").utf8))
        defer { try? FileManager.default.removeItem(at: devices) }
        let message = try Repository.temporaryFile(
            Array(
                #"{"_id": "m-1", "message": "lala", "room": "demo-room", "sender": {"_id": "sss", "nickname": "SSS"}, "messageType": "text", "appID": "SampleApp", "messageTimeMS": 1574246991222, "pushToClients": ["aaa", "bbb", "ccc", "sss"]}"#
                    .utf8))
        defer { try? FileManager.default.removeItem(at: message) }
        let (status, stdout, stderr) = try render(["--event", message.path, "--devices", devices.path])
        #expect(status == 0, "\(stderr)")
        #expect(
            try Self.outline(stdout) == [
                "aaa fcm send", "aaa apns send", "bbb apns skipped muted", "ccc none skipped no_devices",
            ])
    }

    @Test func anIMKITv1MessageKeepsItsBadgeAndAlert() throws {
        let devices = try Repository.temporaryFile(Array(Self.registryRecords.joined(separator: "\n").utf8))
        defer { try? FileManager.default.removeItem(at: devices) }
        let v1 = Repository.examples.appendingPathComponent("imkit-message/v1-text.json").path
        let (status, stdout, stderr) = try render(["--event", v1, "--devices", devices.path])
        #expect(status == 0, "\(stderr)")
        let report = try JSONParser.parse(Array(stdout.utf8))
        guard case .array(let sent)? = report["devices"],
            let apns = sent.first(where: { $0["platform"] == .string("apns") })
        else {
            Issue.record("no devices: \(stdout)")
            return
        }
        #expect(apns["request"]?["body"]?["aps"]?["badge"] == .number("7"))
        #expect(apns["request"]?["body"]?["aps"]?["alert"]?["body"] == .string("SSS: hello"))
        #expect(try Self.outline(stdout) == ["aaa fcm send", "aaa apns send"])
    }

    @Test func anIMKITMessageWithoutDevicesOrWithABadRecordLineIsRefusedSayingWhy() throws {
        let v2 = Repository.examples.appendingPathComponent("imkit-message/v2-text.json").path
        let bad = try Repository.temporaryFile(
            Array(
                (Self.registryRecords.prefix(1) + [#"{"appID": "SampleApp", "clientId": "x", "type": "pager"}"#])
                    .joined(separator: "\n").utf8))
        defer { try? FileManager.default.removeItem(at: bad) }
        let cases: [([String], String)] = [
            (
                ["--event", v2],
                "push-worker render: error: \(v2): an IMKIT message (it has messageType) needs --devices FILE, the "
                    + "registry records its clients are looked up in\n"
            ),
            (
                ["--event", v2, "--devices", bad.path],
                "push-worker render: error: \(bad.path): line 2: bad_value: type: must be one of ios, ios-voip, "
                    + "android, fcm, web\n"
            ),
        ]
        for (arguments, message) in cases {
            let (status, stdout, stderr) = try render(arguments)
            #expect(status == 1)
            #expect(stdout.isEmpty)
            #expect(stderr == message)
        }
    }

    @Test func eachDeviceShowsTheLanguageOfItsFallbackTexts() throws {
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

    @Test func theDefaultLocaleComesFromTheEnvironmentAndIsChecked() throws {
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

    @Test func planningTimeDecidesExpiry() throws {
        let event = Repository.examples.appendingPathComponent("chat-message/text.json").path
        let (status, stdout, _) = try render(["--event", event, "--now", "2026-12-01T00:00:00Z"])
        #expect(status == 0)
        #expect(stdout.contains(#""decision": "expired""#))
        #expect(!stdout.contains(#""decision": "send""#))
    }
}
