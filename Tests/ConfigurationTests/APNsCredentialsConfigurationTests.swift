import Observability
import Testing

@testable import Configuration

private let tokenVariables = [
    "APNS_KEY_FILE": "/secrets/key.p8", "APNS_KEY_ID": "ABC123DEFG", "APNS_TEAM_ID": "TEAM123456",
]
private let certificateVariables = [
    "APNS_CERT_FILE": "/secrets/apns.pem", "APNS_CERT_KEY_FILE": "/secrets/apns-key.pem",
]
private let topicVariable = ["APNS_TOPIC": "com.example.chat"]

/// `APNS_KEY_*` (token auth) and `APNS_CERT_*` (certificate auth) are alternatives: exactly one set, complete.
@Suite struct APNsCredentialsConfigurationTests {
    static func load(_ variables: [String: String]...) throws(InvalidSetting) -> WorkerConfiguration {
        try WorkerConfiguration.load(environment: variables.reduce(into: [:]) { $0.merge($1) { $1 } })
    }

    @Test func tokenVariablesSelectTokenAuth() throws {
        let apns = try Self.load(tokenVariables, topicVariable).apns
        #expect(apns?.credentials == .token(keyFile: "/secrets/key.p8", keyID: "ABC123DEFG", teamID: "TEAM123456"))
        #expect(apns?.topic == "com.example.chat")
    }

    @Test func certificateVariablesSelectCertificateAuthWithAnOptionalPassword() throws {
        let plain = try Self.load(certificateVariables, topicVariable).apns
        #expect(
            plain?.credentials
                == .certificate(file: "/secrets/apns.pem", keyFile: "/secrets/apns-key.pem", keyPassword: nil))
        let protected = try Self.load(
            certificateVariables, topicVariable, ["APNS_CERT_KEY_PASSWORD": "pass with spaces"])
        #expect(
            protected.apns?.credentials
                == .certificate(
                    file: "/secrets/apns.pem", keyFile: "/secrets/apns-key.pem",
                    keyPassword: Secret("pass with spaces")))
    }

    @Test func theStartupDescriptionNamesTheFilesButNotThePassword() throws {
        let configuration = try Self.load(
            certificateVariables, topicVariable, ["APNS_CERT_KEY_PASSWORD": "hunter2"],
            ["FCM_SERVICE_ACCOUNT_FILE": "/sa.json"])
        #expect(configuration.description.contains("cert=/secrets/apns.pem certKey=/secrets/apns-key.pem"))
        #expect(!configuration.description.contains("hunter2"))
    }

    @Test(arguments: [
        ([tokenVariables, certificateVariables, topicVariable], "APNS_CERT_FILE", "not both"),
        ([tokenVariables, ["APNS_CERT_KEY_PASSWORD": "x"], topicVariable], "APNS_CERT_FILE", "not both"),
        ([topicVariable], "APNS_KEY_FILE", "no APNs credentials"),
        ([["APNS_CERT_FILE": "/c.pem"], topicVariable], "APNS_CERT_KEY_FILE", "required with APNS_CERT_FILE"),
        ([["APNS_CERT_KEY_FILE": "/k.pem"], topicVariable], "APNS_CERT_FILE", "required with APNS_CERT_KEY_FILE"),
        ([["APNS_CERT_KEY_PASSWORD": "x"], topicVariable], "APNS_CERT_FILE", "required"),
        ([certificateVariables], "APNS_TOPIC", "bundle id"),
        ([["APNS_KEY_FILE": "/k.p8", "APNS_KEY_ID": "ID"], topicVariable], "APNS_TEAM_ID", "required"),
    ])
    func anAmbiguousOrIncompleteSetIsRefusedInOneLineNamingTheVariable(
        sets: [[String: String]], variable: String, reason: String
    ) {
        let variables = sets.reduce(into: ["FCM_SERVICE_ACCOUNT_FILE": "/sa.json"]) { $0.merge($1) { $1 } }
        #expect {
            try WorkerConfiguration.load(environment: variables)
        } throws: { error in
            guard let setting = error as? InvalidSetting else { return false }
            return setting.variable == variable && setting.reason.contains(reason)
                && !setting.description.contains("\n")
        }
    }

    @Test func withoutAnyApnsVariableApnsIsOff() throws {
        #expect(try Self.load(["FCM_SERVICE_ACCOUNT_FILE": "/sa.json"]).apns == nil)
    }
}
