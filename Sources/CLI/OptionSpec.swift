/// One `--flag` a subcommand accepts: either a switch or an option that takes a value.
public struct OptionSpec: Sendable, Equatable {
    /// The flag as typed, including the leading dashes (`--brokers`).
    public let flag: String
    /// The placeholder shown in usage for the value (`N`, `FILE`); `nil` for a switch.
    public let valueName: String?
    /// One line of help.
    public let help: String

    /// An option that takes a value, like `--brokers N`.
    public static func value(_ flag: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(flag: flag, valueName: valueName, help: help)
    }

    /// A switch that takes no value, like `--verbose`.
    public static func `switch`(_ flag: String, _ help: String) -> OptionSpec {
        OptionSpec(flag: flag, valueName: nil, help: help)
    }

    var takesValue: Bool { valueName != nil }
}
