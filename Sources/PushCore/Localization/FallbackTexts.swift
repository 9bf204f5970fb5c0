/// The fallback title and body templates of a rule in one reader's language: what a push renders in place of the
/// app's own translation of its `loc-key`. Readers whose languages choose the same templates share one rendering.
struct FallbackTexts: Hashable {
    var title: Template?
    var body: Template?
    /// The language the texts were chosen in (the body's, else the title's); `nil` when both are universal.
    var language: LanguageTag?

    /// The texts of a rule's `title` and `body` for a reader preferring `languages` in order (the recipient's, then
    /// the defaults). The two templates, not the rule: a rule passed from where it is shared would be copied whole.
    init(title: LocalizedTemplate?, body: LocalizedTemplate?, preferring languages: LanguagePreferences) {
        let title = title?.match(preferring: languages)
        let body = body?.match(preferring: languages)
        self.title = title?.template
        self.body = body?.template
        language = body?.language ?? title?.language
    }
}
