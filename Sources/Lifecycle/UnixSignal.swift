import Glibc

/// A POSIX signal a process can be asked to stop with.
public struct UnixSignal: Sendable, Hashable, CustomStringConvertible {
    /// The signal number (`SIGTERM` is 15 on Linux).
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `SIGTERM`: what Kubernetes and `kill` send.
    public static let terminate = UnixSignal(rawValue: SIGTERM)
    /// `SIGINT`: Ctrl-C.
    public static let interrupt = UnixSignal(rawValue: SIGINT)

    public var description: String {
        switch rawValue {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(rawValue)"
        }
    }
}
