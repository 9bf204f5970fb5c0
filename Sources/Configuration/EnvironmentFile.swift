import Observability
import PushPipeline

/// The `--config FILE` format: `NAME=value` lines like a Kubernetes env file or a `.env` file.
/// Blank lines and `#` comments are ignored, `export ` before a name is allowed, and a value may be
/// wrapped in single or double quotes. Pure.
public enum EnvironmentFile {
    /// The variables of `text`; the error names the line and what is wrong with it.
    public static func parse(_ text: String, path: String) throws(InvalidSetting) -> [String: String] {
        var variables: [String: String] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst("export ".count).trimmingSpaces() }
            guard let equals = line.firstIndex(of: "=") else {
                throw InvalidSetting(variable: "--config", reason: "\(path) line \(number + 1): expected NAME=value")
            }
            let name = line[..<equals].trimmingSpaces()
            guard isVariableName(name) else {
                throw InvalidSetting(
                    variable: "--config", reason: "\(path) line \(number + 1): '\(name)' is not a variable name")
            }
            var value = line[line.index(after: equals)...].trimmingSpaces()
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
            }
            variables[String(name)] = String(value)
        }
        return variables
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.first, first == "_" || first.isLetter else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
