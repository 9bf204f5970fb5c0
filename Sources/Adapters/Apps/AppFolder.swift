import Configuration
public import Observability
public import Providers
public import PushCore
import PushPipeline

/// The files of one app's folder in `PUSH_APPS_DIR` (docs/apps.md), the folder's name being the `appID`.
enum AppFolder {
    /// The settings: `{"apns": {"keyId", "teamId", "topic", "url"?, "sandboxUrl"?}?, "fcm": {"url"?}?}`.
    static let settings = "app.json"
    /// The APNs token key (`.p8`), required with `apns` in the settings.
    static let apnsKey = "apns-key.p8"
    /// The FCM service account; its presence turns FCM on for the app.
    static let fcmServiceAccount = "fcm-service-account.json"
    /// The VAPID key (a PEM P-256 private key); its presence turns Web Push on for the app, with `webPushSettings`.
    static let webPushKey = "webpush-vapid.pem"
    /// Web Push's settings: `{"subject": "mailto:…" or "https://…"}`.
    static let webPushSettings = "webpush.json"
    static let files = [settings, apnsKey, fcmServiceAccount, webPushKey, webPushSettings]
}

/// The files of one app folder as read at one check: what changed is found by comparing two of them.
struct AppFolderContents: Sendable, Equatable {
    /// One file: absent, its bytes, or why it could not be read.
    enum File: Sendable, Equatable {
        case absent
        case bytes([UInt8])
        case unreadable(String)
    }

    var folder: String
    var files: [String: File]

    /// Reads the files of `folder`.
    static func read(_ folder: String, files reader: some FileReading) -> AppFolderContents {
        var files: [String: File] = [:]
        for name in AppFolder.files {
            let path = "\(folder)/\(name)"
            guard reader.stamp(of: path) != nil else {
                files[name] = .absent
                continue
            }
            do {
                files[name] = .bytes(try reader.contents(of: path, kind: .credentials))
            } catch let error as FileReadError {
                files[name] = .unreadable(error.reason)
            } catch {
                files[name] = .unreadable(String(describing: error))
            }
        }
        return AppFolderContents(folder: folder, files: files)
    }

    func path(_ name: String) -> String { "\(folder)/\(name)" }

    /// The bytes of file `name`; `nil` when absent; throws when unreadable.
    func bytes(_ name: String) throws(FileReadError) -> [UInt8]? {
        switch files[name] ?? .absent {
        case .absent: return nil
        case .bytes(let bytes): return bytes
        case .unreadable(let reason): throw FileReadError(path: path(name), reason: "cannot read: \(reason)")
        }
    }
}

/// The checked credentials and settings of one app: an app folder's of `PUSH_APPS_DIR`, or the default app's
/// (`AppCredentials(defaultAppOf:credentials:)`).
public struct AppCredentials: Sendable {
    /// APNs of the app.
    public struct APNs: Sendable {
        /// Token auth with the app's key; certificate auth only for the default app (`APNS_CERT_FILE`).
        public var authentication: Secret<APNsAuthentication>
        /// The app's bundle id (`apns-topic`), unless a device names its own.
        public var topic: String
        public var url: String
        public var sandboxURL: String
    }

    /// FCM of the app.
    public struct FCM: Sendable {
        public var serviceAccount: Secret<GoogleServiceAccount>
        public var url: String
    }

    public var apns: APNs?
    public var fcm: FCM?
    /// Web Push of the app: its VAPID key and subject.
    public var webPush: Secret<VAPIDKey>?

    /// What planning a message of this app uses.
    public var context: ProviderContext {
        ProviderContext(
            apnsTopic: apns?.topic ?? "", fcmProjectID: fcm?.serviceAccount.revealed.projectId ?? "",
            sendsWebPush: webPush != nil)
    }

    /// Checks `contents`; each error names the file at fault. `defaults` are the base URLs `app.json` does not name.
    static func parse(_ contents: AppFolderContents, defaults: AppURLs, allowsInsecureHTTP: Bool)
        throws(FileReadError) -> AppCredentials
    {
        let settingsPath = contents.path(AppFolder.settings)
        func fault(_ reason: String) -> FileReadError { FileReadError(path: settingsPath, reason: reason) }
        guard let settingsBytes = try contents.bytes(AppFolder.settings) else { throw fault("is missing") }
        let settings: [JSONMember]
        do {
            guard case .object(let members) = try JSONParser.parse(settingsBytes) else {
                throw fault("must be a JSON object")
            }
            settings = members
        } catch let error as FileReadError {
            throw error
        } catch {
            throw fault("is not JSON: \(error)")
        }
        let section = try AppSettingsSection(settings, path: "", allowed: ["apns", "fcm"], fault: fault)
        var credentials = AppCredentials()
        if let apns = try section.object("apns", allowed: ["keyId", "teamId", "topic", "url", "sandboxUrl"]) {
            let keyPath = contents.path(AppFolder.apnsKey)
            guard let pem = try contents.bytes(AppFolder.apnsKey) else {
                throw FileReadError(path: keyPath, reason: "is missing (app.json configures apns)")
            }
            let keyID = try apns.requiredString("keyId")
            let teamID = try apns.requiredString("teamId")
            let topic = try apns.requiredString("topic")
            let key: APNsSigningKey
            do {
                key = try APNsSigningKey(pem: String(decoding: pem, as: UTF8.self), keyId: keyID, teamId: teamID)
            } catch {
                throw FileReadError(path: keyPath, reason: error.reason)
            }
            credentials.apns = APNs(
                authentication: Secret(.token(key)), topic: topic,
                url: try apns.url("url", default: defaults.apns, allowsHTTP: allowsInsecureHTTP),
                sandboxURL: try apns.url("sandboxUrl", default: defaults.apnsSandbox, allowsHTTP: allowsInsecureHTTP))
        }
        let fcm = try section.object("fcm", allowed: ["url"])
        let accountPath = contents.path(AppFolder.fcmServiceAccount)
        if let json = try contents.bytes(AppFolder.fcmServiceAccount) {
            let account: GoogleServiceAccount
            do {
                account = try GoogleServiceAccount(json: json)
            } catch {
                throw FileReadError(path: accountPath, reason: error.description)
            }
            if let problem = account.tokenURIProblem(allowsHTTP: allowsInsecureHTTP) {
                throw FileReadError(path: accountPath, reason: problem)
            }
            credentials.fcm = FCM(
                serviceAccount: Secret(account),
                url: try fcm?.url("url", default: defaults.fcm, allowsHTTP: allowsInsecureHTTP) ?? defaults.fcm)
        } else if fcm != nil {
            throw FileReadError(path: accountPath, reason: "is missing (app.json configures fcm)")
        }
        credentials.webPush = try webPush(contents)
        guard credentials.apns != nil || credentials.fcm != nil || credentials.webPush != nil else {
            throw fault(
                "configures no provider: add \"apns\" (with \(AppFolder.apnsKey)), \(AppFolder.fcmServiceAccount) "
                    + "or \(AppFolder.webPushKey) with \(AppFolder.webPushSettings)")
        }
        return credentials
    }

    /// The app's VAPID key and subject: both files or neither.
    private static func webPush(_ contents: AppFolderContents) throws(FileReadError) -> Secret<VAPIDKey>? {
        let keyPath = contents.path(AppFolder.webPushKey)
        let settingsPath = contents.path(AppFolder.webPushSettings)
        switch (try contents.bytes(AppFolder.webPushKey), try contents.bytes(AppFolder.webPushSettings)) {
        case (nil, nil):
            return nil
        case (nil, _?):
            throw FileReadError(path: keyPath, reason: "is missing (\(AppFolder.webPushSettings) is there)")
        case (_?, nil):
            throw FileReadError(path: settingsPath, reason: "is missing (\(AppFolder.webPushKey) is there)")
        case (let pem?, let settings?):
            guard case .object(let members)? = try? JSONParser.parse(settings),
                members.allSatisfy({ $0.key == "subject" }), let subject = members.first?.value.stringValue
            else {
                throw FileReadError(path: settingsPath, reason: #"must be {"subject": "mailto:…" or "https://…"}"#)
            }
            do {
                return Secret(try VAPIDKey(pem: String(decoding: pem, as: UTF8.self), subject: subject))
            } catch {
                let path = error.field == "WEBPUSH_VAPID_SUBJECT" ? settingsPath : keyPath
                throw FileReadError(path: path, reason: error.reason)
            }
        }
    }
}

/// One object of `app.json`, its errors naming the member's path.
private struct AppSettingsSection {
    let members: [JSONMember]
    let path: String
    let fault: (String) -> FileReadError

    init(_ members: [JSONMember], path: String, allowed: Set<String>, fault: @escaping (String) -> FileReadError)
        throws(FileReadError)
    {
        self.members = members
        self.path = path
        self.fault = fault
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw fault("\(path)\(unknown.key): unknown setting (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    func object(_ key: String, allowed: Set<String>) throws(FileReadError) -> AppSettingsSection? {
        guard let value = members.first(where: { $0.key == key })?.value else { return nil }
        guard case .object(let inner) = value else { throw fault("\(path)\(key): must be an object") }
        return try AppSettingsSection(inner, path: "\(path)\(key).", allowed: allowed, fault: fault)
    }

    func optionalString(_ key: String) throws(FileReadError) -> String? {
        guard let value = members.first(where: { $0.key == key })?.value else { return nil }
        guard let text = value.stringValue, !text.isEmpty, !text.contains(where: \.isWhitespace) else {
            throw fault("\(path)\(key): must be a non-empty string without spaces")
        }
        return text
    }

    func requiredString(_ key: String) throws(FileReadError) -> String {
        guard let text = try optionalString(key) else { throw fault("\(path)\(key): is required") }
        return text
    }

    func url(_ key: String, default defaultValue: String, allowsHTTP: Bool) throws(FileReadError) -> String {
        guard var text = try optionalString(key) else { return defaultValue }
        if let problem = BaseURL.problem(with: text) { throw fault("\(path)\(key): '\(text)' \(problem)") }
        do {
            try WorkerConfiguration.checkTransport(of: text, variable: "\(path)\(key)", allowsHTTP: allowsHTTP)
        } catch {
            throw fault("\(path)\(key): \(error.reason)")
        }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
