import PushCore

/// The values a disk-backed store keeps under each registry key: what the key does not already say, in a compact
/// binary form. Pure; decoding a value that is not of this form (a corrupt or foreign file) returns `nil`, never
/// traps.
///
/// A subscription: a version byte, a flags byte (sandbox, topic, locale, time), the token, then the topic, the
/// locale and the time when flagged. Client settings: a version byte, a flags byte (notifications off, locale,
/// badge), the locale and the badge when flagged, then the muted rooms. Texts are a LEB128 length and UTF-8 bytes,
/// numbers LEB128.
enum StoredRegistryValue {
    static let version: UInt8 = 1

    /// The stored form of `subscription` (its key holds the app, client, type and device id).
    static func encode(_ subscription: Subscription) -> [UInt8] {
        var writer = Writer()
        let flags: UInt8 =
            (subscription.sandbox ? 1 : 0) | (subscription.topic != nil ? 2 : 0) | (subscription.locale != nil ? 4 : 0)
            | (subscription.updatedAtMS != nil ? 8 : 0)
        writer.bytes += [version, flags]
        writer.text(subscription.token)
        if let topic = subscription.topic { writer.text(topic) }
        if let locale = subscription.locale { writer.text(locale.description) }
        if let updatedAtMS = subscription.updatedAtMS { writer.number(UInt64(clamping: updatedAtMS)) }
        return writer.bytes
    }

    /// The subscription of `key` that `value` describes; `nil` when `value` is not a stored subscription.
    static func subscription(key: DeviceKey, value: some Collection<UInt8>) -> Subscription? {
        var reader = Reader(Array(value))
        guard reader.byte() == version, let flags = reader.byte(), let token = reader.text() else { return nil }
        var subscription = Subscription(
            appID: key.appID, clientID: key.clientID, type: key.type, token: token, deviceID: key.deviceID,
            sandbox: flags & 1 != 0)
        if flags & 2 != 0 {
            guard let topic = reader.text() else { return nil }
            subscription.topic = topic
        }
        if flags & 4 != 0 {
            guard let locale = reader.text() else { return nil }
            subscription.locale = LanguageTag(lenient: locale)
        }
        if flags & 8 != 0 {
            guard let time = reader.number(), let millis = Int64(exactly: time) else { return nil }
            subscription.updatedAtMS = millis
        }
        return reader.isAtEnd ? subscription : nil
    }

    /// The stored form of `settings` (its key holds the app and client).
    static func encode(_ settings: ClientSettings) -> [UInt8] {
        var writer = Writer()
        let flags: UInt8 =
            (settings.notificationEnabled ? 0 : 1) | (settings.locale != nil ? 2 : 0) | (settings.badge != nil ? 4 : 0)
        writer.bytes += [version, flags]
        if let locale = settings.locale { writer.text(locale.description) }
        if let badge = settings.badge { writer.number(UInt64(clamping: badge)) }
        let rooms = settings.mutedRooms.rooms
        writer.number(UInt64(rooms.count))
        for room in rooms { writer.text(room) }
        return writer.bytes
    }

    /// The settings of `key` that `value` describes; `nil` when `value` is not stored settings.
    static func settings(key: ClientKey, value: some Collection<UInt8>) -> ClientSettings? {
        var reader = Reader(Array(value))
        guard reader.byte() == version, let flags = reader.byte() else { return nil }
        var settings = ClientSettings(appID: key.appID, clientID: key.clientID, notificationEnabled: flags & 1 == 0)
        if flags & 2 != 0 {
            guard let locale = reader.text() else { return nil }
            settings.locale = LanguageTag(lenient: locale)
        }
        if flags & 4 != 0 {
            guard let badge = reader.number(), let count = Int(exactly: badge) else { return nil }
            settings.badge = count
        }
        // Each room takes at least one byte: a count beyond what is left is a corrupt value.
        guard let count = reader.number(), count <= UInt64(reader.bytes.count - reader.index) else { return nil }
        var rooms: [String] = []
        for _ in 0..<count {
            guard let room = reader.text() else { return nil }
            rooms.append(room)
        }
        settings.mutedRooms = MutedRooms(rooms)
        return reader.isAtEnd ? settings : nil
    }

    /// An offset as stored: 8 bytes, little-endian.
    static func encode(offset: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: offset) >> ($0 * 8)) }
    }

    /// The offset `value` holds; `nil` when it is not 8 bytes or names a negative offset.
    static func offset(_ value: some Collection<UInt8>) -> Int64? {
        guard value.count == 8 else { return nil }
        let bits = value.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << ($1.offset * 8) }
        let offset = Int64(bitPattern: bits)
        return offset >= 0 ? offset : nil
    }

    struct Writer {
        var bytes: [UInt8] = []

        mutating func number(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            bytes.append(UInt8(rest))
        }

        mutating func text(_ text: String) {
            number(UInt64(text.utf8.count))
            bytes += text.utf8
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func number() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                guard let byte = byte() else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }

        /// The bytes of a text (its length, then them), as indices into `bytes`.
        mutating func textRange() -> Range<Int>? {
            guard let count = number(), count <= UInt64(bytes.count - index) else { return nil }
            let start = index
            index += Int(count)
            return start..<index
        }

        mutating func text() -> String? {
            guard let count = number(), count <= UInt64(bytes.count - index) else { return nil }
            let end = index + Int(count)
            defer { index = end }
            return String(validating: bytes[index..<end], as: UTF8.self)
        }
    }
}
