// `stat`'s initializer and fields are attributed to CDispatch's module, which includes glibc's headers first
// once this module imports Dispatch (glibc's headers are not modular).
import CDispatch
import Glibc

extension LMDBFileCheck {
    /// Checks the LMDB file at `path` with plain reads (`pread`), never mapping it; `nil` when it is sound or absent.
    static func damage(ofFile path: String) -> Damage? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            guard errno != ENOENT else { return nil }
            return Damage(kind: .unreadable, detail: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0 else {
            return Damage(kind: .unreadable, detail: "cannot read its size: \(String(cString: strerror(errno)))")
        }
        return damage(fileSize: Int(status.st_size)) { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            while filled < count {
                let read = bytes.withUnsafeMutableBytes { buffer in
                    pread(file, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
                }
                if read < 0, errno == EINTR { continue }
                guard read >= 0 else { return nil }
                if read == 0 { break }
                filled += read
            }
            return Array(bytes[..<filled])
        }
    }
}
