/// Why bytes are not a JSON document: the byte offset, the path of the value it happened in, and the reason.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    /// The member or element the error is in, e.g. `recipients[0].badge`; empty for the document itself.
    public var path = ""
    public var reason: String

    public init(offset: Int, path: String = "", reason: String) {
        self.offset = offset
        self.path = path
        self.reason = reason
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }

    /// The longest member name a path shows, in characters; longer ones are cut and end in `…`.
    public static let maximumNameLength = 64

    /// The same error seen from the object that holds it as member `name`.
    ///
    /// Names come from the document, so the path shows at most `maximumNameLength` characters of each, with control
    /// characters as `?`: an error stays short and printable whatever the input.
    func inMember(_ name: String) -> JSONSyntaxError {
        let scalars = name.unicodeScalars
        var shown = String.UnicodeScalarView(
            scalars.prefix(Self.maximumNameLength).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 })
        if scalars.count > Self.maximumNameLength { shown.append("…") }
        let component = String(shown)
        var error = self
        error.path = path.isEmpty ? component : path.hasPrefix("[") ? component + path : "\(component).\(path)"
        return error
    }

    /// The same error seen from the array that holds it at `index`.
    func inElement(_ index: Int) -> JSONSyntaxError {
        var error = self
        error.path = path.isEmpty || path.hasPrefix("[") ? "[\(index)]\(path)" : "[\(index)].\(path)"
        return error
    }
}
