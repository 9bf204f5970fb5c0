/// A command line that does not fit the command's usage. Printed as one line, then the usage; exit code 2.
public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
