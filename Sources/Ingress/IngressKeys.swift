import Essentials

/// The shared secrets that prove a request comes from an app's platform: one or more per app, so that a key can be
/// rotated with the old and the new one valid at once.
///
/// Written `app:key,app:key2` (`PUSH_INGRESS_KEYS`) or one `app:key` per line (`PUSH_INGRESS_KEYS_FILE`, `#` starts
/// a comment). The default app (no `appID`) is spelt `(default)`; no other key reaches it. Keys are compared in
/// constant time, and never appear in errors or descriptions.
public struct IngressKeys: Sendable, CustomStringConvertible {
    /// How a key list names the default app, whose `appID` is the empty string.
    public static let defaultAppName = "(default)"

    private let entries: [(app: String, key: [UInt8])]

    /// Why a key list cannot be used; names the entry by its position, never its key.
    public struct InvalidEntry: Error, Sendable, Equatable, CustomStringConvertible {
        /// The entry's position, from 1.
        public var position: Int
        public var reason: String
        public var description: String { "entry \(position): \(reason)" }
    }

    /// Parses entries separated by commas or line breaks; blank entries and `#` comments are skipped.
    public init(parsing text: String) throws(InvalidEntry) {
        var entries: [(app: String, key: [UInt8])] = []
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" }
        let items = lines.flatMap { line in
            (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").split(
                separator: ",", omittingEmptySubsequences: false)
        }
        var position = 0
        for item in items {
            let entry = item.trimmingSpaces
            if entry.isEmpty { continue }
            position += 1
            guard let colon = entry.firstIndex(of: ":") else {
                throw InvalidEntry(position: position, reason: "is not app:key")
            }
            let app = entry[..<colon].trimmingSpaces
            let key = entry[entry.index(after: colon)...].trimmingSpaces
            guard !app.isEmpty else { throw InvalidEntry(position: position, reason: "has no app before ':'") }
            guard !key.isEmpty else { throw InvalidEntry(position: position, reason: "has no key after ':'") }
            let isDefault = ByteID(String(app)) == ByteID(Self.defaultAppName)
            entries.append((isDefault ? "" : String(app), Array(key.utf8)))
        }
        guard !entries.isEmpty else { throw InvalidEntry(position: 0, reason: "no app:key entry") }
        self.entries = entries
    }

    /// The apps that have keys, each once (apps are told apart by their bytes), in the order of their UTF-8 bytes;
    /// the default app is the empty string.
    public var apps: [String] {
        Set(entries.map { ByteID($0.app) }).sorted().map(\.text)
    }

    /// The app whose key `presented` is (the empty string for the default app), or `nil`. Every key is compared in
    /// full whatever matches, so the time taken tells nothing about the keys.
    public func app(presenting presented: String) -> String? {
        let candidate = Array(presented.utf8)
        var found: String?
        for entry in entries where Self.constantTimeEqual(entry.key, candidate) && found == nil {
            found = entry.app
        }
        return found
    }

    /// Whether `a` and `b` are equal, in a time that depends on their lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    /// The apps and how many keys each has; never a key.
    public var description: String {
        apps.map { app in
            let count = entries.count { ByteID($0.app) == ByteID(app) }
            return "\(app.isEmpty ? Self.defaultAppName : app): \(count) key(s)"
        }.joined(separator: ", ")
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
