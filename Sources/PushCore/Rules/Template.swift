/// A text with placeholders such as `{sender.nickname}`, parsed once when the rules table loads.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// A value a template can refer to.
    public enum Placeholder: String, Sendable, CaseIterable {
        case senderID = "sender.id"
        case senderNickname = "sender.nickname"
        case targetID = "target.id"
        case targetNickname = "target.nickname"
        case content
        case roomID = "room.id"
        case roomName = "room.name"
        case type
        case messageID = "message.id"
    }

    enum Part: Sendable, Hashable {
        case literal(String)
        case placeholder(Placeholder)
    }

    let parts: [Part]
    /// The template as written.
    public let description: String

    /// Parses `text`; the error says which placeholder is unknown or unclosed.
    public init(_ text: String) throws(TemplateError) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { throw TemplateError("unclosed '{'") }
            let name = String(rest[rest.index(after: open)..<close])
            guard let placeholder = Placeholder(rawValue: name) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                throw TemplateError("unknown placeholder '{\(name)}' (known: \(known))")
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        guard !literal.contains("}") else { throw TemplateError("'}' without '{'") }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.description = text
    }

    private init(parts: [Part], description: String) {
        self.parts = parts
        self.description = description
    }

    /// `im_loc_{type}`, the IMKIT localization key of a message type.
    public static let imkitLocKey = Template(
        parts: [.literal("im_loc_"), .placeholder(.type)], description: "im_loc_{type}")

    /// Whether the template refers to `placeholder`.
    public func uses(_ placeholder: Placeholder) -> Bool {
        parts.contains(.placeholder(placeholder))
    }

    /// The text with every placeholder replaced by `value(placeholder)`.
    public func render(_ value: (Placeholder) -> String) -> String {
        if parts.count == 1, case .placeholder(let only) = parts[0] { return value(only) }
        var text = ""
        for part in parts {
            switch part {
            case .literal(let literal): text += literal
            case .placeholder(let placeholder): text += value(placeholder)
            }
        }
        return text
    }
}

/// Why a template does not parse.
public struct TemplateError: Error, Sendable, Equatable {
    public var reason: String

    init(_ reason: String) {
        self.reason = reason
    }
}
