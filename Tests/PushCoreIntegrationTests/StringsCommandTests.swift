import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// `push-worker strings` end to end: the files it writes are read back by strict readers (xml.etree for Android, a
/// strict old-style strings parser for iOS, in `Validators/read_string_resources.py`), and every string, filled
/// with a request's loc-args as an app would, is exactly the fallback body the server sends in that language.
@Suite struct StringsCommandTests {
    func strings(_ arguments: [String]) throws -> ChildProcessResult {
        try ChildProcessResult.run(RenderCommandTests.executable, ["strings"] + arguments, environment: [:])
    }

    /// Runs the command with `--out` into a fresh folder and reads every file back: entries by relative path.
    func written(_ arguments: [String]) throws -> [String: [String: String]] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try strings(arguments + ["--out", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        let script = Repository.validators.appendingPathComponent("read_string_resources.py").path
        let (status, output) = try Repository.runTool("python", [script, folder.path])
        guard status == 0, case .object(let files) = try JSONParser.parse(Array(output.utf8)) else {
            throw ProviderValidationTests.ValidatorFailure(output: output)
        }
        var entries: [String: [String: String]] = [:]
        for file in files {
            #expect(file.value["errors"] == .array([]), "\(file.key): \(String(describing: file.value["errors"]))")
            guard case .object(let members)? = file.value["entries"] else { continue }
            entries[file.key] = Dictionary(
                uniqueKeysWithValues: members.compactMap { member in
                    member.value.stringValue.map { (member.key, $0) }
                })
            #expect(result.stdout.contains(folder.appendingPathComponent(file.key).path))
        }
        return entries
    }

    /// The language of a resource file: `ko.lproj`, `values` (the default locale), `values-b+zh+Hant`, `values-en-rUS`.
    static func language(of path: String, rules: RulesTable) -> LanguageTag? {
        let folder = String(path.prefix { $0 != "/" })
        if folder.hasSuffix(".lproj") { return LanguageTag(String(folder.dropLast(".lproj".count))) }
        if folder == "values" { return rules.defaultLocale }
        let qualifier = folder.dropFirst("values-".count)
        if qualifier.hasPrefix("b+") {
            return LanguageTag(qualifier.dropFirst(2).replacingOccurrences(of: "+", with: "-"))
        }
        return LanguageTag(qualifier.replacingOccurrences(of: "-r", with: "-"))
    }

    /// `format` with `%N$@` (iOS) or `%N$s` (Android) replaced by `arguments[N-1]` and `%%` by `%`; `nil` when it
    /// has another `%` sequence or an argument past the end.
    static func filled(_ format: String, _ arguments: [String], marker: Character) -> String? {
        var text = ""
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            text += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                text += "%"
                rest = rest.dropFirst()
                continue
            }
            let digits = rest.prefix { $0.isNumber }
            rest = rest.dropFirst(digits.count)
            guard let index = Int(digits), rest.first == "$", rest.dropFirst().first == marker,
                arguments.indices.contains(index - 1)
            else { return nil }
            text += arguments[index - 1]
            rest = rest.dropFirst(2)
        }
        return text + rest
    }

    /// Every string of the files equals the server's fallback body for its type and language once filled with the
    /// request's loc-args; returns how many strings were checked.
    func checkRoundTrip(_ files: [String: [String: String]], platform: String, rules: RulesTable) throws -> Int {
        var checked = 0
        for (path, entries) in files {
            let language = try #require(Self.language(of: path, rules: rules), "\(path)")
            for (key, format) in entries {
                let type = String(key.dropFirst("im_loc_".count))
                let event = try LocalizedEvents.addressed(to: [language.description], Fixture.event(type: type))
                let request = try #require(
                    try Fixture.decisions(event, rules: rules).compactMap(\.outcome.request).first {
                        $0.platform == (platform == "ios" ? .apns : .fcm)
                    })
                let body = try JSONParser.parse(request.body)
                let locArgs =
                    platform == "ios"
                    ? body["aps"]?["alert"]?["loc-args"]
                    : body["message"]?["android"]?["notification"]?["body_loc_args"]
                guard case .array(let values)? = locArgs else {
                    Issue.record("\(path) \(key): no loc-args")
                    continue
                }
                let filled = Self.filled(
                    format, values.compactMap(\.stringValue), marker: platform == "ios" ? "@" : "s")
                #expect(filled != nil, "\(path) \(key): \(format) has a placeholder past its \(values.count) loc-args")
                #expect(filled == (try LocalizedEvents.fallbackBody(request)), "\(path) \(key)")
                checked += 1
            }
        }
        return checked
    }

    @Test(arguments: ["ios", "android"])
    func everyStringOfTheBuiltInTableIsTheServersFallbackInItsLanguage(platform: String) throws {
        let files = try written(["--platform", platform])
        #expect(files.count == 4)
        for entries in files.values {
            #expect(Set(entries.keys) == Set(Fixture.seedTypes.map { "im_loc_\($0)" }))
        }
        #expect(try checkRoundTrip(files, platform: platform, rules: .standard) == 4 * Fixture.seedTypes.count)
    }

    static let trickyRules = #"""
        {"defaultLocale": "ja", "types": {
          "quote": {"locArgs": ["{sender.nickname}"],
                    "body": {"ja": "@{sender.nickname}'s \"mail\" & <b>100%</b> \\ ok\nnext", "en": "?{sender.nickname}'"}},
          "roomName": {"body": "{room.name}"},
          "dynamic": {"locKey": "im_{room.id}", "body": "x"},
          "silent": {"kind": "silent"}
        }}
        """#

    @Test(arguments: ["ios", "android"])
    func specialCharactersSurviveEachPlatformsEscaping(platform: String) throws {
        let rulesFile = try Repository.temporaryFile(Array(Self.trickyRules.utf8))
        defer { try? FileManager.default.removeItem(at: rulesFile) }
        let rules = try RulesTable.load(json: Array(Self.trickyRules.utf8))
        let files = try written(["--platform", platform, "--rules", rulesFile.path])
        #expect(files.count == 2)
        for entries in files.values { #expect(Array(entries.keys) == ["im_loc_quote"]) }
        #expect(try checkRoundTrip(files, platform: platform, rules: rules) == 2)
    }

    @Test func typesThatCannotBeAStringResourceAreLeftOutWithANote() throws {
        let rulesFile = try Repository.temporaryFile(Array(Self.trickyRules.utf8))
        defer { try? FileManager.default.removeItem(at: rulesFile) }
        let result = try strings(["--platform", "ios", "--rules", rulesFile.path])
        #expect(result.status == 0)
        #expect(
            result.stderr == """
                push-worker strings: note: types.dynamic.locKey: depends on {room.id}, so it is no fixed key
                push-worker strings: note: types.roomName.body: {room.name} is in no loc-arg, so an app cannot fill it in

                """)
        #expect(result.stdout.hasPrefix("/* Generated by push-worker strings from the rules table: language ja. */\n"))
        #expect(result.stdout.contains(#""im_loc_quote" = "@%1$@'s \"mail\" & <b>100%%</b> \\ ok\nnext";"#))
    }

    @Test func oneLanguageGoesToStdoutInItsTexts() throws {
        let result = try strings(["--platform", "android", "--locale", "zh-TW"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#"<string name="im_loc_image">%1$s 傳送了一張圖片</string>"#))
        #expect(!result.stdout.contains("sent a photo"))
    }

    @Test(arguments: [
        ([String](), "missing required option '--platform'"),
        (["--platform", "web"], "option '--platform' needs one of ios, android, not 'web'"),
        (["--platform", "ios", "--locale", "ko_KR"], "option '--locale' needs a language tag"),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try strings(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("push-worker: error: \(message)"))
        #expect(result.stdout.isEmpty)
    }
}
