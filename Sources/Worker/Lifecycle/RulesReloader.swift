import PushPipeline

/// Notices when the rules file changed and applies the new table; a file that does not load is
/// refused and the table in force stays.
public struct RulesReloader: Sendable {
    /// What one check found.
    public enum Check: Sendable, Equatable {
        case unchanged
        case applied
        /// The new file was refused; `reason` names the path in the file and what is wrong.
        case refused(reason: String)
    }

    public let path: String
    private let files: any FileReading
    private let apply: @Sendable ([UInt8]) throws -> Void
    private var seen: FileStamp?

    /// `apply` loads and puts a table in force, or throws without changing anything.
    /// `initial` is the stamp of the file the running table came from.
    public init(
        path: String, files: any FileReading, initial: FileStamp?, apply: @escaping @Sendable ([UInt8]) throws -> Void
    ) {
        self.path = path
        self.files = files
        self.apply = apply
        self.seen = initial
    }

    /// Checks the file once; each version of the file is applied or refused only once.
    public mutating func check() -> Check {
        guard let stamp = files.stamp(of: path), stamp != seen else { return .unchanged }
        seen = stamp
        do {
            try apply(try files.contents(of: path, kind: .rules))
            return .applied
        } catch {
            return .refused(reason: String(describing: error))
        }
    }
}
