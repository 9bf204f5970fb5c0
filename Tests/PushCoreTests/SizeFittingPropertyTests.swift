import Foundation
import PushCore
import SeededRandomness
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
        for _ in 0..<6 {
            let size = [0, 10, 500, 3_000, 20_000, 100_000].randomElement(using: &generator) ?? 0
            let content = Self.randomText(bytes: Int.random(in: 0...size, using: &generator), using: &generator)
            let nickname = Self.randomText(bytes: Int.random(in: 0...120, using: &generator), using: &generator)
            let type = (Fixture.seedTypes + ["unreadCount", "call", "poll"]).randomElement(using: &generator) ?? "text"
            let event = Fixture.event(
                type: type, content: content, nickname: nickname,
                payload: #"{"text": \#(Fixture.quoted(content))}"#)
            for decision in try Fixture.decisions(event) {
                try check(decision, content: content, nickname: nickname)
            }
        }
    }

    private func check(_ decision: DeviceDecision, content: String, nickname: String) throws {
        guard let request = decision.outcome.request else { return }
        #expect(request.body.count <= PayloadLimit.bytes(for: request.platform))
        #expect(String(validating: request.body, as: UTF8.self) != nil)
        let body = try JSONParser.parse(request.body)
        let args: JSONValue? =
            switch request.platform {
            case .apns: body["aps"]?["alert"]?["loc-args"]
            case .fcm: body["message"]?["android"]?["notification"]?["body_loc_args"]
            case .apnsVoip: nil
            }
        guard case .array(let values)? = args else { return }
        let texts = values.compactMap(\.stringValue)
        if let first = texts.first, !nickname.isEmpty {
            #expect(isWholeGraphemePrefix(first, of: nickname))
        }
        if texts.count > 1, texts[1] != "Bob" {
            #expect(isWholeGraphemePrefix(texts[1], of: content))
        }
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
