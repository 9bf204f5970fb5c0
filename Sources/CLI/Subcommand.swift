/// One subcommand of a command-line tool: its name, its help and what it does.
public struct Subcommand: Sendable {
    public let name: String
    /// One line shown in the tool's command list.
    public let summary: String
    /// Positional synopsis after the name, e.g. `--event FILE [--rules FILE]`.
    public let synopsis: String
    /// Longer help text shown under the synopsis, may be empty.
    public let discussion: String
    public let options: [OptionSpec]
    /// The positional arguments, all required, in order.
    public let arguments: [ArgumentSpec]
    /// Runs the command with its parsed flags and returns the process exit code.
    public let run: @Sendable (ParsedArguments) async -> Int32

    public init(
        name: String,
        summary: String,
        synopsis: String,
        discussion: String = "",
        options: [OptionSpec],
        arguments: [ArgumentSpec] = [],
        run: @escaping @Sendable (ParsedArguments) async -> Int32
    ) {
        self.name = name
        self.summary = summary
        self.synopsis = synopsis
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.run = run
    }

    /// The words of the name: one for `render`, two for `receipts stats`.
    var words: [String] { name.split(separator: " ").map(String.init) }

    /// The full usage text printed by `TOOL NAME --help`.
    public func usage(toolName: String) -> String {
        var lines = ["USAGE: \(toolName) \(name) \(synopsis)".trimmingTrailingSpaces(), "", summary]
        if !discussion.isEmpty { lines += ["", discussion] }
        let helpFlag = OptionSpec.switch("--help", "Show this help and exit.")
        let rows = (options + [helpFlag]).map { option in
            (option.valueName.map { "\(option.flag) \($0)" } ?? option.flag, option.help)
        }
        let positionalRows = arguments.map { ($0.name, $0.help) }
        let width = (rows + positionalRows).map(\.0.count).max() ?? 0
        if !positionalRows.isEmpty {
            lines += ["", "ARGUMENTS:"] + positionalRows.map { "  " + $0.0.padding(to: width) + "  " + $0.1 }
        }
        lines += ["", "OPTIONS:"]
        lines += rows.map { "  " + $0.0.padding(to: width) + "  " + $0.1 }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func trimmingTrailingSpaces() -> String {
        String(reversed().drop(while: { $0 == " " }).reversed())
    }
}
