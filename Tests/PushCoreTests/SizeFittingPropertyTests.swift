import Foundation
import PushCore
import TestSupport
import Testing

/// Seeded random events (emoji ZWJ sequences, CJK, combining marks, RTL, 0 to 100 KB content, random nicknames):
/// every request is valid JSON and UTF-8, within its limit, and cuts text only between grapheme clusters.
@Suite struct SizeFittingPropertyTests {
    static let pieces = [
        "a", "Hello ", "👩‍👩‍👧‍👦", "🏳️‍🌈", "🇰🇷", "👍🏽", "漢字", "こんにちは", "안녕", "e\u{301}", "a\u{308}\u{323}",
        "مرحبا", "שלום", "\u{200F}", "\"", "\\", "\n", "\t", "\u{1}", "…", "ก\u{E49}",
    ]

    static func randomText(bytes target: Int, using generator: inout SeededGenerator) -> String {
        var text = ""
        var size = 0
        while size < target {
            let piece = pieces.randomElement(using: &generator) ?? "a"
            text += piece
            size += piece.utf8.count
        }
        return text
    }

    @Test(arguments: 0..<8)
    func requestsFitWhateverTheText(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var checked = 0
        for _ in 0..<6 {
            let size = [0, 10, 500, 3_000, 20_000, 100_000].randomElement(using: &generator) ?? 0
            let content = Self.randomText(bytes: Int.random(in: 0...size, using: &generator), using: &generator)
            let nickname = Self.randomText(bytes: Int.random(in: 0...120, using: &generator), using: &generator)
            let type = (Fixture.seedTypes + ["unreadCount", "call", "poll"]).randomElement(using: &generator) ?? "text"
            let event = Fixture.event(
                type: type, content: content, nickname: nickname,
                payload: #"{"text": \#(Fixture.quoted(content))}"#)
            for decision in try Fixture.decisions(event) {
                if try check(decision, content: content, nickname: nickname) { checked += 1 }
            }
        }
        // The loop checked requests, not only skips (an empty plan would pass every check above).
        #expect(checked > 0)
    }

    /// Hangul (precomposed, and a conjoining-jamo syllable that is one cluster of three scalars), kanji, kana,
    /// half-width katakana, a 4-byte ideograph, an ideograph with a variation selector, a flag.
    static let cjkPieces = [
        "가", "\u{1100}\u{1161}\u{11A8}", "한국어 ", "漢字", "こんにちは", "ｶﾀｶﾅ", "𠀋", "葛\u{E0100}", "🇰🇷", " ",
    ]

    static func randomCJK(bytes target: Int, using generator: inout SeededGenerator) -> String {
        var text = ""
        while text.utf8.count < target { text += cjkPieces.randomElement(using: &generator) ?? "가" }
        return text
    }

    @Test(arguments: 0..<6)
    func cjkTextsAreCutBetweenGraphemesAndKeepTheRecipientsLanguage(seed: UInt64) throws {
        var generator = SeededGenerator(seed: 1_000 + seed)
        for _ in 0..<4 {
            let size = [0, 100, 3_000, 20_000].randomElement(using: &generator) ?? 0
            let content = Self.randomCJK(bytes: Int.random(in: 0...size, using: &generator), using: &generator)
            // Names are at most 256 scalars (EventLimits.maximumNameLength).
            let longNickname = Self.randomCJK(bytes: Int.random(in: 0...900, using: &generator), using: &generator)
            let nickname = String(String.UnicodeScalarView(longNickname.unicodeScalars.prefix(256)))
            let type = Fixture.seedTypes.randomElement(using: &generator) ?? "image"
            let event = try LocalizedEvents.addressed(
                to: LocalizedEvents.locales,
                Fixture.event(
                    type: type, content: content, nickname: nickname,
                    payload: #"{"text": \#(Fixture.quoted(content))}"#))
            for decision in try Fixture.decisions(event) {
                try check(decision, content: content, nickname: nickname)
                try checkFallbackBody(decision, type: type, nickname: nickname, target: "Bob")
            }
        }
    }

    /// The longest names the event allows (sender, target and room), in 4-byte and 3-byte characters: FCM requests
    /// carry them several times and must cut every text, in every language (4-byte: every FCM request of the 12 types
    /// and 4 languages; 3-byte: those of the member events, whose loc-args carry two names).
    @Test(arguments: [("𠀋", 48), ("가", 4)])
    func maximalCJKNamesAreCutNearTheLimitInEveryLanguage(character: String, cuts: Int) throws {
        let name = String(repeating: character, count: 256)
        var cutBodies = 0
        for type in Fixture.seedTypes where type != "text" {
            let sample = String(decoding: Fixture.event(type: type, content: name, nickname: name), as: UTF8.self)
                .replacingOccurrences(of: #""name": "Team""#, with: #""name": "\#(name)""#)
                .replacingOccurrences(of: #""nickname": "Bob""#, with: #""nickname": "\#(name)""#)
            let event = try LocalizedEvents.addressed(to: LocalizedEvents.locales, Array(sample.utf8))
            for decision in try Fixture.decisions(event) {
                try check(decision, content: name, nickname: name)
                if try checkFallbackBody(decision, type: type, nickname: name, target: name) { cutBodies += 1 }
            }
        }
        #expect(cutBodies >= cuts)
    }

    /// The fallback body is the type's body in the recipient's language (`u-<locale>`), whole or cut between
    /// grapheme clusters; a cut body means the request was within a few clusters of its byte limit.
    /// Whether the body was cut.
    @discardableResult
    private func checkFallbackBody(
        _ decision: DeviceDecision, type: String, nickname: String, target: String
    ) throws -> Bool {
        guard type != "text", let request = decision.outcome.request else { return false }
        let locale = try #require(LanguageTag(String(decision.userID.dropFirst(2))))
        let template = try #require(RulesTable.standard.types[type]?.body?.template(preferring: [locale]))
        let full = template.render { placeholder in
            switch placeholder {
            case .senderNickname: nickname.isEmpty ? RulesTable.standard.anonymousName : nickname
            case .targetNickname: target
            default: ""
            }
        }
        let body = try #require(try LocalizedEvents.fallbackBody(request))
        #expect(isWholeGraphemePrefix(body, of: full), "\(type) \(locale): \(body.prefix(40))")
        guard body != full else { return false }
        #expect(request.body.count > PayloadLimit.bytes(for: request.platform) - 256)
        return true
    }

    /// Whether `decision` had a request to check.
    @discardableResult
    private func check(_ decision: DeviceDecision, content: String, nickname: String) throws -> Bool {
        guard let request = decision.outcome.request else { return false }
        #expect(request.body.count <= PayloadLimit.bytes(for: request.platform))
        #expect(String(validating: request.body, as: UTF8.self) != nil)
        let body = try JSONParser.parse(request.body)
        let args: JSONValue? =
            switch request.platform {
            case .apns: body["aps"]?["alert"]?["loc-args"]
            case .fcm: body["message"]?["android"]?["notification"]?["body_loc_args"]
            case .web: body["loc-args"]
            case .apnsVoip: nil
            }
        guard case .array(let values)? = args else { return true }
        let texts = values.compactMap(\.stringValue)
        if let first = texts.first, !nickname.isEmpty {
            #expect(isWholeGraphemePrefix(first, of: nickname))
        }
        if texts.count > 1, texts[1] != "Bob" {
            #expect(isWholeGraphemePrefix(texts[1], of: content))
        }
        return true
    }

    /// Whether `cut` is `original`, or a prefix of its grapheme clusters followed by `…`.
    private func isWholeGraphemePrefix(_ cut: String, of original: String) -> Bool {
        if cut == original { return true }
        guard cut.hasSuffix("…") else { return false }
        let kept = Array(cut.dropLast())
        let clusters = Array(original)
        return kept.count < clusters.count && Array(clusters.prefix(kept.count)) == kept
    }
}
