/// A member name as it appears in a record's JSON bytes (`"messageType"`): searched before parsing, so a planner
/// that takes only records with that member leaves every other record to the next planner unparsed.
struct MemberMarker: Sendable {
    private let bytes: [UInt8]

    init(_ name: String) {
        bytes = Array("\"\(name)\"".utf8)
    }

    /// Whether the quoted name occurs anywhere in `value` (a member, or a string that happens to be the name).
    func occurs(in value: [UInt8]) -> Bool {
        guard value.count >= bytes.count else { return false }
        return value.indices.dropLast(bytes.count - 1).contains { start in
            value[start] == bytes[0] && value[start..<(start + bytes.count)].elementsEqual(bytes)
        }
    }
}
