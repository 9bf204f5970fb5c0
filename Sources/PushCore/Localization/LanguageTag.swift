import Essentials

/// A BCP 47 language tag, the subset push texts need: a language, an optional script and an optional region
/// (`ko`, `ko-KR`, `zh-Hant`, `zh-Hant-TW`, `en-US`), kept in canonical case (`zh-Hant-TW`).
public struct LanguageTag: Sendable, Hashable, CustomStringConvertible {
    /// Two or three lowercase letters (`ko`, `ja`, `zh`, `en`).
    public let language: String
    /// Four letters, first uppercase (`Hant`, `Hans`), when given.
    public let script: String?
    /// Two uppercase letters or three digits (`TW`, `419`), when given.
    public let region: String?

    /// The longest tag accepted from an event; anything longer is treated as unknown.
    static let maximumLength = 64

    /// Parses a tag as a rules file writes it: `language[-Script][-REGION]`, `-` separated, any case;
    /// `nil` when it is not of that form.
    public init?(_ text: String) {
        let subtags = text.split(separator: "-", omittingEmptySubsequences: false)
        guard subtags.count <= 3, let tag = Self.parse(subtags, ignoringRest: false) else { return nil }
        self = tag
    }

    /// Parses a tag as apps send it: `-` or `_` separated (`zh_TW`), with variants and extensions after the region
    /// ignored (`ja-JP-u-ca-japanese` is `ja-JP`); `nil` when it does not start with a language.
    public init?(lenient text: String) {
        guard text.utf8.count <= Self.maximumLength else { return nil }
        let subtags = text.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        guard let tag = Self.parse(subtags, ignoringRest: true) else { return nil }
        self = tag
    }

    init(language: String, script: String?, region: String?) {
        self.language = language
        self.script = script
        self.region = region
    }

    private static func parse(_ subtags: [Substring], ignoringRest: Bool) -> LanguageTag? {
        guard let first = subtags.first, (2...3).contains(first.count), first.allSatisfy(isASCIILetter) else {
            return nil
        }
        var rest = subtags.dropFirst()
        var script: String?
        var region: String?
        if let next = rest.first, next.count == 4, next.allSatisfy(isASCIILetter) {
            script = next.prefix(1).uppercased() + next.dropFirst().lowercased()
            rest = rest.dropFirst()
        }
        if let next = rest.first,
            (next.count == 2 && next.allSatisfy(isASCIILetter)) || (next.count == 3 && next.allSatisfy(isASCIIDigit))
        {
            region = next.uppercased()
            rest = rest.dropFirst()
        }
        let restIsWellFormed = rest.allSatisfy { (1...8).contains($0.count) && $0.allSatisfy(isASCIILetterOrDigit) }
        guard rest.isEmpty || (ignoringRest && restIsWellFormed) else { return nil }
        return LanguageTag(language: first.lowercased(), script: script, region: region)
    }

    private static func isASCIILetter(_ character: Character) -> Bool {
        character.isASCII && character.isLetter
    }

    private static func isASCIIDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    private static func isASCIILetterOrDigit(_ character: Character) -> Bool {
        isASCIILetter(character) || isASCIIDigit(character)
    }

    /// The canonical form: `zh-Hant-TW`.
    public var description: String {
        var text = language
        if let script { text += "-" + script }
        if let region { text += "-" + region }
        return text
    }

    /// The script a tag without one implies, where the difference matters for text: Chinese in Taiwan, Hong Kong
    /// and Macao is written in Traditional characters (`Hant`), elsewhere in Simplified (`Hans`).
    var impliedScript: String? {
        if let script { return script }
        guard language == "zh" else { return nil }
        return ["TW", "HK", "MO"].contains(region ?? "") ? "Hant" : "Hans"
    }

    /// The tags a text may be filed under for this tag, most specific first: `zh-TW` looks for `zh-Hant-TW`,
    /// `zh-Hant`, `zh-TW`, then `zh`; `ko-KR` for `ko-KR`, then `ko`. A `zh-CN` reader never gets `zh-Hant` text.
    public var fallbacks: Fallbacks { Fallbacks(self) }

    /// `LanguageTag.fallbacks`: at most four tags, made one at a time without an array (they are looked up for every
    /// reader of every event).
    public struct Fallbacks: Sequence, IteratorProtocol {
        private let tag: LanguageTag
        private let script: String?
        private var step = 0

        init(_ tag: LanguageTag) {
            self.tag = tag
            script = tag.impliedScript
        }

        /// The candidates are the tag with and without its (implied) script, each with and without its region; one
        /// that leaves out a part the tag does not have is an earlier one again, and is skipped.
        public mutating func next() -> LanguageTag? {
            while step < 4 {
                let withScript = step < 2
                let withRegion = step % 2 == 0
                step += 1
                if !withScript, script == nil { continue }
                if !withRegion, tag.region == nil { continue }
                return LanguageTag(
                    language: tag.language, script: withScript ? script : nil, region: withRegion ? tag.region : nil)
            }
            return nil
        }
    }
}

extension LanguageTag {
    /// `en`, the default locale of a rules table that names none.
    public static let english = LanguageTag(language: "en", script: nil, region: nil)

    /// Why `text` was refused as a language tag, for error messages.
    public static func malformed(_ text: String) -> String {
        "\(JSONWriter.quoted(text)) is not a language tag (language[-Script][-REGION], e.g. ko, zh-Hant, en-US)"
    }
}
