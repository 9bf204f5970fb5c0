/// Thrown by a service to end its group with `code`: gracefully (the other services are shut down in reverse order
/// first, e.g. a fatal client error) or at once (nothing else runs, e.g. a stalled loop that must not commit).
public struct ServiceGroupExit: Error, Sendable, Equatable {
    /// How the rest of the group ends.
    public enum Mode: Sendable, Equatable {
        /// The other services are shut down in reverse order, within the group's budget.
        case graceful
        /// The group returns `code` at once; the other services are left to the process's exit.
        case immediately
    }

    /// The process exit code.
    public var code: Int32
    public var mode: Mode

    public init(code: Int32, mode: Mode) {
        self.code = code
        self.mode = mode
    }
}
