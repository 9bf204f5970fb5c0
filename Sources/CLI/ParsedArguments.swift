/// The flags and positional arguments of one subcommand invocation, parsed against its `OptionSpec`s and
/// `ArgumentSpec`s.
public struct ParsedArguments: Sendable, Equatable {
    private var values: [String: String]
    private var switches: Set<String>
    private var positionals: [String: String]

    /// Parsed arguments built directly, for defaults and tests.
    public init(values: [String: String] = [:], switches: Set<String> = [], positionals: [String: String] = [:]) {
        self.values = values
        self.switches = switches
        self.positionals = positionals
    }

    /// Parses `arguments` (without the subcommand name) against `options` and the positional `expected` ones.
    /// Accepts `--flag value` and `--flag=value`; a flag given twice keeps the last value. Every argument that is not
    /// a flag or its value is the next of `expected`; one too many, or one missing, is a usage error.
    public static func parse(
        _ arguments: [String], options: [OptionSpec], positionals expected: [ArgumentSpec] = []
    ) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var given = 0
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            let (flag, inlineValue) = split(argument)
            guard flag.hasPrefix("-") else {
                guard given < expected.count else { throw UsageError("unexpected argument '\(argument)'") }
                parsed.positionals[expected[given].name] = argument
                given += 1
                continue
            }
            guard let spec = options.first(where: { $0.flag == flag }) else {
                throw UsageError("unknown option '\(flag)'")
            }
            if !spec.takesValue {
                if inlineValue != nil { throw UsageError("option '\(flag)' takes no value") }
                parsed.switches.insert(flag)
                continue
            }
            if let inlineValue {
                parsed.values[flag] = inlineValue
            } else if index < arguments.endIndex {
                parsed.values[flag] = arguments[index]
                index += 1
            } else {
                throw UsageError("option '\(flag)' needs a value")
            }
        }
        if given < expected.count { throw UsageError("missing argument \(expected[given].name)") }
        return parsed
    }

    private static func split(_ argument: String) -> (flag: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The value given for `flag`, if any.
    public func value(_ flag: String) -> String? {
        values[flag]
    }

    /// The positional argument `name` (an `ArgumentSpec`'s), if it was given.
    public func argument(_ name: String) -> String? {
        positionals[name]
    }

    /// Whether the switch `flag` was given.
    public func isSet(_ flag: String) -> Bool {
        switches.contains(flag)
    }

    /// The value given for `flag`; a usage error naming the flag when it is missing.
    public func required(_ flag: String) throws(UsageError) -> String {
        guard let value = values[flag] else { throw UsageError("missing required option '\(flag)'") }
        return value
    }

    /// The value of `flag` as an integer within `range`, or `defaultValue` when the flag is absent.
    public func integer(_ flag: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int
    {
        guard let text = values[flag] else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "option '\(flag)' needs a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// The value of `flag` when it is one of `choices`, `nil` when the flag is absent.
    public func choice(_ flag: String, from choices: [String]) throws(UsageError) -> String? {
        guard let text = values[flag] else { return nil }
        guard choices.contains(text) else {
            throw UsageError("option '\(flag)' needs one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }

    /// The value of `flag` as a comma-separated list with blanks dropped, or `defaultValue` when absent.
    public func list(_ flag: String, default defaultValue: [String]) throws(UsageError) -> [String] {
        guard let text = values[flag] else { return defaultValue }
        let items = text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw UsageError("option '\(flag)' needs at least one name") }
        return items
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
