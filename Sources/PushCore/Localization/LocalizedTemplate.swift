/// A fallback text (a rule's `title` or `body`): one template for every reader, or one per language.
public enum LocalizedTemplate: Sendable, Hashable {
    /// The same template whatever the reader's language (a plain string in the rules file).
    case universal(Template)
    /// A template per language tag (an object `{"ko": …, "en": …}` in the rules file); the rules loader makes
    /// sure the table's default locale has one.
    case localized([LanguageTag: Template])

    /// The template for the first of `preferences` this text has, each tag tried with its `fallbacks`
    /// (`zh-TW` → `zh-Hant`, `ko-KR` → `ko`); `nil` when none has one.
    public func template(preferring preferences: some Sequence<LanguageTag>) -> Template? {
        match(preferring: preferences)?.template
    }

    /// Like `template(preferring:)`, with the tag the template is filed under (`nil` for a universal text).
    public func match(
        preferring preferences: some Sequence<LanguageTag>
    ) -> (language: LanguageTag?, template: Template)? {
        switch self {
        case .universal(let template):
            return (nil, template)
        case .localized(let templates):
            for preference in preferences {
                for tag in preference.fallbacks {
                    if let template = templates[tag] { return (tag, template) }
                }
            }
            return nil
        }
    }

    /// The languages this text names, sorted by tag; empty for a universal text.
    public var languages: [LanguageTag] {
        guard case .localized(let templates) = self else { return [] }
        return templates.keys.sorted { $0.description < $1.description }
    }
}
