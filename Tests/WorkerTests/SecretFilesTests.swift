import Foundation
import Kafka
import TestSupport
import Testing

@testable import Configuration

/// Every secret-bearing variable also comes as `NAME_FILE`, a file mounted from a Secret.
@Suite struct SecretFilesTests {
    static func reader(_ environment: [String: String]) throws -> SettingReader {
        try SettingReader(environment: environment, configFile: nil, files: SystemFileReading())
    }

    @Test func theKafkaPasswordAndTheAPNsKeyPasswordAreReadFromTheirFiles() throws {
        let password = try Repository.temporaryFile(Array("s3cret\r\n".utf8), suffix: ".txt")
        let keyPassword = try Repository.temporaryFile(Array("key-pass\n".utf8), suffix: ".txt")
        defer {
            try? FileManager.default.removeItem(at: password)
            try? FileManager.default.removeItem(at: keyPassword)
        }
        let reader = try Self.reader([
            "KAFKA_SASL_PASSWORD_FILE": password.path, "APNS_CERT_KEY_PASSWORD_FILE": keyPassword.path,
        ])
        #expect(reader.variables["KAFKA_SASL_PASSWORD"] == "s3cret")
        #expect(reader.variables["APNS_CERT_KEY_PASSWORD"] == "key-pass")
        #expect(reader.variables["KAFKA_SASL_PASSWORD_FILE"] == nil)
        #expect(try reader.kafkaProperties().configuration["sasl.password"] == "s3cret")
        #expect(try reader.kafkaProperties().ignored.isEmpty)
    }

    @Test func bothFormsOfASecretAreRefused() throws {
        let password = try Repository.temporaryFile(Array("a".utf8), suffix: ".txt")
        defer { try? FileManager.default.removeItem(at: password) }
        #expect {
            try Self.reader(["KAFKA_SASL_PASSWORD": "b", "KAFKA_SASL_PASSWORD_FILE": password.path])
        } throws: { error in
            (error as? InvalidSetting)?.variable == "KAFKA_SASL_PASSWORD_FILE"
        }
    }

    @Test func anUnreadableSecretFileIsRefusedNamingItsVariableAndFile() {
        #expect {
            try Self.reader(["KAFKA_SSL_KEY_PASSWORD_FILE": "/dev/zero"])
        } throws: { error in
            (error as? InvalidSetting)?.description
                == "invalid KAFKA_SSL_KEY_PASSWORD_FILE: cannot read /dev/zero: is not a regular file (a directory, "
                + "FIFO, socket or device)"
        }
    }

    /// Paths that end in `_FILE` already (`APNS_KEY_FILE`, `PUSH_RULES_FILE`) are not secrets' file forms.
    @Test func variablesThatAreNotSecretsKeepTheirFileSuffix() throws {
        #expect(SecretFiles.isSecretVariable("KAFKA_SASL_PASSWORD"))
        #expect(SecretFiles.isSecretVariable("KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET"))
        #expect(!SecretFiles.isSecretVariable("APNS_KEY"))
        #expect(!SecretFiles.isSecretVariable("PUSH_RULES"))
        let reader = try Self.reader(["PUSH_RULES_FILE": "/rules.json", "APNS_KEY_FILE": "/k.p8"])
        #expect(reader.variables["PUSH_RULES_FILE"] == "/rules.json")
        #expect(reader.variables["APNS_KEY_FILE"] == "/k.p8")
    }
}
