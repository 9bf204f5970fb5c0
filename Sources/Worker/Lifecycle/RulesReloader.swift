import Glibc
import PushPipeline

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

/// Reads files for the rules reloader; tests pass an in-memory one.
public protocol FileReading: Sendable {
    /// The stamp of the file at `path` (following symlinks), or `nil` when it cannot be read.
    func stamp(of path: String) -> FileStamp?
    /// The bytes of the file at `path`.
    func contents(of path: String) throws -> [UInt8]
}

/// Why a file could not be read.
public struct FileReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "\(path): \(reason)" }
}

/// The real file system.
public struct SystemFileReading: FileReading {
    public init() {}

    public func stamp(of path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            size: Int64(info.st_size), inode: UInt64(info.st_ino))
    }

    public func contents(of path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw FileReadError(path: path, reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            bytes += buffer[..<count]
            if count < buffer.count { break }
        }
        guard ferror(file) == 0 else { throw FileReadError(path: path, reason: "read error") }
        return bytes
    }
}

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
            try apply(try files.contents(of: path))
            return .applied
        } catch {
            return .refused(reason: String(describing: error))
        }
    }
}
