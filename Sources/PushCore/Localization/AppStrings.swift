import Essentials

/// The apps' own translations of every fixed `loc-key` of a rules table, in one language: what an app ships as
/// string resources so that it shows the same text the server renders as fallback.
public struct AppStrings: Sendable, Equatable {
    /// One string resource: a loc-key and its text, with the rule's loc-args as positional arguments.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var parts: [Part]
        /// How many loc-args the rule sends (the highest argument an app can be given).
        public var argumentCount: Int
    }

    /// A piece of a string resource's text.
    public enum Part: Sendable, Equatable {
        case literal(String)
        /// The `index`-th loc-arg, from 1 (`%1$@`, `%1$s`).
        case argument(Int)
    }

    /// A type of the table that has no string resource, and why.
    public struct Omission: Error, Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public var description: String { "\(path): \(reason)" }
    }

    public var language: LanguageTag
    /// Whether `language` is the table's default locale (Android's `values/`, the app's fallback).
    public var isDefault: Bool
    /// Sorted by key.
    public var entries: [Entry]

    /// The languages `rules` has texts in: its default locale first, then every other language a body names.
    public static func languages(of rules: RulesTable) -> [LanguageTag] {
        let named = Set(rules.types.values.flatMap { $0.body?.languages ?? [] })
        return [rules.defaultLocale]
            + named.subtracting([rules.defaultLocale]).sorted { $0.description < $1.description }
    }

    /// The strings of every alert type of `rules` in `language` (its texts tried as a recipient's locale would be,
    /// then the default locale), and the alert types that cannot have one: a loc-key that depends on more than the
    /// type, or a body with a placeholder no loc-arg carries.
    public static func make(from rules: RulesTable, language: LanguageTag) -> (AppStrings, omitted: [Omission]) {
        var entries: [Entry] = []
        var omitted: [Omission] = []
        for (type, rule) in rules.types.sorted(by: { $0.key < $1.key }) where rule.kind == .alert {
            guard let body = rule.body?.template(preferring: [language, rules.defaultLocale]) else { continue }
            switch entry(type: type, rule: rule, body: body) {
            case .success(let entry):
                // Two types may share a key (IMKIT's deleteMembers and the seeds' deleteMember): one resource.
                guard let existing = entries.first(where: { $0.key == entry.key }) else {
                    entries.append(entry)
                    continue
                }
                if existing != entry {
                    omitted.append(
                        Omission(
                            path: "types.\(type).locKey",
                            reason: "\(JSONWriter.quoted(entry.key)) is another type's key with another text"))
                }
            case .failure(let omission): omitted.append(omission)
            }
        }
        let strings = AppStrings(
            language: language, isDefault: language == rules.defaultLocale,
            entries: entries.sorted { $0.key < $1.key })
        return (strings, omitted)
    }

    private static func entry(type: String, rule: PushRule, body: Template) -> Result<Entry, Omission> {
        let path = "types.\(type)"
        if let dynamic = Template.Placeholder.allCases.first(where: { $0 != .type && rule.locKey.uses($0) }) {
            return .failure(
                Omission(path: "\(path).locKey", reason: "depends on {\(dynamic.rawValue)}, so it is no fixed key"))
        }
        let key = rule.locKey.render { $0 == .type ? type : "" }
        guard isResourceName(key) else {
            return .failure(
                Omission(
                    path: "\(path).locKey",
                    reason:
                        "\(JSONWriter.quoted(key)) is no resource name (a letter or _, then letters, digits, _ or .)"))
        }
        var parts: [Part] = []
        for part in body.parts {
            switch part {
            case .literal(let text):
                parts.append(.literal(text))
            case .placeholder(let placeholder):
                guard let index = rule.locArgs.firstIndex(where: { $0.parts == [.placeholder(placeholder)] }) else {
                    return .failure(
                        Omission(
                            path: "\(path).body",
                            reason: "{\(placeholder.rawValue)} is in no loc-arg, so an app cannot fill it in"))
                }
                parts.append(.argument(index + 1))
            }
        }
        return .success(Entry(key: key, parts: parts, argumentCount: rule.locArgs.count))
    }

    /// Whether Android accepts `key` as a string resource name (a Java identifier, dots allowed).
    private static func isResourceName(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return key.unicodeScalars.allSatisfy {
            $0 == "_" || $0 == "." || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }
}
