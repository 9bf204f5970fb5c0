public import Configuration
import PushPipeline

/// Files that exist with their bytes; every other path does not exist.
public struct MountedFiles: FileReading {
    public var files: [String: [UInt8]]

    public init(files: [String: [UInt8]]) { self.files = files }

    public func stamp(of path: String) -> FileStamp? {
        files[path].map { FileStamp(modifiedNanoseconds: 1, size: Int64($0.count), inode: 1) }
    }

    public func contents(of path: String, kind: InputFileKind) throws -> [UInt8] {
        guard let bytes = files[path] else { throw FileReadError(path: path, reason: "No such file or directory") }
        return bytes
    }

    /// The folders the paths under `directory` name; a directory no path is under does not exist.
    public func folders(in directory: String) throws -> [String] {
        let prefix = directory + "/"
        let names = files.keys.filter { $0.hasPrefix(prefix) }.compactMap { path in
            path.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
        }
        guard !names.isEmpty else { throw FileReadError(path: directory, reason: "No such file or directory") }
        return Set(names).sorted()
    }
}
