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
struct PushRenderer {
    let rule: PushRule
    let event: ChatMessageEvent
    let anonymousName: String
    /// The rule's title and body in the reader's language.
    let texts: FallbackTexts

    /// The content as the rules allow it: never for `encrypted` or content-hiding rules.
    var visibleContent: String {
        rule.hidesContent || event.type == "encrypted" ? "" : (event.content ?? "")
    }

    func render(_ trim: Trim) -> RenderedPush {
        let content = visibleContent.truncated(toGraphemes: trim.contentLimit)
        let value = { (placeholder: Template.Placeholder) -> String in
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
        let text = { (template: Template?) -> String? in
            guard let rendered = template?.render(value), !rendered.isEmpty else { return nil }
            return rendered.truncated(toGraphemes: trim.textLimit)
        }
        return RenderedPush(
            rule: rule,
            messageID: event.id,
            type: event.type,
            roomID: event.room.id,
            senderID: event.sender.id,
            senderNickname: value(.senderNickname).truncated(toGraphemes: trim.textLimit),
            locKey: rule.locKey.render(value),
            locArgs: rule.locArgs.map { $0.render(value).truncated(toGraphemes: trim.textLimit) },
            title: text(texts.title),
            body: assembledBody.map { $0.truncated(toGraphemes: trim.textLimit) } ?? text(texts.body),
            collapseKey: rule.collapseKey?.render(value),
            threadID: rule.threadID?.render(value),
            payload: trim.includesPayload && rule.forwardsPayload && !isEncrypted ? event.payload : nil
        )
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
