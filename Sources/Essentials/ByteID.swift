/// An id (an app, client, device, room or message id) as tables compare it: by its UTF-8 bytes, not by Swift
/// `String`'s canonical equivalence. `café` written `caf\u{E9}` (NFC) and `cafe\u{301}` (NFD) are equal `String`s
/// but two ids: two users, two devices, two rooms. Equal, hashed and ordered byte by byte, as Kafka keys and an
/// LMDB file are; the order is that of the ids' Unicode scalars. Pure.
public struct ByteID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id's text, exactly as it was read.
    public var text: String

    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    public static func == (lhs: ByteID, rhs: ByteID) -> Bool {
        guard lhs.text.utf8.count == rhs.text.utf8.count else { return false }
        return lhs.text.withUTF8Bytes { left in rhs.text.withUTF8Bytes { right in left.elementsEqual(right) } }
    }

    public func hash(into hasher: inout Hasher) {
        text.withUTF8Bytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        // A terminator, so that the ids of a pair hash apart from the same bytes split elsewhere.
        hasher.combine(UInt8(0xFF))
    }

    public static func < (lhs: ByteID, rhs: ByteID) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }
}
