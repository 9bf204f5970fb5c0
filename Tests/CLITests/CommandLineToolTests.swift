import CLI
import Testing

@Suite struct CommandLineToolTests {
    let tool = CommandLineTool(
        name: "tool",
        summary: "Does things.",
        version: "1.2.3",
        subcommands: [
            Subcommand(
                name: "greet",
                summary: "Greets someone.",
                synopsis: "--name NAME [--times N] [--loud]",
                options: [
                    .value("--name", "NAME", "Who to greet."),
                    .value("--times", "N", "How often."),
                    .switch("--loud", "Shout."),
                ],
                run: { _ in 7 }
            ),
            Subcommand(
                name: "copy",
                summary: "Copies a file.",
                synopsis: "[--force] FROM TO",
                options: [.switch("--force", "Overwrite.")],
                arguments: [ArgumentSpec("FROM", "The file to read."), ArgumentSpec("TO", "The file to write.")],
                run: { _ in 0 }
            ),
        ]
    )

    @Test func topLevelHelpListsEverySubcommand() {
        guard case .printHelp(let text) = tool.resolve(["--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(text.contains("greet  Greets someone."))
        #expect(text.hasPrefix("USAGE: tool <subcommand>"))
    }

    @Test func versionFlagPrintsTheToolsVersion() {
        guard case .printHelp(let text) = tool.resolve(["--version"]) else {
            Issue.record("expected the version")
            return
        }
        #expect(text == "tool 1.2.3")
    }

    @Test func subcommandHelpShowsItsOptions() {
        guard case .printHelp(let text) = tool.resolve(["greet", "--name", "x", "--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(text.contains("USAGE: tool greet --name NAME [--times N] [--loud]"))
        #expect(text.contains("--times N"))
        #expect(text.contains("--help"))
    }

    @Test(arguments: [
        (["nope"], "unknown subcommand 'nope'"),
        ([], "missing subcommand"),
        (["greet", "--bogus"], "unknown option '--bogus'"),
        (["greet", "--name"], "option '--name' needs a value"),
        (["greet", "stray"], "unexpected argument 'stray'"),
        (["greet", "--loud=yes"], "option '--loud' takes no value"),
        (["copy", "a"], "missing argument TO"),
        (["copy", "--force"], "missing argument FROM"),
        (["copy", "a", "b", "c"], "unexpected argument 'c'"),
    ])
    func badCommandLinesAreUsageErrorsNamingTheCulprit(arguments: [String], message: String) {
        guard case .usageError(let actual, let usage) = tool.resolve(arguments) else {
            Issue.record("expected a usage error for \(arguments)")
            return
        }
        #expect(actual == message)
        #expect(usage.contains("USAGE: tool"))
    }

    @Test func usageErrorsExitWithCodeTwo() async {
        #expect(await tool.main(["greet", "--bogus"]) == 2)
        #expect(await tool.main(["greet", "--name", "a"]) == 7)
    }

    @Test func parsesValuesSwitchesAndInlineValues() throws {
        let parsed = try ParsedArguments.parse(
            ["--name=Ann", "--times", "3", "--loud"],
            options: tool.subcommands[0].options
        )
        #expect(parsed.value("--name") == "Ann")
        #expect(try parsed.integer("--times", default: 1, in: 1...5) == 3)
        #expect(parsed.isSet("--loud"))
        #expect(try parsed.required("--name") == "Ann")
    }

    @Test func positionalArgumentsAreTakenInOrderAnywhereAmongTheFlags() throws {
        guard case .run(let command, let parsed) = tool.resolve(["copy", "a.txt", "--force", "b.txt"]) else {
            Issue.record("expected a run")
            return
        }
        #expect(command.name == "copy")
        #expect(parsed.argument("FROM") == "a.txt")
        #expect(parsed.argument("TO") == "b.txt")
        #expect(parsed.isSet("--force"))
        #expect(parsed.argument("OTHER") == nil)
    }

    @Test func subcommandHelpListsItsArgumentsBeforeItsOptions() {
        guard case .printHelp(let text) = tool.resolve(["copy", "--help"]) else {
            Issue.record("expected help")
            return
        }
        #expect(text.contains("USAGE: tool copy [--force] FROM TO"))
        #expect(text.contains("ARGUMENTS:\n  FROM     The file to read.\n  TO       The file to write.\n\nOPTIONS:"))
    }

    @Test func integerOutOfRangeNamesTheFlagAndTheValue() throws {
        let parsed = try ParsedArguments.parse(["--times", "9"], options: tool.subcommands[0].options)
        #expect(throws: UsageError("option '--times' needs a whole number from 1 to 5, not '9'")) {
            try parsed.integer("--times", default: 1, in: 1...5)
        }
        #expect(throws: UsageError("missing required option '--missing'")) { try parsed.required("--missing") }
    }

    @Test func listsDropBlanksAndRejectEmpty() throws {
        let options: [OptionSpec] = [.value("--topics", "LIST", "Topics.")]
        let parsed = try ParsedArguments.parse(["--topics", " a, b ,,c"], options: options)
        #expect(try parsed.list("--topics", default: []) == ["a", "b", "c"])
        let empty = try ParsedArguments.parse(["--topics", ","], options: options)
        #expect(throws: UsageError.self) { try empty.list("--topics", default: []) }
        #expect(try ParsedArguments().list("--topics", default: ["x"]) == ["x"])
    }

    @Test func choicesAcceptOnlyTheirValues() throws {
        let parsed = ParsedArguments(values: ["--platform": "ios", "--format": "xml"])
        #expect(try parsed.choice("--platform", from: ["ios", "android"]) == "ios")
        #expect(throws: UsageError("option '--format' needs one of json, csv, not 'xml'")) {
            try parsed.choice("--format", from: ["json", "csv"])
        }
        #expect(try parsed.choice("--absent", from: ["a"]) == nil)
    }
}
