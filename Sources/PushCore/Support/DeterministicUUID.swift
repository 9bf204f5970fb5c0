import Essentials

/// Name-based UUIDs (RFC 9562 version 8 layout over SHA-256), so a resend of the same push gets the same id.
public enum DeterministicUUID {
    /// The canonical lowercase UUID string derived from `name`.
    public static func make(from name: String) -> String {
        uuid(SHA256.digest(utf8: name))
    }

    /// The UUID of the name whose UTF-8 bytes are `name`: `make(from:)` of that text, without making it a string.
    public static func make(fromUTF8 name: UnsafeBufferPointer<UInt8>) -> String {
        uuid(SHA256.digest(of: name))
    }

    /// The `apns-id` of the push of message `messageID` to `device`: the UUID of `<messageID> NUL <platform> NUL
    /// <token>`, its name written as bytes into a temporary buffer (it runs for every APNs request).
    public static func apnsID(messageID: String, device: Device) -> String {
        let platform = device.platform.rawValue
        let count = messageID.utf8.count + platform.utf8.count + device.token.utf8.count + 2
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { name in
            var end = name[...].initialize(fromContentsOf: messageID.utf8)
            name[end] = 0
            end = name[(end + 1)...].initialize(fromContentsOf: platform.utf8)
            name[end] = 0
            end = name[(end + 1)...].initialize(fromContentsOf: device.token.utf8)
            return uuid(SHA256.digest(of: UnsafeBufferPointer(rebasing: name[..<end])))
        }
    }

    /// The UUID of a name's SHA-256 `digest`: its first 16 bytes, with the version and the variant set.
    private static func uuid(_ digest: SHA256.Digest) -> String {
        // Written as ASCII bytes, 8-4-4-4-12 hex digits: it runs for every APNs request and every receipt.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { text in
            var count = 0
            for index in 0..<16 {
                var byte = digest[index]
                if index == 6 { byte = (byte & 0x0F) | 0x80 }
                if index == 8 { byte = (byte & 0x3F) | 0x80 }
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[count] = UInt8(ascii: "-")
                    count += 1
                }
                text[count] = digits.utf8Start[Int(byte >> 4)]
                text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                count += 2
            }
            return count
        }
    }
}
