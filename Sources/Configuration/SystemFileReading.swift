import Glibc

/// The real file system, read so that no file can block or exhaust the worker: opened with `O_NONBLOCK` (a FIFO
/// without a writer does not hold the open), checked with `fstat` on the open descriptor to be a regular file no
/// larger than its kind allows (a FIFO, `/dev/zero`, a directory or a huge file is refused), then read to its
/// end but never past that size (a file that grows while read is refused too).
public struct SystemFileReading: FileReading {
    public init() {}

    public func stamp(of path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(
            modifiedNanoseconds: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
            size: Int64(info.st_size), inode: UInt64(info.st_ino))
    }

    public func contents(of path: String, kind: InputFileKind) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw FileReadError(path: path, reason: String(cString: strerror(errno)))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileReadError(path: path, reason: "is not a regular file (a directory, FIFO, socket or device)")
        }
        let tooLarge = FileReadError(
            path: path, reason: "is larger than the \(kind.maximumBytes) bytes a \(kind) may have")
        guard info.st_size <= kind.maximumBytes else { throw tooLarge }
        var bytes = [UInt8](repeating: 0, count: kind.maximumBytes + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: String(cString: strerror(errno)))
            }
            count += read
        }
        guard count <= kind.maximumBytes else { throw tooLarge }
        return Array(bytes[..<count])
    }

    public func folders(in directory: String) throws -> [String] {
        guard let stream = opendir(directory) else {
            throw FileReadError(path: directory, reason: String(cString: strerror(errno)))
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            var info = stat()
            guard stat("\(directory)/\(name)", &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            names.append(name)
        }
        return names.sorted()
    }
}
