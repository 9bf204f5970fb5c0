import PushPipeline

/// Notices when a file the process follows changed (the rules file, the ingress keys) and applies its new version;
/// a version that does not load is refused and what is in force stays.
public struct FileReloader: Sendable {
    /// What one check found.
    public enum Check: Sendable, Equatable {
        case unchanged
        case applied
        /// The new file was refused; `reason` names the path in the file and what is wrong.
        case refused(reason: String)
    }

    public let path: String
    private let kind: InputFileKind
    private let files: any FileReading
    private let apply: @Sendable ([UInt8]) throws -> Void
    private var seen: FileStamp?

    /// `apply` loads and puts the file's content in force, or throws without changing anything.
    /// `initial` is the stamp of the file what is in force came from.
    public init(
        path: String, kind: InputFileKind, files: any FileReading, initial: FileStamp?,
        apply: @escaping @Sendable ([UInt8]) throws -> Void
    ) {
        self.path = path
        self.kind = kind
        self.files = files
        self.apply = apply
        self.seen = initial
    }

    /// Checks the file once; each version of the file is applied or refused only once.
    public mutating func check() -> Check {
        guard let stamp = files.stamp(of: path), stamp != seen else { return .unchanged }
        seen = stamp
        do {
            try apply(try files.contents(of: path, kind: kind))
            return .applied
        } catch {
            return .refused(reason: String(describing: error))
        }
    }
}
