public import Observability
import PushPipeline
public import StatusServer

/// Everything `push-worker run` is configured with, read from the environment and the `--config` file and
/// validated in one place before anything starts.
public struct RunConfiguration: Sendable {
    /// `LOG_LEVEL` (default `info`).
    public var logLevel: LogLevel
    public var worker: WorkerConfiguration
    /// `PUSH_HTTP_PORT`, `PUSH_HTTP_HOST`.
    public var status: HTTPServerConfiguration
    /// The rules table of `PUSH_RULES_FILE`, or the built-in one.
    public var rules: StartingRules
    public var credentials: ProviderCredentials
    /// The providers left out because their credentials are not mounted (`AbsentProviders`).
    public var absentProviders: [AbsentProvider]

    /// Reads and checks every setting; the error names the first bad variable (or `--config`).
    public static func load(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> RunConfiguration {
        let merged = try SettingReader(environment: environment, configFile: configFile, files: files)
        let (variables, absentProviders) = AbsentProviders.leaveOut(from: merged.variables, files: files)
        var reader = SettingReader(variables: variables)
        reader.absentProviders = absentProviders
        let logLevel = try reader.logLevel()
        let worker = try reader.workerConfiguration()
        let status = try reader.statusServer()
        return RunConfiguration(
            logLevel: logLevel, worker: worker, status: status,
            rules: try StartingRules.load(path: worker.rulesFile, files: files),
            credentials: try ProviderCredentials.load(for: worker, files: files), absentProviders: absentProviders)
    }
}
