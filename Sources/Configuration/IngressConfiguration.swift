public import Ingress
public import Kafka
public import Observability
import PushCore
public import StatusServer

/// Everything `push-worker ingress` is configured with, read from the environment and the `--config` file and
/// validated in one place before anything starts. Keys are never part of `description`.
public struct IngressConfiguration: Sendable, CustomStringConvertible {
    /// `LOG_LEVEL` (default `info`).
    public var logLevel: LogLevel
    /// `PUSH_INGRESS_PORT` (default 8080), `PUSH_INGRESS_HOST`, `PUSH_INGRESS_MAX_CONNECTIONS`,
    /// `PUSH_INGRESS_IDLE_SECONDS`, `PUSH_INGRESS_REQUEST_SECONDS`, `PUSH_INGRESS_MAX_CONNECTIONS_PER_ADDRESS`,
    /// `PUSH_INGRESS_THREADS`, `PUSH_INGRESS_TLS_CERT_FILE` with `PUSH_INGRESS_TLS_KEY_FILE`.
    public var server: HTTPServerConfiguration
    /// `PUSH_HTTP_PORT`, `PUSH_HTTP_HOST`: `/metrics`, `/healthz`, `/readyz`, as for the worker.
    public var status: HTTPServerConfiguration
    /// `PUSH_INGRESS_KEYS` or `PUSH_INGRESS_KEYS_FILE`, `PUSH_INGRESS_ALLOW`, `PUSH_INGRESS_MAX_BODY_BYTES`.
    public var admission: IngressAdmission
    /// `PUSH_INGRESS_KEYS_FILE`, when the keys come from a file: checked every `PUSH_INGRESS_KEYS_CHECK_MS` (default
    /// 5000) and its new keys put in force, so a Secret update rotates them without a restart.
    public var keysFile: KeysFile?
    /// `PUSH_INGRESS_TOPIC` (default: the first of `PUSH_TOPICS`, else `chat.messages`).
    public var topic: String
    /// `PUSH_INGRESS_KAFKA_TIMEOUT_MS` (default 5000): how long Kafka may take to acknowledge a record before the
    /// request is answered 503 or 504 (librdkafka's `message.timeout.ms`).
    public var kafkaTimeout: Duration
    /// The producer's properties: the `KAFKA_*` variables over `acks=all`, idempotence, `linger.ms=5` and the
    /// timeout above.
    public var kafka: KafkaConfiguration

    /// The keys file and the version of it the keys in force came from.
    public struct KeysFile: Sendable {
        public var path: String
        /// The file's stamp before it was read at start.
        public var stamp: FileStamp?
        public var checkInterval: Duration
    }

    /// The largest body that may be configured: the largest record the input topic takes.
    public static let bodyLimitRange = 1_024...EventLimits().maximumRecordBytes

    /// Reads and checks every setting; the error names the first bad variable (or `--config`).
    public static func load(
        environment: [String: String], configFile: String?, files: some FileReading = SystemFileReading()
    ) throws(InvalidSetting) -> IngressConfiguration {
        let reader = try SettingReader(environment: environment, configFile: configFile, files: files)
        var server = HTTPServerConfiguration(
            port: 8080, connectionTimeout: .seconds(10), connectionLimit: 1_024, threadPoolSize: 2, backlog: 1_024)
        server.port = try reader.integer("PUSH_INGRESS_PORT", default: 8080, in: 0...65_535)
        if let host = reader.optional("PUSH_INGRESS_HOST") {
            guard HTTPServerConfiguration.isBindable(host: host) else {
                throw InvalidSetting(
                    variable: "PUSH_INGRESS_HOST", reason: "'\(host)' is not a numeric IPv4 or IPv6 address")
            }
            server.host = host
        }
        server.connectionLimit = try reader.integer("PUSH_INGRESS_MAX_CONNECTIONS", default: 1_024, in: 1...65_536)
        server.connectionTimeout = .seconds(try reader.integer("PUSH_INGRESS_IDLE_SECONDS", default: 10, in: 1...600))
        server.requestDeadline = .seconds(try reader.integer("PUSH_INGRESS_REQUEST_SECONDS", default: 10, in: 1...600))
        server.connectionsPerAddress = try reader.integer(
            "PUSH_INGRESS_MAX_CONNECTIONS_PER_ADDRESS", default: 256, in: 1...65_536)
        server.threadPoolSize = try reader.integer("PUSH_INGRESS_THREADS", default: 2, in: 1...64)
        server.tls = try Self.tls(reader, files: files)

        let maximumBody = try reader.integer("PUSH_INGRESS_MAX_BODY_BYTES", default: 262_144, in: bodyLimitRange)
        let allowlist: ClientAllowlist?
        if let text = reader.optional("PUSH_INGRESS_ALLOW") {
            do throws(ClientAllowlist.InvalidBlock) {
                allowlist = try ClientAllowlist(parsing: text)
            } catch {
                throw InvalidSetting(variable: "PUSH_INGRESS_ALLOW", reason: error.description)
            }
        } else {
            allowlist = nil
        }
        let (keys, keysPath, keysStamp) = try Self.keys(reader, files: files)
        let keysCheck = try reader.integer("PUSH_INGRESS_KEYS_CHECK_MS", default: 5_000, in: 100...3_600_000)
        let topics = try reader.topicList("PUSH_TOPICS", default: ["chat.messages"])
        let topic = try reader.topic("PUSH_INGRESS_TOPIC", default: topics.first ?? "chat.messages")
        let timeout = try reader.integer("PUSH_INGRESS_KAFKA_TIMEOUT_MS", default: 5_000, in: 100...300_000)
        let kafka = KafkaConfiguration(["linger.ms": "5"])
            .merging(try reader.kafkaProperties().configuration)
            .merging(KafkaConfiguration(["message.timeout.ms": String(timeout), "acks": "all"]))
        return IngressConfiguration(
            logLevel: try reader.logLevel(), server: server, status: try reader.statusServer(),
            admission: IngressAdmission(keys: keys, allowlist: allowlist, maximumBodyBytes: maximumBody),
            keysFile: keysPath.map { .init(path: $0, stamp: keysStamp, checkInterval: .milliseconds(keysCheck)) },
            topic: topic, kafkaTimeout: .milliseconds(timeout), kafka: kafka)
    }

    /// `PUSH_INGRESS_KEYS`, or the file `PUSH_INGRESS_KEYS_FILE` names (with its path and its stamp taken before it
    /// was read); exactly one of them.
    private static func keys(_ reader: SettingReader, files: some FileReading) throws(InvalidSetting)
        -> (IngressKeys, path: String?, stamp: FileStamp?)
    {
        let inline = reader.optional("PUSH_INGRESS_KEYS")
        let path = reader.optional("PUSH_INGRESS_KEYS_FILE")
        let variable: String
        let text: String
        var stamp: FileStamp?
        switch (inline, path) {
        case (let inline?, nil):
            (variable, text) = ("PUSH_INGRESS_KEYS", inline)
        case (nil, let path?):
            variable = "PUSH_INGRESS_KEYS_FILE"
            stamp = files.stamp(of: path)
            text = try secretText(path, variable: variable, files: files)
        case (nil, nil):
            throw InvalidSetting(variable: "PUSH_INGRESS_KEYS", reason: "is required (or PUSH_INGRESS_KEYS_FILE)")
        case (.some, .some):
            throw InvalidSetting(variable: "PUSH_INGRESS_KEYS_FILE", reason: "cannot be set with PUSH_INGRESS_KEYS")
        }
        do throws(IngressKeys.InvalidEntry) {
            return (try IngressKeys(parsing: text), path, stamp)
        } catch {
            throw InvalidSetting(variable: variable, reason: error.description)
        }
    }

    /// `PUSH_INGRESS_TLS_CERT_FILE` and `PUSH_INGRESS_TLS_KEY_FILE` (PEM): both, or neither for plain HTTP.
    private static func tls(_ reader: SettingReader, files: some FileReading) throws(InvalidSetting) -> ServerTLS? {
        let certificateVariable = "PUSH_INGRESS_TLS_CERT_FILE"
        let keyVariable = "PUSH_INGRESS_TLS_KEY_FILE"
        switch (reader.optional(certificateVariable), reader.optional(keyVariable)) {
        case (nil, nil):
            return nil
        case (nil, .some):
            throw InvalidSetting(variable: certificateVariable, reason: "is required with \(keyVariable)")
        case (.some, nil):
            throw InvalidSetting(variable: keyVariable, reason: "is required with \(certificateVariable)")
        case (let certificatePath?, let keyPath?):
            let certificate = try secretText(certificatePath, variable: certificateVariable, files: files)
            guard certificate.contains("-----BEGIN CERTIFICATE-----") else {
                throw InvalidSetting(
                    variable: certificateVariable, reason: "\(certificatePath) holds no PEM certificate")
            }
            let key = try secretText(keyPath, variable: keyVariable, files: files)
            guard key.contains("PRIVATE KEY-----") else {
                throw InvalidSetting(variable: keyVariable, reason: "\(keyPath) holds no PEM private key")
            }
            return ServerTLS(certificatePEM: certificate, keyPEM: Secret(key))
        }
    }

    /// The text of the secret file at `path`, which `variable` names.
    private static func secretText(_ path: String, variable: String, files: some FileReading) throws(InvalidSetting)
        -> String
    {
        do {
            return String(decoding: try files.contents(of: path, kind: .secret), as: UTF8.self)
        } catch {
            throw InvalidSetting(variable: variable, reason: "cannot read \(path): \(error)")
        }
    }

    public var description: String {
        "ingress \(server.host):\(server.port)\(server.tls == nil ? "" : " (TLS)"), topic \(topic), apps \(admission.keys.description), "
            + "allowlist \(admission.allowlist == nil ? "off" : "on"), body limit \(admission.maximumBodyBytes) B, "
            + "kafka timeout \(kafkaTimeout), kafka \(kafka.description)"
    }
}
