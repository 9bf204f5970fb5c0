public import Observability
import PushPipeline

/// Everything `push-worker replay` is configured with: the same settings as `run` (brokers, providers,
/// credentials, rules, output topics) without the status endpoints, read and validated in one place.
public struct ReplayConfiguration: Sendable {
    /// `LOG_LEVEL`, `warning` by default: the summary and progress are the interface, logs only say what goes
    /// wrong unless asked.
    public var logLevel: LogLevel
    public var worker: WorkerConfiguration
    /// The rules table of `PUSH_RULES_FILE`, or the built-in one.
    public var rules: StartingRules
    public var credentials: ProviderCredentials
    /// The providers left out because their credentials are not mounted (`AbsentProviders`).
    public var absentProviders: [AbsentProvider]

    /// Reads and checks every setting; the error names the first bad variable (or `--config`).
    public static func load(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> ReplayConfiguration {
        let merged = try SettingReader(environment: environment, configFile: configFile, files: files)
        let (variables, absentProviders) = AbsentProviders.leaveOut(from: merged.variables, files: files)
        var reader = SettingReader(variables: variables)
        reader.absentProviders = absentProviders
        let logLevel = try reader.logLevel(default: .warning)
        let worker = try reader.workerConfiguration()
        return ReplayConfiguration(
            logLevel: logLevel, worker: worker, rules: try StartingRules.load(path: worker.rulesFile, files: files),
            credentials: try ProviderCredentials.load(for: worker, files: files), absentProviders: absentProviders)
    }
}
