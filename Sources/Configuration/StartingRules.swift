public import PushCore

/// The rules table in force at start: the built-in one, or the table of `PUSH_RULES_FILE`, loaded and checked with
/// the other settings, with the stamp of the file it came from (the reloader applies only later versions).
public struct StartingRules: Sendable {
    public var table: RulesTable
    /// The stamp of `PUSH_RULES_FILE` when it was read; `nil` for the built-in table.
    public var stamp: FileStamp?

    /// Loads the table of `path` (`PUSH_RULES_FILE`); the error names the variable, the path and what is wrong.
    static func load(path: String?, files: some FileReading) throws(InvalidSetting) -> StartingRules {
        guard let path else { return StartingRules(table: .standard, stamp: nil) }
        let stamp = files.stamp(of: path)
        let bytes: [UInt8]
        do {
            bytes = try files.contents(of: path, kind: .rules)
        } catch let error as FileReadError {
            throw InvalidSetting(variable: "PUSH_RULES_FILE", reason: error.description)
        } catch {
            throw InvalidSetting(variable: "PUSH_RULES_FILE", reason: "\(path): \(error)")
        }
        do {
            return StartingRules(table: try RulesTable.load(json: bytes), stamp: stamp)
        } catch {
            throw InvalidSetting(variable: "PUSH_RULES_FILE", reason: "\(path): \(error)")
        }
    }
}
