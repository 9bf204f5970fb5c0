/// The texts and options of one event's push after templates are filled in; the input of the request builders.
struct RenderedPush {
    var rule: PushRule
    var messageID: String
    var type: String
    var roomID: String
    var senderID: String
    var senderNickname: String
    var locKey: String
    var locArgs: [String]
    /// `nil` when the template is unset or renders empty.
    var title: String?
    var body: String?
    var collapseKey: String?
    var threadID: String?
    /// The forwarded `payload` object, `nil` when dropped or absent.
    var payload: JSONValue?
}

/// How far a rendering is cut down to fit a size limit.
struct Trim: Hashable {
    var includesPayload = true
    /// The most grapheme clusters of the message content.
    var contentLimit: Int?
    /// The most grapheme clusters of every rendered text (title, body, each argument).
    var textLimit: Int?
}

/// Fills a rule's templates with an event's values.
///
/// A class: the renderer of one language is shared by the event's recipients in that language and by the size
/// fitting of each platform, which would otherwise copy the event and the rule with it; its uncut rendering is made
/// once for all of them.
final class PushRenderer {
    let rule: PushRule
    let event: ChatMessageEvent
    let anonymousName: String
    /// The rule's title and body in the reader's language.
    let texts: FallbackTexts
    /// The uncut rendering (`render(Trim())`), made once it is asked for.
    private(set) lazy var whole = render(Trim())

    init(rule: PushRule, event: ChatMessageEvent, anonymousName: String, texts: FallbackTexts) {
        self.rule = rule
        self.event = event
        self.anonymousName = anonymousName
        self.texts = texts
    }

    /// The content as the rules allow it: never for `encrypted` or content-hiding rules.
    var visibleContent: String {
        rule.hidesContent || event.type == "encrypted" ? "" : (event.content ?? "")
    }

    func render(_ trim: Trim) -> RenderedPush {
        let content = visibleContent.truncated(toGraphemes: trim.contentLimit)
        return RenderedPush(
            rule: rule,
            messageID: event.id,
            type: event.type,
            roomID: event.room.id,
            senderID: event.sender.id,
            senderNickname: value(of: .senderNickname, content: content).truncated(toGraphemes: trim.textLimit),
            locKey: rule.locKey.render { value(of: $0, content: content) },
            locArgs: rule.locArgs.map {
                $0.render { value(of: $0, content: content) }.truncated(toGraphemes: trim.textLimit)
            },
            title: text(texts.title, content: content, trim: trim),
            body: assembledBody.map { $0.truncated(toGraphemes: trim.textLimit) }
                ?? text(texts.body, content: content, trim: trim),
            collapseKey: rule.collapseKey?.render { value(of: $0, content: content) },
            threadID: rule.threadID?.render { value(of: $0, content: content) },
            payload: trim.includesPayload && rule.forwardsPayload && !isEncrypted ? event.payload : nil
        )
    }

    /// `template` rendered and cut as `trim` says; `nil` when it is unset or renders empty.
    private func text(_ template: Template?, content: String, trim: Trim) -> String? {
        guard let rendered = template?.render({ value(of: $0, content: content) }), !rendered.isEmpty else {
            return nil
        }
        return rendered.truncated(toGraphemes: trim.textLimit)
    }

    /// What `placeholder` stands for, with `content` as the (possibly cut) content.
    private func value(of placeholder: Template.Placeholder, content: String) -> String {
        switch placeholder {
        case .senderID: event.sender.id
        case .senderNickname: nonEmpty(event.sender.nickname) ?? anonymousName
        case .targetID: event.target?.id ?? ""
        case .targetNickname: nonEmpty(event.target?.nickname) ?? anonymousName
        case .content: content
        case .roomID: event.room.id
        case .roomName: event.room.name ?? ""
        case .type: event.type
        case .messageID: event.id
        }
    }

    /// The sender's own body text (`alert`), unless the rule hides the content: an assembled text may quote it.
    private var assembledBody: String? { isEncrypted ? nil : nonEmpty(event.alert) }

    private var isEncrypted: Bool { rule.hidesContent || event.type == "encrypted" }

    /// The longest text a rendering without content has, in grapheme clusters: the bound for `Trim.textLimit`.
    func longestText() -> Int {
        let rendered = render(Trim(includesPayload: false, contentLimit: 0))
        let texts = [rendered.title, rendered.body, rendered.senderNickname].compactMap { $0 } + rendered.locArgs
        return texts.map(\.count).max() ?? 0
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
