import Kafka

/// The `*_FILE` form of every secret-bearing variable, as container images commonly take secrets mounted as files
/// (`KAFKA_SASL_PASSWORD_FILE=/run/secrets/kafka-password` instead of the password in the environment).
///
/// A secret-bearing variable is `APNS_CERT_KEY_PASSWORD` or a `KAFKA_*` variable whose librdkafka property holds a
/// secret (`KafkaConfiguration.isSecret`: `sasl.password`, `ssl.key.password`, `sasl.oauthbearer.client.secret`,
/// …). Its `_FILE` variable names a regular file of at most 64 KiB (`InputFileKind.secret`); the value is the
/// file's text with one final line break (`\n` or `\r\n`) dropped. Setting both forms is refused.
enum SecretFiles {
    static let suffix = "_FILE"

    /// Whether `name` is a secret-bearing variable.
    static func isSecretVariable(_ name: String) -> Bool {
        if name == "APNS_CERT_KEY_PASSWORD" { return true }
        guard let property = KafkaEnvironment.propertyName(forVariable: name) else { return false }
        return KafkaConfiguration.isSecret(property)
    }

    /// `variables` with every `NAME_FILE` of a secret-bearing `NAME` replaced by `NAME` holding the file's text;
    /// the error names the `_FILE` variable and the file, never the secret.
    static func resolve(_ variables: [String: String], files: some FileReading) throws(InvalidSetting)
        -> [String: String]
    {
        var resolved = variables
        for (fileVariable, path) in variables.sorted(by: { $0.key < $1.key }) where fileVariable.hasSuffix(suffix) {
            let name = String(fileVariable.dropLast(suffix.count))
            guard isSecretVariable(name) else { continue }
            resolved[fileVariable] = nil
            guard !path.isEmpty else { continue }
            if let direct = variables[name], !direct.isEmpty {
                throw InvalidSetting(variable: fileVariable, reason: "set either \(name) or \(fileVariable), not both")
            }
            let bytes: [UInt8]
            do {
                bytes = try files.contents(of: path, kind: .secret)
            } catch {
                throw InvalidSetting(variable: fileVariable, reason: "cannot read \(error)")
            }
            var value = bytes[...]
            if value.last == UInt8(ascii: "\n") { value = value.dropLast() }
            if value.last == UInt8(ascii: "\r") { value = value.dropLast() }
            resolved[name] = String(decoding: value, as: UTF8.self)
        }
        return resolved
    }
}
