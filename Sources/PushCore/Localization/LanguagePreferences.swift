/// The languages a reader's texts are chosen in, in order: the recipient's own, then `PUSH_DEFAULT_LOCALE`, then the
/// rules table's default; each one left out when unset. Held without an array: it is made for every recipient.
struct LanguagePreferences: Sequence, IteratorProtocol {
    private var languages: (LanguageTag?, LanguageTag?, LanguageTag?)
    private var step = 0

    init(_ reader: LanguageTag?, _ configured: LanguageTag?, _ table: LanguageTag?) {
        languages = (reader, configured, table)
    }

    mutating func next() -> LanguageTag? {
        while step < 3 {
            step += 1
            let language =
                switch step {
                case 1: languages.0
                case 2: languages.1
                default: languages.2
                }
            if let language { return language }
        }
        return nil
    }
}
