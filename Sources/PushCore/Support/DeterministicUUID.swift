import Essentials

/// Name-based UUIDs (RFC 9562 version 8 layout over SHA-256), so a resend of the same push gets the same id.
public enum DeterministicUUID {
    /// The canonical lowercase UUID string derived from `name`.
    public static func make(from name: String) -> String {
        var bytes = Array(SHA256.hash(Array(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = SHA256.hex(bytes)
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }
}
