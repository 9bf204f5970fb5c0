/// Why an event, or one device of it, cannot be processed: the dead-letter reason, the field path and the reason.
///
/// Messages never include a device token or other field values, only paths, so they are safe to log.
public struct EventError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: DeadLetterReason
    /// Where in the event, e.g. `recipients[0].devices[1].token`; empty for the record as a whole.
    public var path: String
    /// What is wrong, e.g. `must be 64 to 200 hexadecimal characters`.
    public var message: String

    public init(_ reason: DeadLetterReason, path: String, _ message: String) {
        self.reason = reason
        self.path = path
        self.message = message
    }

    /// The error of a part of the event placed at the part's path `base`: `token` within `recipients[0].devices[1]`
    /// is `recipients[0].devices[1].token`.
    func within(_ base: String) -> EventError {
        var placed = self
        placed.path = path.isEmpty ? base : "\(base).\(path)"
        return placed
    }

    /// One line: `recipients[0].userId: required`.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
