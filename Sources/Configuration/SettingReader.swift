import Kafka
import Observability
import PushCore
import PushPipeline
import StatusServer

/// Reads typed settings out of the merged variables (the environment over the `--config` file), each error naming
/// its variable by construction: every reader is given the variable it reads.
struct SettingReader {
    let variables: [String: String]
    /// The providers `AbsentProviders` left out of `variables`, named when no provider remains.
    var absentProviders: [AbsentProvider] = []

    init(variables: [String: String]) {
        self.variables = variables
    }

    /// The environment with the `--config` file's `NAME=value` lines under it (the environment wins), and every
    /// secret's `_FILE` form read (`SecretFiles`); the error names `--config` and what is wrong with the file, or
    /// the `_FILE` variable.
    init(environment: [String: String], configFile: String?, files: some FileReading) throws(InvalidSetting) {
        var variables: [String: String] = [:]
        if let path = configFile {
            let bytes: [UInt8]
            do {
                bytes = try files.contents(of: path, kind: .configuration)
            } catch {
                throw InvalidSetting(variable: "--config", reason: "cannot read \(error)")
            }
            variables = try EnvironmentFile.parse(String(decoding: bytes, as: UTF8.self), path: path)
        }
        self.variables = try SecretFiles.resolve(
            variables.merging(environment) { _, fromEnvironment in fromEnvironment }, files: files)
    }

    /// `LOG_LEVEL`: a level name, case-insensitive, `warn` meaning `warning`; `defaultLevel` when unset or empty.
    func logLevel(default defaultLevel: LogLevel = .info) throws(InvalidSetting) -> LogLevel {
        guard let text = optional("LOG_LEVEL") else { return defaultLevel }
        guard let level = LogLevel(parsing: text) else {
            let names = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
            throw InvalidSetting(variable: "LOG_LEVEL", reason: "'\(text)' is not one of \(names)")
        }
        return level
    }

    /// The status endpoints: the port from `PUSH_HTTP_PORT` (default 9464) and the address from `PUSH_HTTP_HOST`
    /// (default `0.0.0.0`).
    func statusServer() throws(InvalidSetting) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        if let text = optional("PUSH_HTTP_PORT") {
            guard let port = Int(text), (0...65_535).contains(port) else {
                throw InvalidSetting(variable: "PUSH_HTTP_PORT", reason: "'\(text)' is not a port number (0-65535)")
            }
            configuration.port = port
        }
        if let host = optional("PUSH_HTTP_HOST") {
            guard HTTPServerConfiguration.isBindable(host: host) else {
                throw InvalidSetting(
                    variable: "PUSH_HTTP_HOST", reason: "'\(host)' is not a numeric IPv4 or IPv6 address")
            }
            configuration.host = host
        }
        return configuration
    }

    /// The librdkafka properties of the `KAFKA_*` variables (`KafkaEnvironment`), with the variables that name no
    /// property; the first variable whose value librdkafka refuses is the error.
    func kafkaProperties() throws(InvalidSetting) -> (configuration: KafkaConfiguration, ignored: [String]) {
        let read = KafkaEnvironment.read(variables)
        if let invalid = read.invalid.first { throw InvalidSetting(variable: invalid.variable, reason: invalid.reason) }
        return (read.configuration, read.ignored)
    }

    /// The value, or `nil` when unset or empty.
    func optional(_ name: String) -> String? {
        guard let value = variables[name], !value.isEmpty else { return nil }
        return value
    }

    /// One of `Choice`'s raw values, or `defaultValue` when unset; the error lists the values allowed.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: Choice)
        throws(InvalidSetting) -> Choice where Choice.RawValue == String
    {
        guard let text = optional(name) else { return defaultValue }
        guard let value = Choice(rawValue: text) else {
            throw InvalidSetting(
                variable: name,
                reason: "'\(text)' is not one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    func text(_ name: String, default defaultValue: String) throws(InvalidSetting) -> String {
        guard let value = optional(name) else { return defaultValue }
        guard !value.contains(where: \.isWhitespace) else {
            throw InvalidSetting(variable: name, reason: "'\(value)' must not contain spaces")
        }
        return value
    }

    func languageTag(_ name: String) throws(InvalidSetting) -> LanguageTag? {
        guard let text = optional(name) else { return nil }
        guard let tag = LanguageTag(text) else {
            throw InvalidSetting(variable: name, reason: LanguageTag.malformed(text))
        }
        return tag
    }

    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(InvalidSetting) -> Int {
        guard let text = optional(name) else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw InvalidSetting(
                variable: name,
                reason: "'\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A decimal fraction above 0, at most 1.
    func ratio(_ name: String, default defaultValue: Double) throws(InvalidSetting) -> Double {
        guard let text = optional(name) else { return defaultValue }
        guard let number = Double(text), number.isFinite, number > 0, number <= 1 else {
            throw InvalidSetting(variable: name, reason: "'\(text)' is not a fraction above 0 and at most 1")
        }
        return number
    }

    func milliseconds(_ name: String, default defaultValue: Duration, in range: ClosedRange<Int>) throws(InvalidSetting)
        -> Duration
    {
        guard optional(name) != nil else { return defaultValue }
        return .milliseconds(try integer(name, default: 0, in: range))
    }

    /// `true` or `false`.
    func flag(_ name: String, default defaultValue: Bool) throws(InvalidSetting) -> Bool {
        guard let text = optional(name) else { return defaultValue }
        switch text {
        case "true": return true
        case "false": return false
        default: throw InvalidSetting(variable: name, reason: "'\(text)' is neither true nor false")
        }
    }

    /// An `https://` URL (or `http://` when `allowsHTTP`) as `BaseURL` checks it, without trailing slashes.
    func url(_ name: String, default defaultValue: String, allowsHTTP: Bool) throws(InvalidSetting) -> String {
        guard var value = optional(name) else { return defaultValue }
        if let problem = BaseURL.problem(with: value) {
            throw InvalidSetting(variable: name, reason: "'\(value)' \(problem)")
        }
        try WorkerConfiguration.checkTransport(of: value, variable: name, allowsHTTP: allowsHTTP)
        while value.hasSuffix("/") { value.removeLast() }
        return value
    }

    func topic(_ name: String, default defaultValue: String) throws(InvalidSetting) -> String {
        guard let value = optional(name) else { return defaultValue }
        try checkTopicName(value, variable: name)
        return value
    }

    func topicList(_ name: String, default defaultValue: [String]) throws(InvalidSetting) -> [String] {
        guard let value = optional(name) else { return defaultValue }
        let topics = value.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
        guard !topics.isEmpty else { throw InvalidSetting(variable: name, reason: "names no topic") }
        for topic in topics { try checkTopicName(topic, variable: name) }
        return topics
    }

    /// Kafka topic names: 1 to 249 of `a-z A-Z 0-9 . _ -`, not `.` or `..`.
    func checkTopicName(_ topic: String, variable: String) throws(InvalidSetting) {
        let allowed = topic.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, (1...249).contains(topic.utf8.count), topic != ".", topic != ".." else {
            throw InvalidSetting(variable: variable, reason: "'\(topic)' is not a valid Kafka topic name")
        }
    }
}
