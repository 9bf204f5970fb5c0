import PushCore

/// Which provider, message, room and device a send was for: what a log line about its failure names, so that one
/// message can be followed from the logs to its receipts. The device appears only as its token's fingerprint; the
/// provider is `nil` for a device dead-lettered by its plan, before any send.
public struct SendContext: Sendable, Equatable {
    public var provider: PushProvider?
    public var messageId: String
    public var room: String
    /// The receipts' `tokenHash` (`sha256:` and 64 hex digits).
    public var tokenHash: String
    /// The input record's W3C trace context (`TraceParent`), when it had a well-formed one.
    public var traceParent: String?

    public init(provider: PushProvider?, messageId: String, room: String, tokenHash: String, traceParent: String? = nil)
    {
        self.provider = provider
        self.messageId = messageId
        self.room = room
        self.tokenHash = tokenHash
        self.traceParent = traceParent
    }
}
