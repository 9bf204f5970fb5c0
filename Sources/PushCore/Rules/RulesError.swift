/// Everything wrong with a rules file: one problem per line, each with its path in the file and the reason.
public struct RulesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One problem: where (`types.image.ttlSeconds`) and why.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
    }

    public var problems: [Problem]

    public init(_ problems: [Problem]) {
        self.problems = problems
    }

    /// Every problem joined with `; `, for a one-line message.
    public var description: String { problems.map(\.description).joined(separator: "; ") }
}
