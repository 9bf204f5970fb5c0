/// The name of a member a decoder reads (`ObjectFields`): a string literal, whose bytes the binary holds, so reading a
/// tape compares names with them in place instead of converting the name at every lookup.
struct MemberKey: ExpressibleByStringLiteral, CustomStringConvertible {
    let literal: StaticString

    init(stringLiteral literal: StaticString) {
        self.literal = literal
    }

    /// The name as text, for paths and trees.
    var description: String { literal.description }
}
