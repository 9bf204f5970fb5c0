import Essentials
import Foundation
import Observability
import Providers
import PushCore
import PushPipeline
import Synchronization
import TestSupport
import Testing

@testable import Adapters
@testable import Configuration

/// An in-memory `PUSH_APPS_DIR` that a test changes while the catalog reads it (`MountedFiles` under a lock).
final class MemoryFolders: FileReading {
    let mounted = Mutex(MountedFiles(files: [:]))

    func write(_ path: String, _ bytes: [UInt8]) { mounted.withLock { $0.files[path] = bytes } }
    func write(_ path: String, _ text: String) { write(path, Array(text.utf8)) }
    func remove(_ path: String) { mounted.withLock { $0.files[path] = nil } }
    func removeFolder(_ folder: String) {
        mounted.withLock { $0.files = $0.files.filter { !$0.key.hasPrefix(folder + "/") } }
    }

    func stamp(of path: String) -> FileStamp? { mounted.withLock { $0.stamp(of: path) } }
    func contents(of path: String, kind: InputFileKind) throws -> [UInt8] {
        try mounted.withLock { try $0.contents(of: path, kind: kind) }
    }
    func folders(in directory: String) throws -> [String] { try mounted.withLock { try $0.folders(in: directory) } }
}

/// App folders of `PUSH_APPS_DIR`: what each file must hold, errors naming the file, and the re-reads of a folder
/// that changes.
@Suite struct AppFolderTests {
    static let directory = "/apps"
    static let settings = #"{"apns": {"keyId": "KEY1234567", "teamId": "TEAM123456", "topic": "com.example.alpha"}}"#

    /// A folder of app `app` with an APNs key (`settings`) and, when `project` is given, a service account.
    static func folder(_ app: String, settings: String = settings, project: String? = nil) throws -> MemoryFolders {
        let files = MemoryFolders()
        try add(app, to: files, settings: settings, project: project)
        return files
    }

    static func add(_ app: String, to files: MemoryFolders, settings: String = settings, project: String? = nil) throws
    {
        files.write("\(directory)/\(app)/app.json", settings)
        files.write("\(directory)/\(app)/apns-key.p8", try TestKeys.p256.get())
        if let project {
            files.write(
                "\(directory)/\(app)/fcm-service-account.json",
                try TestKeys.serviceAccountJSON(tokenURI: "https://oauth2.googleapis.com/token", project: project))
        }
    }

    static func parse(_ files: MemoryFolders, app: String) throws(FileReadError) -> AppCredentials {
        try AppCredentials.parse(
            AppFolderContents.read("\(directory)/\(app)", files: files), defaults: AppURLs(), allowsInsecureHTTP: false)
    }

    static func catalog(_ files: any FileReading, registry: MetricsRegistry = MetricsRegistry()) -> AppCatalog {
        AppCatalog(
            configuration: AppsConfiguration(directory: directory, defaultURLs: AppURLs()), allowsInsecureHTTP: false,
            defaultContext: ProviderContext(apnsTopic: "com.example.default", fcmProjectID: "default-project"),
            files: files, metrics: AppMetrics(registry: registry, labelLimit: 2),
            logger: Logger(label: "test", level: .critical), clock: ManualClock())
    }

    @Test func aFolderWithAKeyAndAServiceAccountGivesTheAppsTopicProjectAndURLs() throws {
        let settings = #"""
            {"apns": {"keyId": "KEY1234567", "teamId": "TEAM123456", "topic": "com.example.alpha",
                      "url": "https://apns.example/", "sandboxUrl": "https://sandbox.example"},
             "fcm": {"url": "https://fcm.example"}}
            """#
        let credentials = try Self.parse(
            try Self.folder("alpha", settings: settings, project: "alpha-project"), app: "alpha")
        #expect(credentials.context == ProviderContext(apnsTopic: "com.example.alpha", fcmProjectID: "alpha-project"))
        #expect(credentials.apns?.url == "https://apns.example")
        #expect(credentials.apns?.sandboxURL == "https://sandbox.example")
        #expect(credentials.fcm?.url == "https://fcm.example")
        guard case .token(let key)? = credentials.apns?.authentication.revealed else {
            Issue.record("an app folder's APNs is not token auth")
            return
        }
        #expect(key.keyId == "KEY1234567")
    }

    @Test func eitherProviderAloneIsAnApp() throws {
        let apnsOnly = try Self.parse(try Self.folder("alpha"), app: "alpha")
        #expect(apnsOnly.fcm == nil)
        #expect(apnsOnly.apns?.url == AppURLs().apns)
        let fcmOnly = try Self.parse(try Self.folder("beta", settings: "{}", project: "beta-project"), app: "beta")
        #expect(fcmOnly.apns == nil)
        #expect(fcmOnly.context == ProviderContext(apnsTopic: "", fcmProjectID: "beta-project"))
    }

    @Test(arguments: [
        ("not json", "app.json", "is not JSON"),
        ("[]", "app.json", "must be a JSON object"),
        (#"{"apns": {"keyId": "K", "teamId": "T"}}"#, "app.json", "apns.topic: is required"),
        (#"{"apns": {"keyId": "K", "teamId": "T", "topic": "a b"}}"#, "app.json", "apns.topic: must be"),
        (#"{"apns": {"keyId": "K", "teamId": "T", "topic": "t", "url": "http://x"}}"#, "app.json", "apns.url: "),
        (#"{"apns": {"keyID": "K"}}"#, "app.json", "apns.keyID: unknown setting"),
        (#"{"fcm": {}}"#, "fcm-service-account.json", "is missing"),
        ("{}", "app.json", "configures no provider"),
    ])
    func aBrokenSettingsFileIsRefusedNamingTheFileAndTheSetting(settings: String, file: String, reason: String) throws {
        let files = try Self.folder("alpha", settings: settings)
        #expect {
            _ = try Self.parse(files, app: "alpha")
        } throws: { error in
            guard let error = error as? FileReadError else { return false }
            return error.path == "/apps/alpha/\(file)" && error.reason.contains(reason)
        }
    }

    @Test func aMissingOrBadKeyOrServiceAccountIsRefusedNamingItsFile() throws {
        let files = try Self.folder("alpha", project: "alpha-project")
        files.write("/apps/alpha/apns-key.p8", "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n")
        #expect(throws: FileReadError.self) { try Self.parse(files, app: "alpha") }
        #expect(Self.refusedFile(files) == "/apps/alpha/apns-key.p8")
        files.remove("/apps/alpha/apns-key.p8")
        #expect(Self.refusedFile(files) == "/apps/alpha/apns-key.p8")
        files.write("/apps/alpha/apns-key.p8", try TestKeys.p256.get())
        files.write("/apps/alpha/fcm-service-account.json", "{}")
        #expect(Self.refusedFile(files) == "/apps/alpha/fcm-service-account.json")
        files.remove("/apps/alpha/app.json")
        #expect(Self.refusedFile(files) == "/apps/alpha/app.json")
    }

    @Test func aVAPIDKeyWithItsSubjectTurnsWebPushOnForTheApp() throws {
        let files = try Self.folder("alpha")
        #expect(try Self.parse(files, app: "alpha").context.sendsWebPush == false)
        files.write("/apps/alpha/webpush-vapid.pem", try TestKeys.p256.get())
        files.write("/apps/alpha/webpush.json", #"{"subject": "mailto:ops@alpha.example"}"#)
        let credentials = try Self.parse(files, app: "alpha")
        #expect(credentials.context.sendsWebPush)
        #expect(credentials.webPush?.revealed.subject == "mailto:ops@alpha.example")
        files.write("/apps/alpha/app.json", "{}")
        files.remove("/apps/alpha/apns-key.p8")
        #expect(try Self.parse(files, app: "alpha").context.sendsWebPush, "Web Push alone is an app")
    }

    @Test(arguments: [
        ("webpush.json", "", "/apps/alpha/webpush.json"),
        ("webpush-vapid.pem", "", "/apps/alpha/webpush-vapid.pem"),
        ("webpush.json", #"{"subject": "ops@alpha.example"}"#, "/apps/alpha/webpush.json"),
        ("webpush.json", #"{"subject": "mailto:a@b", "extra": 1}"#, "/apps/alpha/webpush.json"),
        ("webpush-vapid.pem", "not a key", "/apps/alpha/webpush-vapid.pem"),
    ])
    func aHalfOrBrokenWebPushPairIsRefusedNamingItsFile(file: String, contents: String, refused: String) throws {
        let files = try Self.folder("alpha")
        files.write("/apps/alpha/webpush-vapid.pem", try TestKeys.p256.get())
        files.write("/apps/alpha/webpush.json", #"{"subject": "mailto:ops@alpha.example"}"#)
        if contents.isEmpty {
            files.remove("/apps/alpha/\(file)")
        } else {
            files.write("/apps/alpha/\(file)", contents)
        }
        #expect(Self.refusedFile(files) == refused)
    }

    static func refusedFile(_ files: MemoryFolders) -> String? {
        do {
            _ = try parse(files, app: "alpha")
            return nil
        } catch {
            return error.path
        }
    }

    @Test func theCatalogRoutesEachAppToItsFolderTheEmptyAppIDToTheDefaultAndOthersNowhere() throws {
        let files = try Self.folder("alpha", project: "alpha-project")
        try Self.add("broken", to: files, settings: "{")
        let catalog = Self.catalog(files)
        let changes = catalog.refresh()
        #expect(changes.count == 2)
        #expect(changes.first == .added("alpha"))
        #expect(
            catalog.standing(ofApp: "alpha")
                == .ready(ProviderContext(apnsTopic: "com.example.alpha", fcmProjectID: "alpha-project")))
        #expect(
            catalog.standing(ofApp: "")
                == .ready(ProviderContext(apnsTopic: "com.example.default", fcmProjectID: "default-project")))
        #expect(catalog.standing(ofApp: "broken") == .refused(.misconfigured))
        #expect(catalog.standing(ofApp: "gamma") == .refused(.unknownApp))
    }

    @Test func aFolderThatBreaksRefusesItsAppOnlyAndAFixedOneComesBackWithANewGeneration() throws {
        let files = try Self.folder("alpha")
        try Self.add("beta", to: files, project: "beta-project")
        let catalog = Self.catalog(files)
        catalog.refresh()
        guard case .ready(_, let first)? = catalog.entry(ofApp: "alpha") else {
            Issue.record("alpha is not ready")
            return
        }
        #expect(catalog.refresh().isEmpty)
        files.write("/apps/alpha/app.json", #"{"apns": {}}"#)
        let broken = catalog.refresh()
        #expect(broken.count == 1)
        guard case .broken("alpha", let error)? = broken.first else {
            Issue.record("alpha did not break: \(broken)")
            return
        }
        #expect(error.path == "/apps/alpha/app.json")
        #expect(catalog.standing(ofApp: "alpha") == .refused(.misconfigured))
        #expect(
            catalog.standing(ofApp: "beta")
                == .ready(ProviderContext(apnsTopic: "com.example.alpha", fcmProjectID: "beta-project")))
        files.write("/apps/alpha/app.json", Self.settings.replacingOccurrences(of: "alpha", with: "alpha2"))
        #expect(catalog.refresh() == [.changed("alpha")])
        guard case .ready(let credentials, let second)? = catalog.entry(ofApp: "alpha") else {
            Issue.record("alpha did not come back")
            return
        }
        #expect(second != first)
        #expect(credentials.apns?.topic == "com.example.alpha2")
        files.removeFolder("/apps/alpha")
        #expect(catalog.refresh() == [.removed("alpha")])
        #expect(catalog.standing(ofApp: "alpha") == .refused(.unknownApp))
    }

    @Test func aFolderThatCannotBeListedKeepsTheAppsAsTheyWere() throws {
        let files = try Self.folder("alpha")
        let catalog = Self.catalog(files)
        catalog.refresh()
        files.removeFolder("/apps/alpha")
        guard case .unlisted(let error)? = catalog.refresh().first else {
            Issue.record("an unlisted folder was not reported")
            return
        }
        #expect(error.path == "/apps")
        #expect(catalog.standing(ofApp: "alpha") != .refused(.unknownApp))
    }

    @Test func refusalsAreCountedUnderABoundedAppLabel() throws {
        let registry = MetricsRegistry()
        let catalog = Self.catalog(try Self.folder("alpha"), registry: registry)
        catalog.refresh()
        for app in ["b", "c", "d", "e"] { _ = catalog.standing(ofApp: app) }
        let text = registry.prometheusText()
        #expect(text.contains(#"push_app_refusals_total{app="b",reason="unknown_app"} 1"#))
        #expect(text.contains(#"push_app_refusals_total{app="c",reason="unknown_app"} 1"#))
        #expect(text.contains(#"push_app_refusals_total{app="(other)",reason="unknown_app"} 2"#))
        #expect(text.contains(#"push_apps_reloads_total{result="broken"} 0"#))
    }
}

/// The live clients of apps: bounded, dropped when idle, replaced when the app's files change.
@Suite struct LiveAppsTests {
    @Test func anAppsValueIsMadeOnceAndKeptWhileUsed() {
        var live = LiveApps<Int>(maximum: 2, idleMillis: 1000)
        var made = 0
        for now in [0, 500, 1400] as [Int64] {
            #expect(
                live.value(for: "a", generation: 1, nowMillis: now) {
                    made += 1; return made
                } == 1)
        }
        #expect(made == 1)
        #expect(live.dropIdle(nowMillis: 2399).isEmpty)
        #expect(live.dropIdle(nowMillis: 2400) == ["a"])
        #expect(live.count == 0)
    }

    @Test func aNewGenerationReplacesTheValue() {
        var live = LiveApps<String>(maximum: 2, idleMillis: 1000)
        #expect(live.value(for: "a", generation: 1, nowMillis: 0) { "old" } == "old")
        #expect(live.value(for: "a", generation: 2, nowMillis: 1) { "new" } == "new")
        #expect(live.count == 1)
    }

    @Test func pastTheMaximumTheLeastRecentlyUsedAppIsDropped() {
        var live = LiveApps<String>(maximum: 2, idleMillis: 10_000)
        _ = live.value(for: "a", generation: 1, nowMillis: 0) { "a" }
        _ = live.value(for: "b", generation: 1, nowMillis: 1) { "b" }
        _ = live.value(for: "a", generation: 1, nowMillis: 2) { "a2" }
        _ = live.value(for: "c", generation: 1, nowMillis: 3) { "c" }
        #expect(live.count == 2)
        #expect(live.value(for: "a", generation: 1, nowMillis: 4) { "a3" } == "a")
        #expect(live.value(for: "b", generation: 1, nowMillis: 5) { "b2" } == "b2")
    }
}
