/// The `{` bytes of a JSON text outside its strings: how many objects it holds at most, whatever its strings say.
///
/// A chat message's text can be anything, so counting every `{` would let one message full of them claim the
/// whole device budget; only the structure, which the platform writes, counts here. Not a validator: on text
/// that is not JSON the count is still at most the number of `{` bytes. One pass, no allocation.
enum JSONObjectCount {
    static func of(_ bytes: [UInt8]) -> Int {
        var count = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") {
                count += 1
            }
        }
        return count
    }
}
