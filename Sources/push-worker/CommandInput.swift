import Configuration
import PushCore
import PushPipeline

/// A failure of `render` or `strings` that ends the command with one line on stderr and exit code 1.
struct CommandFailure: Error {
    let message: String
}

/// The files and settings `render` and `strings` read: the event, the rules table, the environment's settings.
enum CommandInput {
    /// The bytes of the `kind` file at `path`, read as the worker reads its files (`SystemFileReading`).
    static func read(_ path: String, kind: InputFileKind) throws(CommandFailure) -> [UInt8] {
        do {
            return try SystemFileReading().contents(of: path, kind: kind)
        } catch {
            throw CommandFailure(message: "cannot read \(error)")
        }
    }

    /// The table of `path` (`--rules`, else `PUSH_RULES_FILE`), or the built-in table when there is none.
    static func rules(_ path: String?) throws(CommandFailure) -> RulesTable {
        guard let path else { return .standard }
        let bytes = try read(path, kind: .rules)
        do {
            return try RulesTable.load(json: bytes)
        } catch {
            throw CommandFailure(message: "\(path): \(error)")
        }
    }

    /// The settings of `environment` the commands read, as the worker reads them.
    static func configuration(_ environment: [String: String]) throws(CommandFailure) -> RenderConfiguration {
        do {
            return try RenderConfiguration.load(environment: environment)
        } catch {
            throw CommandFailure(message: "\(error.variable): \(error.reason)")
        }
    }
}
