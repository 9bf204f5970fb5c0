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
