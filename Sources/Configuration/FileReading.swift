/// What identifies one version of a file: a ConfigMap update swaps a symlink, which changes all three.
public struct FileStamp: Sendable, Equatable {
    public var modifiedNanoseconds: Int64
    public var size: Int64
    public var inode: UInt64

    public init(modifiedNanoseconds: Int64, size: Int64, inode: UInt64) {
        self.modifiedNanoseconds = modifiedNanoseconds
        self.size = size
        self.inode = inode
    }
}

/// The kinds of file the worker and its commands read, each with the most bytes it may have: a mounted file
/// swapped for a huge one (or `/dev/zero`) is refused instead of filling memory.
public struct InputFileKind: Sendable, Equatable, CustomStringConvertible {
    /// What the file is, for errors ("rules file").
    public var description: String
    public var maximumBytes: Int

    public init(_ description: String, maximumBytes: Int) {
        self.description = description
        self.maximumBytes = maximumBytes
    }

    /// `--config`: `NAME=value` lines.
    public static let configuration = InputFileKind("configuration file", maximumBytes: 1 << 20)
    /// `PUSH_RULES_FILE`, `--rules`.
    public static let rules = InputFileKind("rules file", maximumBytes: 4 << 20)
    /// `render --event`: one event, as large as a record may be.
    public static let event = InputFileKind("event file", maximumBytes: 1 << 20)
    /// `render --devices`: registry records for the lookup of an IMKIT message's clients.
    public static let registry = InputFileKind("devices file", maximumBytes: 64 << 20)
    /// `APNS_KEY_FILE` (a `.p8` key) and `FCM_SERVICE_ACCOUNT_FILE` (a service-account JSON).
    public static let credentials = InputFileKind("credentials file", maximumBytes: 256 << 10)
    /// A `*_FILE` secret such as `KAFKA_SASL_PASSWORD_FILE`.
    public static let secret = InputFileKind("secret file", maximumBytes: 64 << 10)
}

/// Reads the worker's input files; tests pass an in-memory one.
public protocol FileReading: Sendable {
    /// The stamp of the file at `path` (following symlinks), or `nil` when it cannot be read.
    func stamp(of path: String) -> FileStamp?
    /// The bytes of the regular file at `path`, at most `kind.maximumBytes` of them; throws `FileReadError`.
    func contents(of path: String, kind: InputFileKind) throws -> [UInt8]
    /// The names of the folders in `directory` (symlinks to folders included), without hidden ones such as a
    /// Kubernetes volume's `..data`; throws `FileReadError` when `directory` cannot be listed.
    func folders(in directory: String) throws -> [String]
}

/// Why a file could not be read, or holds what cannot be used, naming it.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
