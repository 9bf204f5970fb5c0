import PushPipeline
import TestSupport
import Testing

@testable import Configuration

/// A credentials file variable: unset, set to a path that does not exist, or to a file holding a usable or a
/// broken credential.
enum CredentialFile: String, CaseIterable, Sendable {
    case unset, missing, valid, broken
}

/// How many of APNs' token identity variables (`APNS_KEY_ID`, `APNS_TEAM_ID`) are set.
enum APNsIdentity: String, CaseIterable, Sendable {
    case none, keyIDOnly, both
}

/// What a start makes of one provider: not configured, left out, sending, or a start error naming the variable.
enum ProviderStart: Equatable {
    case notSet, absent, active
    case refused(String)
}

/// Each provider is optional for real (`AbsentProviders`): every combination of the base manifests' variables
/// (APNs token auth with `APNS_TOPIC` always set, FCM's service-account file), as the start reads them.
@Suite struct AbsentProvidersTests {
    static let keyPath = "/secrets/apns/AuthKey.p8"
    static let accountPath = "/secrets/fcm/service-account.json"

    static func apnsVariables(_ identity: APNsIdentity, _ file: CredentialFile) -> [String: String] {
        var variables = ["APNS_TOPIC": "com.example.chat", "APNS_URL": "https://api.push.apple.com"]
        if file != .unset { variables["APNS_KEY_FILE"] = keyPath }
        if identity != .none { variables["APNS_KEY_ID"] = "ABC123DEFG" }
        if identity == .both { variables["APNS_TEAM_ID"] = "TEAM123456" }
        return variables
    }

    /// What the start must make of APNs alone.
    static func expected(_ identity: APNsIdentity, _ file: CredentialFile) -> ProviderStart {
        switch (identity, file) {
        case (.none, .unset): .refused("APNS_KEY_FILE")  // APNS_TOPIC without credentials
        case (.none, .missing): .absent
        case (.none, .valid), (.none, .broken): .refused("APNS_KEY_ID")
        case (.keyIDOnly, .unset), (.both, .unset): .refused("APNS_KEY_FILE")
        case (.keyIDOnly, _): .refused("APNS_TEAM_ID")
        case (.both, .missing), (.both, .broken): .refused("APNS_KEY_FILE")
        case (.both, .valid): .active
        }
    }

    static func expected(_ file: CredentialFile) -> ProviderStart {
        switch file {
        case .unset: .notSet
        case .missing: .absent
        case .valid: .active
        case .broken: .refused("FCM_SERVICE_ACCOUNT_FILE")
        }
    }

    static func files(apns: CredentialFile, fcm: CredentialFile) throws -> MountedFiles {
        var files: [String: [UInt8]] = [:]
        if apns == .valid { files[keyPath] = Array(try TestKeys.p256.get().utf8) }
        if apns == .broken { files[keyPath] = Array("not a key".utf8) }
        if fcm == .valid { files[accountPath] = try TestKeys.serviceAccountJSON(tokenURI: "https://o.example/token") }
        if fcm == .broken { files[accountPath] = Array("{}".utf8) }
        return MountedFiles(files: files)
    }

    @Test(arguments: APNsIdentity.allCases, CredentialFile.allCases)
    func everyCombinationStartsWithThePresentProvidersOrRefusesNamingTheVariable(
        identity: APNsIdentity, apnsFile: CredentialFile
    ) throws {
        for fcmFile in CredentialFile.allCases {
            var environment = Self.apnsVariables(identity, apnsFile)
            if fcmFile != .unset { environment["FCM_SERVICE_ACCOUNT_FILE"] = Self.accountPath }
            let apns = Self.expected(identity, apnsFile)
            let fcm = Self.expected(fcmFile)
            let files = try Self.files(apns: apnsFile, fcm: fcmFile)
            let label = Comment(rawValue: "APNs \(identity) \(apnsFile), FCM \(fcmFile)")
            let result = Result { () throws(InvalidSetting) in
                try RunConfiguration.load(environment: environment, configFile: nil, files: files)
            }
            switch (apns, fcm) {
            case (.refused(let variable), _), (_, .refused(let variable)):
                #expect(result.error?.variable == variable, label)
            case (.notSet, .notSet), (.absent, .notSet), (.notSet, .absent), (.absent, .absent):
                #expect(result.error?.reason.hasPrefix("no provider configured") == true, label)
            default:
                let configuration = try result.get()
                #expect((configuration.credentials.apnsSigningKey != nil) == (apns == .active), label)
                #expect((configuration.credentials.googleServiceAccount != nil) == (fcm == .active), label)
                let absent = [(PushProvider.apns, apns), (.fcm, fcm)].filter { $0.1 == .absent }.map(\.0)
                #expect(configuration.absentProviders.map(\.provider) == absent, label)
            }
        }
    }

    @Test func anAbsentProviderIsNamedWithItsMissingFileAndUnsetIdentity() throws {
        let files = try Self.files(apns: .missing, fcm: .valid)
        let environment = Self.apnsVariables(.none, .missing).merging(
            ["FCM_SERVICE_ACCOUNT_FILE": Self.accountPath]) { $1 }
        let configuration = try RunConfiguration.load(environment: environment, configFile: nil, files: files)
        #expect(configuration.worker.apns == nil)
        #expect(
            configuration.absentProviders == [
                AbsentProvider(
                    provider: .apns, variable: "APNS_KEY_FILE",
                    reason: "APNS_KEY_FILE \(Self.keyPath) does not exist, APNS_KEY_ID, APNS_TEAM_ID, "
                        + "APNS_CERT_KEY_PASSWORD unset")
            ])
    }

    @Test func noProviderAtAllNamesWhyEachIsLeftOut() {
        let environment = Self.apnsVariables(.none, .missing).merging(
            ["FCM_SERVICE_ACCOUNT_FILE": Self.accountPath]) { $1 }
        #expect {
            try RunConfiguration.load(environment: environment, configFile: nil, files: MountedFiles(files: [:]))
        } throws: { error in
            (error as? InvalidSetting)?.description
                == "invalid APNS_KEY_FILE: no provider configured: apns: APNS_KEY_FILE \(Self.keyPath) does not "
                + "exist, APNS_KEY_ID, APNS_TEAM_ID, APNS_CERT_KEY_PASSWORD unset; fcm: FCM_SERVICE_ACCOUNT_FILE "
                + "\(Self.accountPath) does not exist"
        }
    }

    @Test func aBadSettingIsStillNamedBeforeTheMissingProviders() {
        let environment = ["FCM_SERVICE_ACCOUNT_FILE": Self.accountPath, "PUSH_BATCH_SIZE": "-1"]
        #expect {
            try RunConfiguration.load(environment: environment, configFile: nil, files: MountedFiles(files: [:]))
        } throws: { error in
            (error as? InvalidSetting)?.variable == "PUSH_BATCH_SIZE"
        }
    }

    @Test(arguments: [
        // Both certificate files missing and no password: the Secret is absent.
        (["APNS_CERT_FILE": "/c.pem", "APNS_CERT_KEY_FILE": "/k.pem"], [String](), nil as String?),
        // One of the two present: the Secret is there and the other file is missing.
        (["APNS_CERT_FILE": "/c.pem", "APNS_CERT_KEY_FILE": "/k.pem"], ["/k.pem"], "APNS_CERT_FILE"),
        // A password without its files.
        (
            ["APNS_CERT_FILE": "/c.pem", "APNS_CERT_KEY_FILE": "/k.pem", "APNS_CERT_KEY_PASSWORD": "p"], [],
            "APNS_CERT_FILE"
        ),
    ])
    func certificateAuthIsLeftOutOnlyWhenNoneOfItsFilesExistsAndNoPasswordIsSet(
        variables: [String: String], present: [String], refused: String?
    ) throws {
        var files = try Self.files(apns: .unset, fcm: .valid)
        for path in present { files.files[path] = Array(ProviderCredentialsTests.keyPEM.utf8) }
        let environment = variables.merging(
            ["APNS_TOPIC": "com.example.chat", "FCM_SERVICE_ACCOUNT_FILE": Self.accountPath]) { $1 }
        let result = Result { () throws(InvalidSetting) in
            try RunConfiguration.load(environment: environment, configFile: nil, files: files)
        }
        #expect(result.error?.variable == refused)
        #expect((try? result.get())?.absentProviders.map(\.provider) == (refused == nil ? [.apns] : nil))
    }
}

extension Result {
    /// The error, or `nil` on success.
    fileprivate var error: Failure? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
