import Essentials
import Foundation
import PushCore
import TestSupport
import Testing

/// Language tags, matching a reader's locale to a text, the built-in table's four languages, and per-recipient
/// fallback texts in the requests.
@Suite struct LocalizationTests {
    @Test(arguments: [
        ("ko", "ko"), ("KO-kr", "ko-KR"), ("zh-hant", "zh-Hant"), ("ZH-HANT-tw", "zh-Hant-TW"), ("en-US", "en-US"),
        ("es-419", "es-419"), ("yue", "yue"),
    ])
    func tagsParseInAnyCaseToCanonicalCase(text: String, canonical: String) {
        #expect(LanguageTag(text)?.description == canonical)
    }

    @Test(arguments: ["", "k", "korean", "ko_KR", "ko-", "-ko", "zh-Hant-TW-x", "ko-KR-KR", "1a", "한국어", "en-U1"])
    func malformedTagsAreRefusedInRulesFiles(text: String) {
        #expect(LanguageTag(text) == nil)
    }

    @Test(arguments: [
        ("zh_TW", "zh-TW"), ("ja-JP-u-ca-japanese", "ja-JP"), ("ko_KR", "ko-KR"), ("en-GB-oxendict", "en-GB"),
        ("zh-Hant-HK-x-private", "zh-Hant-HK"),
    ])
    func appLocalesAreReadLeniently(text: String, tag: String) {
        #expect(LanguageTag(lenient: text)?.description == tag)
    }

    @Test(arguments: [
        ("zh-TW", ["zh-Hant-TW", "zh-Hant", "zh-TW", "zh"]), ("zh", ["zh-Hans", "zh"]),
        ("zh-Hant", ["zh-Hant", "zh"]), ("zh-Hant-HK", ["zh-Hant-HK", "zh-Hant", "zh-HK", "zh"]),
        ("ko-KR", ["ko-KR", "ko"]), ("en", ["en"]), ("es-419", ["es-419", "es"]),
    ])
    func aTagFallsBackWithoutItsScriptAndRegionMostSpecificFirst(tag: String, fallbacks: [String]) throws {
        let tag = try #require(LanguageTag(tag))
        #expect(tag.fallbacks.map(\.description) == fallbacks)
    }

    @Test func unreadableAppLocalesAreNoTag() {
        #expect(LanguageTag(lenient: "!!") == nil)
        #expect(LanguageTag(lenient: "ko-" + String(repeating: "a", count: 70)) == nil)
        #expect(LanguageTag(lenient: "ko-KR-!") == nil)
    }

    /// The language of the built-in image body a recipient with `locale` reads (`nil`: the event has none).
    static let matches: [(String?, String)] = [
        ("ko", "ko"), ("ko-KR", "ko"), ("KO_kr", "ko"), ("ja", "ja"), ("ja-JP", "ja"), ("zh-Hant", "zh-Hant"),
        ("zh-TW", "zh-Hant"), ("zh-HK", "zh-Hant"), ("zh-MO", "zh-Hant"), ("zh-Hant-TW", "zh-Hant"),
        ("zh-CN", "en"), ("zh-SG", "en"), ("zh-Hans", "en"), ("zh", "en"), ("en-US", "en"), ("fr-FR", "en"),
        ("not a tag!", "en"), (nil, "en"),
    ]

    @Test(arguments: matches)
    func recipientsReadTheirLanguageOrTheDefault(locale: String?, language: String) throws {
        let decisions = try Fixture.decisions(
            LocalizedEvents.addressed(to: [locale], Fixture.event(type: "image")))
        #expect(decisions.count == 2)
        for decision in decisions {
            #expect(decision.locale?.description == language)
        }
    }

    @Test func theDefaultLocaleServesRecipientsWithoutOneAndTheTableDefaultRemainsTheLastResort() throws {
        let table = try RulesTable.load(
            json: Array(
                #"{"types": {"image": {"body": {"en": "{sender.nickname} sent a photo", "ja": "{sender.nickname} が画像を送信しました", "zh-Hans": "{sender.nickname} 发送了一张图片"}}}}"#
                    .utf8))
        let cases: [(String?, LanguageTag?, String)] = [
            (nil, LanguageTag("ja"), "Alice が画像を送信しました"),
            ("fr", LanguageTag("ja"), "Alice が画像を送信しました"),
            ("zh-CN", LanguageTag("ja"), "Alice 发送了一张图片"),
            ("zh-TW", LanguageTag("ja"), "Alice が画像を送信しました"),
            ("ko", LanguageTag("ko"), "Alice sent a photo"),
            (nil, nil, "Alice sent a photo"),
        ]
        for (locale, defaultLocale, body) in cases {
            let event = try EventDecoder().decode(
                LocalizedEvents.addressed(to: [locale], Fixture.event(type: "image")), now: Fixture.now)
            let planner = PushPlanner(rules: table, context: Fixture.context, defaultLocale: defaultLocale)
            for decision in planner.plan(event, now: Fixture.now) {
                let request = try #require(decision.outcome.request)
                #expect(
                    try LocalizedEvents.fallbackBody(request) == body,
                    "\(locale ?? "-") / \(defaultLocale?.description ?? "-")")
            }
        }
    }

    @Test(arguments: Fixture.seedTypes)
    func theBuiltInTableHasEveryTypeInFourLanguages(type: String) throws {
        let body = try #require(RulesTable.standard.types[type]?.body)
        #expect(body.languages.map(\.description) == ["en", "ja", "ko", "zh-Hant"])
    }

    /// The seeds' own wording (`$1` the sender, `$2` the target), rendered for Alice and Bob.
    static let seedWording: [(type: String, locale: String, body: String)] = [
        ("image", "ko", "Alice님이 사진을 보냈습니다"), ("image", "ja", "Alice が画像を送信しました"),
        ("image", "zh-Hant", "Alice 傳送了一張圖片"), ("image", "en", "Alice sent a photo"),
        ("text", "ko", "Alice: Hello"), ("addMember", "ko", "Alice님이 Bob님을 초대했습니다"),
        ("addMember", "ja", "Alice が Bob を招待しました"), ("deleteMember", "zh-Hant", "Alice 將 Bob 移出聊天室"),
        ("encrypted", "ja", "暗号化されたメッセージを受信しました"), ("location", "zh-Hant", "Alice 分享了位置"),
        ("leaveRoom", "ko", "Alice님이 채팅방을 떠났습니다"),
    ]

    @Test(arguments: seedWording)
    func everyProviderCarriesTheSeedWordingInTheRecipientsLanguage(
        case item: (type: String, locale: String, body: String)
    )
        throws
    {
        let decisions = try Fixture.decisions(
            LocalizedEvents.addressed(to: [item.locale], Fixture.event(type: item.type)))
        #expect(decisions.compactMap(\.outcome.request).map(\.platform) == [.apns, .fcm])
        for decision in decisions {
            let request = try #require(decision.outcome.request)
            #expect(try LocalizedEvents.fallbackBody(request) == item.body)
        }
    }

    @Test func onlyTheFallbackTextsDependOnTheLanguage() throws {
        let decisions = try Fixture.decisions(
            LocalizedEvents.addressed(to: LocalizedEvents.locales, Fixture.event(type: "addMember")))
        var withoutBody: [Platform: Set<String>] = [:]
        var bodies: Set<String> = []
        for decision in decisions {
            let request = try #require(decision.outcome.request)
            let text = String(decoding: request.body, as: UTF8.self)
            let body = try #require(try LocalizedEvents.fallbackBody(request))
            bodies.insert(body)
            withoutBody[request.platform, default: []].insert(
                text.replacingOccurrences(of: JSONWriter.quoted(body), with: "BODY"))
        }
        #expect(bodies.count == 4)
        // Same loc-key, loc-args and everything else; only badge differs per recipient (1 to 4) and the token hash.
        for (platform, texts) in withoutBody {
            let normalized = Set(
                texts.map { $0.replacingOccurrences(of: #"[0-9]"#, with: "#", options: .regularExpression) })
            #expect(normalized.count == 1, "\(platform): \(texts)")
        }
    }
}
