// `stat`'s initializer and fields need CDispatch, like `LMDBFileCheck`'s (docs/design-decisions.md, Imports).
import CDispatch
import Glibc
public import PushCore

/// The directory holding the LMDB copies of registry partitions (`PartitionCopies`): the copies it holds, and the
/// removal of a copy (its directory holds files only: the store's, its lock, a damaged file moved aside). One worker
/// per directory: it holds the lock of `push-worker.lock` in it while open, so a copy it removes is never one another
/// worker has open.
public final class PartitionCopiesDirectory: Sendable {
    public let path: String
    private let lock: StoreDirectoryLock

    /// Opens the directory `path`; refused when another process holds it.
    public init(path: String) throws(RegistryStoreError) {
        self.path = path
        lock = try StoreDirectoryLock(directory: path)
    }

    /// The path of `partition`'s copy, created when missing.
    public func copy(of partition: RegistryPartition) throws(RegistryStoreError) -> String {
        let copy = path + "/" + PartitionCopies.directoryName(of: partition)
        guard mkdir(copy, 0o750) == 0 || errno == EEXIST else {
            throw RegistryStoreError("\(copy): cannot create the partition's copy: \(Self.lastError)")
        }
        return copy
    }

    /// Marks `partition`'s copy as used now (its directory's modification time).
    public func touch(_ partition: RegistryPartition) {
        _ = utimensat(AT_FDCWD, path + "/" + PartitionCopies.directoryName(of: partition), nil, 0)
    }

    /// The copies in the directory, with when each was last used.
    public func copies() -> [PartitionCopies.Copy] {
        var copies: [PartitionCopies.Copy] = []
        for name in Self.names(in: path) {
            guard let partition = PartitionCopies.partition(ofDirectoryName: name) else { continue }
            var status = stat()
            guard stat(path + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { continue }
            copies.append(PartitionCopies.Copy(partition: partition, lastUsed: Int64(status.st_mtim.tv_sec)))
        }
        return copies
    }

    /// Removes `partition`'s copy: every file in its directory, then the directory.
    public func remove(_ partition: RegistryPartition) throws(RegistryStoreError) {
        let copy = path + "/" + PartitionCopies.directoryName(of: partition)
        for name in Self.names(in: copy) where unlink(copy + "/" + name) != 0 && errno != ENOENT {
            throw RegistryStoreError("\(copy)/\(name): cannot remove: \(Self.lastError)")
        }
        guard rmdir(copy) == 0 || errno == ENOENT else {
            throw RegistryStoreError("\(copy): cannot remove: \(Self.lastError)")
        }
    }

    /// The names in the directory `path` but `.` and `..`; none when it cannot be read.
    private static func names(in path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
