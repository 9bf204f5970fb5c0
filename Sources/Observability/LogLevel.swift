/// How severe a log event is, from the most verbose to the most severe (the levels of swift-log).
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case trace
    case debug
    case info
    case notice
    case warning
    case error
    case critical

    /// Parses a level name as operators write it in `LOG_LEVEL`: case-insensitive, `warn` meaning `warning`.
    public init?(parsing text: String) {
        let name = text.lowercased()
        guard let level = LogLevel(rawValue: name == "warn" ? "warning" : name) else { return nil }
        self = level
    }

    /// The level named by `LOG_LEVEL` in `environment`, `info` when it is unset or empty.
    public static func fromEnvironment(_ environment: [String: String]) throws(InvalidSetting) -> LogLevel {
        guard let text = environment["LOG_LEVEL"], !text.isEmpty else { return .info }
        guard let level = LogLevel(parsing: text) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidSetting(variable: "LOG_LEVEL", reason: "'\(text)' is not one of \(names)")
        }
        return level
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    private var severity: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }
}
