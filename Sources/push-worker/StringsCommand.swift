import CLI
import Configuration
import Foundation
import PushCore
import PushPipeline

/// `push-worker strings`: the apps' string resources for every fixed loc-key of the rules table, so that a new
/// message type reaches the apps from the same table the server renders.
enum StringsCommand {
    static let subcommand = Subcommand(
        name: "strings",
        summary: "Writes the apps' string resources (iOS Localizable.strings, Android strings.xml) from the rules.",
        synopsis: "--platform ios|android [--locale L] [--out DIR] [--rules FILE]",
        discussion: """
            One string per alert type of the rules table (--rules, else PUSH_RULES_FILE, else the built-in \
            table): its loc-key, and its body with the loc-args as positional arguments (%1$@ on iOS, %1$s on \
            Android). With --out DIR, writes every language of the table (or only --locale's) into DIR as \
            <tag>.lproj/Localizable.strings or values[-qualifier]/strings.xml (values/ holding the table's \
            defaultLocale) and prints each path; without it, prints one file: --locale's, else the \
            defaultLocale's. A type whose key or body cannot be a string resource is left out with a note on \
            stderr.
            """,
        options: [
            .value("--platform", "ios|android", "The app platform whose resource format to write."),
            .value("--locale", "L", "Only this language (BCP 47: ko, ja, zh-Hant, en, …)."),
            .value("--out", "DIR", "The app's resources folder to write into; stdout when absent."),
            .value("--rules", "FILE", "A rules table (JSON) instead of the built-in one."),
        ],
        run: run
    )

    private static func run(_ arguments: ParsedArguments) async -> Int32 {
        let format: AppStringsFormat
        let locale: LanguageTag?
        do throws(UsageError) {
            let platform = try arguments.choice("--platform", from: AppStringsFormat.allCases.map(\.rawValue))
            guard let platform, let chosen = AppStringsFormat(rawValue: platform) else {
                throw UsageError("missing required option '--platform'")
            }
            format = chosen
            locale = try arguments.value("--locale").map { (text) throws(UsageError) in
                guard let tag = LanguageTag(text) else {
                    throw UsageError("option '--locale' needs a language tag: \(LanguageTag.malformed(text))")
                }
                return tag
            }
        } catch {
            StandardStreams.writeError("push-worker: error: \(error.message)")
            StandardStreams.writeError(subcommand.usage(toolName: "push-worker"))
            return CommandLineTool.usageExitCode
        }
        do throws(CommandFailure) {
            let settings = try CommandInput.configuration(ProcessInfo.processInfo.environment)
            let rules = try CommandInput.rules(arguments.value("--rules") ?? settings.rulesFile)
            let languages = locale.map { [$0] } ?? AppStrings.languages(of: rules)
            var omitted: [AppStrings.Omission] = []
            var files: [AppStrings] = []
            for language in languages {
                let (strings, omissions) = AppStrings.make(from: rules, language: language)
                files.append(strings)
                omitted += omissions.filter { !omitted.contains($0) }
            }
            for omission in omitted { StandardStreams.writeError("push-worker strings: note: \(omission)") }
            guard let folder = arguments.value("--out") else {
                // The file ends with its newline; writeOut adds one.
                if let first = files.first { StandardStreams.writeOut(String(format.file(first).dropLast())) }
                return 0
            }
            for strings in files {
                StandardStreams.writeOut(try write(format.file(strings), to: folder, format.path(for: strings)))
            }
            return 0
        } catch {
            StandardStreams.writeError("push-worker strings: error: \(error.message)")
            return 1
        }
    }

    /// Writes `text` to `folder/path`, creating the folders; the path written.
    private static func write(_ text: String, to folder: String, _ path: String) throws(CommandFailure) -> String {
        let url = URL(fileURLWithPath: folder).appendingPathComponent(path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw CommandFailure(message: "\(url.path): cannot write the file (\(error.localizedDescription))")
        }
        return url.path
    }
}
