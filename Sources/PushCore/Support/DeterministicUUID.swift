import Essentials

/// Name-based UUIDs (RFC 9562 version 8 layout over SHA-256), so a resend of the same push gets the same id.
public enum DeterministicUUID {
    /// The canonical lowercase UUID string derived from `name`.
    public static func make(from name: String) -> String {
        uuid(SHA256.hash(utf8: name))
    }

    /// The UUID of the name whose UTF-8 bytes are `name`: `make(from:)` of that text, without making it a string.
    public static func make(fromUTF8 name: [UInt8]) -> String {
        uuid(SHA256.hash(name))
    }

    /// The `apns-id` of the push of message `messageID` to `device`: the UUID of `<messageID> NUL <platform> NUL
    /// <token>`, its name written as bytes (it runs for every APNs request).
    public static func apnsID(messageID: String, device: Device) -> String {
        let platform = device.platform.rawValue
        var name: [UInt8] = []
        name.reserveCapacity(messageID.utf8.count + platform.utf8.count + device.token.utf8.count + 2)
        name.append(contentsOf: messageID.utf8)
        name.append(0)
        name.append(contentsOf: platform.utf8)
        name.append(0)
        name.append(contentsOf: device.token.utf8)
        return make(fromUTF8: name)
    }

    /// The UUID of a name's SHA-256 `digest`.
    private static func uuid(_ digest: [UInt8]) -> String {
        var bytes = digest  // the first 16 of its 32 bytes are the UUID's
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        // Written as ASCII bytes, 8-4-4-4-12 hex digits: it runs for every APNs request.
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { text in
            var count = 0
            for (index, byte) in bytes.prefix(16).enumerated() {
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
