/// A tool made of subcommands: dispatches, prints help, and turns usage errors into exit code 2.
public struct CommandLineTool: Sendable {
    public let name: String
    public let summary: String
    public let subcommands: [Subcommand]
    /// Printed by `TOOL --version`.
    public let version: String

    /// Exit code for a command line that does not fit the usage.
    public static let usageExitCode: Int32 = 2

    public init(name: String, summary: String, version: String, subcommands: [Subcommand]) {
        self.name = name
        self.summary = summary
        self.version = version
        self.subcommands = subcommands
    }

    /// The text printed by `TOOL --help`.
    public var usage: String {
        var lines = ["USAGE: \(name) <subcommand> [options]", "       \(name) --version", "", summary, ""]
        lines.append(Self.list(subcommands, title: "SUBCOMMANDS:", toolName: name))
        return lines.joined(separator: "\n")
    }

    private static func list(_ commands: [Subcommand], title: String, toolName: String) -> String {
        let width = commands.map(\.name.count).max() ?? 0
        var lines = [title]
        lines += commands.map { "  " + $0.name.padding(to: width) + "  " + $0.summary }
        lines += ["", "See '\(toolName) <subcommand> --help' for the options of each subcommand."]
        return lines.joined(separator: "\n")
    }

    /// What an invocation resolves to before anything runs.
    public enum Invocation: Sendable {
        /// Help or the version: printed to stdout, exit 0.
        case printHelp(String)
        case usageError(message: String, usage: String)
        case run(Subcommand, ParsedArguments)
    }

    /// Resolves `arguments` (without the program name) to help, a usage error, or a subcommand to run.
    public func resolve(_ arguments: [String]) -> Invocation {
        guard let first = arguments.first else {
            return .usageError(message: "missing subcommand", usage: usage)
        }
        if first == "--help" || first == "-h" || first == "help" { return .printHelp(usage) }
        if first == "--version" { return .printHelp("\(name) \(version)") }
        // A name of several words (`receipts stats`) is matched word by word; the longest match wins.
        let matching = subcommands.filter { $0.words.elementsEqual(arguments.prefix($0.words.count)) }
        guard let command = matching.max(by: { $0.words.count < $1.words.count }) else {
            let group = subcommands.filter { $0.words.count > 1 && $0.words[0] == first }
            guard !group.isEmpty else { return .usageError(message: "unknown subcommand '\(first)'", usage: usage) }
            let groupUsage = Self.list(group, title: "SUBCOMMANDS OF '\(first)':", toolName: name)
            switch arguments.dropFirst().first {
            case nil: return .usageError(message: "'\(first)' needs a subcommand", usage: groupUsage)
            case "--help", "-h": return .printHelp(groupUsage)
            case let word?: return .usageError(message: "unknown subcommand '\(first) \(word)'", usage: groupUsage)
            }
        }
        let rest = Array(arguments.dropFirst(command.words.count))
        if rest.contains("--help") || rest.contains("-h") { return .printHelp(command.usage(toolName: name)) }
        do {
            return .run(
                command, try ParsedArguments.parse(rest, options: command.options, positionals: command.arguments))
        } catch {
            return .usageError(message: error.message, usage: command.usage(toolName: name))
        }
    }

    /// Runs the invocation: help to stdout (exit 0), usage errors to stderr (exit 2), or the subcommand.
    public func main(_ arguments: [String]) async -> Int32 {
        switch resolve(arguments) {
        case .printHelp(let text):
            StandardStreams.writeOut(text)
            return 0
        case .usageError(let message, let usage):
            StandardStreams.writeError("\(name): error: \(message)")
            StandardStreams.writeError(usage)
            return Self.usageExitCode
        case .run(let command, let parsed):
            return await command.run(parsed)
        }
    }
}
