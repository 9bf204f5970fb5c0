/// The fallback title and body templates of a rule in one reader's language: what a push renders in place of the
/// app's own translation of its `loc-key`. Readers whose languages choose the same templates share one rendering.
struct FallbackTexts: Hashable {
    var title: Template?
    var body: Template?
    /// The language the texts were chosen in (the body's, else the title's); `nil` when both are universal.
    var language: LanguageTag?

    /// The texts of `rule` for a reader preferring `languages` in order (the recipient's, then the defaults).
    init(rule: PushRule, preferring languages: LanguagePreferences) {
        let title = rule.title?.match(preferring: languages)
        let body = rule.body?.match(preferring: languages)
        self.title = title?.template
        self.body = body?.template
        language = body?.language ?? title?.language
    }
}
