/// One positional argument a subcommand takes, like the `FILE` of `devices import --format csv FILE`: required, in
/// the order the subcommand lists them, anywhere among its flags.
public struct ArgumentSpec: Sendable, Equatable {
    /// The placeholder shown in usage and errors (`FILE`), also the name it is read by.
    public let name: String
    /// One line of help.
    public let help: String

    public init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}
