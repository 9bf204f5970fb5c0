import Foundation
import TestSupport
import Testing

/// `docs/configuration.md` names exactly the variables the configuration code reads: a variable added to
/// `Sources/Configuration` without a row, or a row left behind by a variable that is gone, fails here.
@Suite struct ConfigurationReferenceTests {
    /// The variables named in the first column of the Markdown tables whose header starts with `| variable |`
    /// (every name in backticks there; `KAFKA_*`, the pass-through row, is not a name).
    static func documentedVariables(_ markdown: String) -> Set<String> {
        var names: Set<String> = []
        var inTable = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| variable |") {
                inTable = true
            } else if !line.hasPrefix("|") {
                inTable = false
            } else if inTable, let first = line.split(separator: "|").first {
                for match in first.matches(of: /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/) { names.insert(String(match.1)) }
            }
        }
        return names
    }

    /// The variable names the configuration code spells as string literals (`"PUSH_TOPICS"`, …).
    static func variablesRead(_ sources: [String]) -> Set<String> {
        Set(sources.flatMap { $0.matches(of: /"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/).map { String($0.1) } })
    }

    /// What differs between the documentation and the code. A documented `KAFKA_<NAME>` the code does not spell
    /// counts as read when the code reads its librdkafka property (`<name>` lower-cased, `_` → `.`) by name, as
    /// `KAFKA_MESSAGE_MAX_BYTES` is read as `message.max.bytes`.
    static func differences(documented: Set<String>, sources: [String]) -> (
        undocumented: Set<String>, unread: Set<String>
    ) {
        let read = variablesRead(sources)
        let unread = documented.subtracting(read).filter { name in
            guard name.hasPrefix("KAFKA_") else { return true }
            let property = name.dropFirst("KAFKA_".count).lowercased().replacingOccurrences(of: "_", with: ".")
            return !sources.contains { $0.contains("\"\(property)\"") }
        }
        return (read.subtracting(documented), unread)
    }

    @Test func aVariableMissingOnEitherSideIsFound() {
        let markdown = """
            | variable | default | meaning |
            |---|---|---|
            | `PUSH_TOPICS` | `chat.messages` | input topics |
            | `APNS_URL` / `APNS_SANDBOX_URL` | | hosts, see `PUSH_CA_FILE` |
            | `KAFKA_*` (any other) | | librdkafka property |
            | `KAFKA_MESSAGE_MAX_BYTES` | | `message.max.bytes` |
            | `PUSH_GONE` | | no longer read |

            `PUSH_IN_PROSE` is not a row.
            """
        let sources = [
            #"let topics = try topicList("PUSH_TOPICS"); let url = url("APNS_URL"), sandbox = url("APNS_SANDBOX_URL")"#,
            #"let limit = kafka["message.max.bytes"]; let batch = integer("PUSH_BATCH_SIZE")"#,
        ]
        let documented = Self.documentedVariables(markdown)
        #expect(documented == ["PUSH_TOPICS", "APNS_URL", "APNS_SANDBOX_URL", "KAFKA_MESSAGE_MAX_BYTES", "PUSH_GONE"])
        let differences = Self.differences(documented: documented, sources: sources)
        #expect(differences.undocumented == ["PUSH_BATCH_SIZE"])
        #expect(differences.unread == ["PUSH_GONE"])
    }

    @Test func theConfigurationReferenceNamesEveryVariableTheCodeReadsAndNoOther() throws {
        let folder = Repository.path("Sources/Configuration")
        let sources = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOf: folder.appending(path: $0), encoding: .utf8) }
        let markdown = try String(contentsOf: Repository.path("docs/configuration.md"), encoding: .utf8)
        let documented = Self.documentedVariables(markdown)
        #expect(documented.count > 40, "documented: \(documented.sorted())")
        let differences = Self.differences(documented: documented, sources: sources)
        #expect(
            differences.undocumented.isEmpty,
            "read but not in docs/configuration.md: \(differences.undocumented.sorted())")
        #expect(differences.unread.isEmpty, "in docs/configuration.md but not read: \(differences.unread.sorted())")
    }
}
