import Glibc

/// What one pass over a record's JSON bytes tells before it is parsed, for every planner the record passes through:
/// how many objects it holds at most, and whether it names an IMKIT message's or a custom push's member.
///
/// `objectCount` is the `{` bytes outside strings: every valid device is an object of its own, and a chat message's
/// text, which can be anything, cannot raise the count (only the structure, which the platform writes, counts). The
/// names are strings of the record equal to them (a member, or a value that happens to be the name): a planner that
/// takes only records with that member parses just those, and leaves every other record unparsed to the next one.
/// Not a validator: on text that is not JSON the count is still at most the number of `{` bytes. No allocation.
public struct RecordScan: Sendable {
    /// The `{` bytes outside strings.
    public let objectCount: Int
    /// Whether a string of the record is `messageType`, the member that makes it an IMKIT message.
    let namesMessageType: Bool
    /// Whether a string of the record is `clients`, the member that makes it a custom push.
    let namesClients: Bool

    public init(_ bytes: [UInt8]) {
        var objects = 0
        var messageType = false
        var clients = false
        bytes.withUnsafeBufferPointer { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "{") {
                    objects += 1
                } else if byte == UInt8(ascii: "\"") {
                    guard let end = Self.closingQuote(of: index, in: bytes) else { break }
                    // A name is a whole string equal to it, byte for byte (so written without escapes).
                    let string = UnsafeBufferPointer(rebasing: bytes[index..<end])
                    messageType = messageType || Self.is(string, "messageType")
                    clients = clients || Self.is(string, "clients")
                    index = end + 1
                }
            }
        }
        objectCount = objects
        namesMessageType = messageType
        namesClients = clients
    }

    /// Where the string whose text begins at `start` ends: the first `"` after it that an odd run of backslashes does
    /// not escape (`\\"` ends a string, `\"` does not), found with `memchr`; `nil` when none does.
    private static func closingQuote(of start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var from = start
        while from < bytes.count {
            guard let found = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) else { return nil }
            let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while quote - backslashes - 1 >= start, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") {
                backslashes += 1
            }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return nil
    }

    /// Whether `string` is `name`'s bytes: the lengths first, most strings differ there.
    private static func `is`(_ string: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        string.count == name.utf8CodeUnitCount
            && string.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
