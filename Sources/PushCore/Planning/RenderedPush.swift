/// The texts and options of one event's push after templates are filled in; the input of the request builders.
///
/// A class: a rendering is made once per event, language and cut, and handed to every device's body and request;
/// as a struct each hand-over copied the rule and a dozen strings with it.
final class RenderedPush {
    /// The rule and event it was rendered from.
    let source: RenderSource
    let messageID: String
    let type: String
    let roomID: String
    let senderID: String
    let senderNickname: String
    let locKey: String
    let locArgs: [String]
    /// `nil` when the template is unset or renders empty.
    let title: String?
    let body: String?
    let collapseKey: String?
    let threadID: String?
    /// The forwarded `payload` object, `nil` when dropped or absent.
    let payload: JSONValue?

    init(
        source: RenderSource, messageID: String, type: String, roomID: String, senderID: String, senderNickname: String,
        locKey: String, locArgs: [String], title: String?, body: String?, collapseKey: String?, threadID: String?,
        payload: JSONValue?
    ) {
        self.source = source
        self.messageID = messageID
        self.type = type
        self.roomID = roomID
        self.senderID = senderID
        self.senderNickname = senderNickname
        self.locKey = locKey
        self.locArgs = locArgs
        self.title = title
        self.body = body
        self.collapseKey = collapseKey
        self.threadID = threadID
        self.payload = payload
    }
}

/// How far a rendering is cut down to fit a size limit.
struct Trim: Hashable {
    var includesPayload = true
    /// The most grapheme clusters of the message content.
    var contentLimit: Int?
    /// The most grapheme clusters of every rendered text (title, body, each argument).
    var textLimit: Int?
}

/// What every rendering of one event is made from: its rule, the event and the name shown for a person without
/// one. Shared by reference: the event's renderers (one per language) and their renderings hold it, not copies.
final class RenderSource {
    let rule: PushRule
    let event: ChatMessageEvent
    let anonymousName: String

    init(rule: PushRule, event: ChatMessageEvent, anonymousName: String) {
        self.rule = rule
        self.event = event
        self.anonymousName = anonymousName
    }
}

/// Fills a rule's templates with an event's values.
///
/// A class: the renderer of one language is shared by the event's recipients in that language and by the size
/// fitting of each platform; its uncut rendering is made once for all of them.
final class PushRenderer {
    let source: RenderSource
    /// The rule's title and body in the reader's language.
    let texts: FallbackTexts
    /// The uncut rendering (`render(Trim())`), made once it is asked for.
    private(set) lazy var whole = render(Trim())

    init(source: RenderSource, texts: FallbackTexts) {
        self.source = source
        self.texts = texts
    }

    /// The content as the rules allow it: never for `encrypted` or content-hiding rules.
    var visibleContent: String {
        source.rule.hidesContent || source.event.type == "encrypted" ? "" : (source.event.content ?? "")
    }

    func render(_ trim: Trim) -> RenderedPush {
        let content = visibleContent.truncated(toGraphemes: trim.contentLimit)
        return RenderedPush(
            source: source,
            messageID: source.event.id,
            type: source.event.type,
            roomID: source.event.room.id,
            senderID: source.event.sender.id,
            senderNickname: value(of: .senderNickname, content: content).truncated(toGraphemes: trim.textLimit),
            locKey: source.rule.locKey.render { value(of: $0, content: content) },
            locArgs: source.rule.locArgs.map {
                $0.render { value(of: $0, content: content) }.truncated(toGraphemes: trim.textLimit)
            },
            title: text(texts.title, content: content, trim: trim),
            body: assembledBody.map { $0.truncated(toGraphemes: trim.textLimit) }
                ?? text(texts.body, content: content, trim: trim),
            collapseKey: source.rule.collapseKey?.render { value(of: $0, content: content) },
            threadID: source.rule.threadID?.render { value(of: $0, content: content) },
            payload: trim.includesPayload && source.rule.forwardsPayload && !isEncrypted ? source.event.payload : nil
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
        case .senderID: source.event.sender.id
        case .senderNickname: nonEmpty(source.event.sender.nickname) ?? source.anonymousName
        case .targetID: source.event.target?.id ?? ""
        case .targetNickname: nonEmpty(source.event.target?.nickname) ?? source.anonymousName
        case .content: content
        case .roomID: source.event.room.id
        case .roomName: source.event.room.name ?? ""
        case .type: source.event.type
        case .messageID: source.event.id
        }
    }

    /// The sender's own body text (`alert`), unless the rule hides the content: an assembled text may quote it.
    private var assembledBody: String? { isEncrypted ? nil : nonEmpty(source.event.alert) }

    private var isEncrypted: Bool { source.rule.hidesContent || source.event.type == "encrypted" }

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
