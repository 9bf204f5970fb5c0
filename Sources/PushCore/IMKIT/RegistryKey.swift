import Essentials

/// The record keys of the device registry (`appID/clientId/type/deviceId`) and the client settings
/// (`appID/clientId`): each part percent-encoded as RFC 3986 does it, parts joined by `/`.
///
/// Every byte of a part's UTF-8 outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`) is written as `%XX`
/// (uppercase hex), so `/` and `%` are always encoded and a key splits back into its parts unambiguously. The default
/// app is the empty string (a key starting with `/`). Decoding accepts either case of hex digits and unreserved
/// characters written raw, and rejects a malformed escape or bytes that are not UTF-8; it never traps.
public enum RegistryKey {
    /// `part` percent-encoded.
    public static func encode(_ part: String) -> String { join([part]) }

    /// The text of a percent-encoded part; `nil` when an escape is malformed, a `/` appears raw, or the bytes are not
    /// UTF-8.
    public static func decode(_ encoded: Substring) -> String? {
        decode(bytes: encoded.utf8)
    }

    /// As `decode(_:)`, over the encoded part's UTF-8.
    private static func decode(bytes encoded: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "/"):
                return nil
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The parts of `key` when it has exactly `count` of them, each decoded; `nil` otherwise.
    public static func parts(of key: String, count: Int) -> [String]? {
        // Split by bytes, not characters: `/` is ASCII, so this is the same split without grapheme breaking, and each
        // part of a String is valid UTF-8 already.
        return key.withUTF8Bytes { bytes -> [String]? in
            var parts: [String] = []
            parts.reserveCapacity(count)
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
                guard parts.count < count else { return nil }
                let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if part.contains(UInt8(ascii: "%")) {
                    guard let decoded = decode(bytes: part) else { return nil }
                    parts.append(decoded)
                } else {
                    parts.append(String(decoding: part, as: UTF8.self))
                }
                start = end + 1
            }
            return parts.count == count ? parts : nil
        }
    }

    /// `parts` encoded and joined by `/`.
    public static func join(_ parts: [String]) -> String {
        // At most three bytes for each byte of a part (`%XX`), and the separators.
        let capacity = parts.reduce(max(0, parts.count - 1)) { $0 + 3 * $1.utf8.count }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var count = 0
            for (index, part) in parts.enumerated() {
                if index > 0 {
                    buffer[count] = UInt8(ascii: "/")
                    count += 1
                }
                for byte in part.utf8 {
                    if isUnreserved(byte) {
                        buffer[count] = byte
                        count += 1
                    } else {
                        buffer[count] = UInt8(ascii: "%")
                        buffer[count + 1] = hexDigits[Int(byte >> 4)]
                        buffer[count + 2] = hexDigits[Int(byte & 0x0F)]
                        count += 3
                    }
                }
            }
            return count
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The key of one subscription in the device registry: one device of one client of one app, per IMKIT's rule of
/// one subscription per `type` + `deviceId`. Its ids are compared and hashed as bytes (`ByteID`).
public struct DeviceKey: Sendable, Hashable, CustomStringConvertible {
    /// The app; the empty string for the default app.
    public var appID: String
    public var clientID: String
    public var type: SubscriptionType
    public var deviceID: String

    public init(appID: String, clientID: String, type: SubscriptionType, deviceID: String) {
        self.appID = appID
        self.clientID = clientID
        self.type = type
        self.deviceID = deviceID
    }

    /// Parses a record key; `nil` when it is not four well-encoded parts with a known type.
    public init?(text: String) {
        guard let parts = RegistryKey.parts(of: text, count: 4), let type = SubscriptionType(rawValue: parts[2]) else {
            return nil
        }
        self.init(appID: parts[0], clientID: parts[1], type: type, deviceID: parts[3])
    }

    /// The client this device belongs to.
    public var client: ClientKey { ClientKey(appID: appID, clientID: clientID) }

    /// The record key, `appID/clientId/type/deviceId` percent-encoded.
    public var description: String { RegistryKey.join([appID, clientID, type.rawValue, deviceID]) }

    public static func == (lhs: DeviceKey, rhs: DeviceKey) -> Bool {
        lhs.type == rhs.type && ByteID(lhs.deviceID) == ByteID(rhs.deviceID) && lhs.client == rhs.client
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(client)
        hasher.combine(type)
        hasher.combine(ByteID(deviceID))
    }
}

/// The key of one client's settings (`appID/clientId`), and the key devices are looked up by. Its ids are compared
/// and hashed as bytes (`ByteID`).
public struct ClientKey: Sendable, Hashable, CustomStringConvertible {
    /// The app; the empty string for the default app.
    public var appID: String
    public var clientID: String

    public init(appID: String, clientID: String) {
        self.appID = appID
        self.clientID = clientID
    }

    /// Parses a record key; `nil` when it is not two well-encoded parts.
    public init?(text: String) {
        guard let parts = RegistryKey.parts(of: text, count: 2) else { return nil }
        self.init(appID: parts[0], clientID: parts[1])
    }

    /// The record key, `appID/clientId` percent-encoded.
    public var description: String { RegistryKey.join([appID, clientID]) }

    public static func == (lhs: ClientKey, rhs: ClientKey) -> Bool {
        ByteID(lhs.clientID) == ByteID(rhs.clientID) && ByteID(lhs.appID) == ByteID(rhs.appID)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ByteID(appID))
        hasher.combine(ByteID(clientID))
    }
}
