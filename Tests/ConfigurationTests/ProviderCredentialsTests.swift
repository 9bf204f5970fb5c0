import Foundation
import HTTP2
import Observability
import TestSupport
import Testing

@testable import Configuration

/// The credentials are read and checked with the configuration: each error names the variable whose file is wrong,
/// known from which file was being read, never from the text of an error.
@Suite struct ProviderCredentialsTests {
    static let certificatePEM = "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"
    static let keyPEM = "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n"

    /// A file holding `text`, removed at the end of `body`.
    static func withFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("credential-\(UUID().uuidString).pem")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url.path)
    }

    static func certificateAuth(file: String, keyFile: String) throws -> WorkerConfiguration {
        var configuration = try WorkerConfiguration.load(environment: ConfigurationTests.apnsOnly)
        configuration.apns?.credentials = .certificate(file: file, keyFile: keyFile, keyPassword: nil)
        return configuration
    }

    static func error(_ configuration: WorkerConfiguration) -> InvalidSetting? {
        #expect(throws: InvalidSetting.self) {
            try ProviderCredentials.load(for: configuration, files: SystemFileReading())
        }
    }

    @Test func aCertificateFileWithoutACertificateNamesAPNS_CERT_FILE() throws {
        try Self.withFile(Self.keyPEM) { key in
            let error = Self.error(try Self.certificateAuth(file: key, keyFile: key))
            #expect(error?.variable == "APNS_CERT_FILE")
            #expect(error?.reason == "the client certificate file \(key) holds no PEM certificate")
        }
    }

    @Test func oneFileWithACertificateAndNoKeyNamesAPNS_CERT_KEY_FILE() throws {
        // The same path in both variables: the key variable is wrong, not the certificate one.
        try Self.withFile(Self.certificatePEM) { certificate in
            let error = Self.error(try Self.certificateAuth(file: certificate, keyFile: certificate))
            #expect(error?.variable == "APNS_CERT_KEY_FILE")
        }
    }

    @Test func aCertificateAndAKeyAreKeptRedacted() throws {
        try Self.withFile(Self.certificatePEM) { certificate in
            try Self.withFile(Self.keyPEM) { key in
                let credentials = try ProviderCredentials.load(
                    for: try Self.certificateAuth(file: certificate, keyFile: key), files: SystemFileReading())
                #expect(credentials.apnsClientCertificate?.revealed.keyFile == key)
                #expect("\(credentials.apnsClientCertificate as Any)".contains("redacted"))
                #expect(credentials.apnsSigningKey == nil)
            }
        }
    }

    @Test func anUnreadableKeyOrServiceAccountNamesItsVariable() throws {
        let apns = try WorkerConfiguration.load(environment: ConfigurationTests.apnsOnly)
        #expect(
            Self.error(apns)?.description
                == "invalid APNS_KEY_FILE: cannot read /secrets/key.p8: No such file or directory")
        let fcm = try WorkerConfiguration.load(environment: ConfigurationTests.fcmOnly)
        #expect(
            Self.error(fcm)?.description
                == "invalid FCM_SERVICE_ACCOUNT_FILE: cannot read /secrets/sa.json: No such file or directory")
    }

    @Test func aKeyOrServiceAccountFileThatIsADeviceIsRefusedNamingIt() throws {
        let fcm = try WorkerConfiguration.load(environment: ["FCM_SERVICE_ACCOUNT_FILE": "/dev/zero"])
        #expect(
            Self.error(fcm)?.description
                == "invalid FCM_SERVICE_ACCOUNT_FILE: cannot read /dev/zero: is not a regular file (a directory, FIFO, "
                + "socket or device)")
    }

    @Test func anAppsFolderThatCannotBeListedStopsTheStartNamingIt() throws {
        let configuration = try WorkerConfiguration.load(environment: ["PUSH_APPS_DIR": "/apps"])
        #expect {
            try ProviderCredentials.load(for: configuration, files: MountedFiles(files: [:]))
        } throws: { error in
            (error as? InvalidSetting)?.variable == "PUSH_APPS_DIR"
        }
        let mounted = MountedFiles(files: ["/apps/alpha/app.json": Array("{".utf8)])
        #expect(try ProviderCredentials.load(for: configuration, files: mounted).apnsSigningKey == nil)
    }
}
