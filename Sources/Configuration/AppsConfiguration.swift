/// Several apps in one fleet (`PUSH_APPS_DIR`): one folder per `appID` with its APNs key and FCM service account
/// (docs/apps.md). Messages without an `appID` stay with the default app of the `APNS_*` / `FCM_*` variables.
public struct AppsConfiguration: Sendable, Equatable {
    /// `PUSH_APPS_DIR`: the folder of app folders.
    public var directory: String
    /// How often the folder is checked for changes (`PUSH_APPS_CHECK_MS`).
    public var checkInterval: Duration = .seconds(5)
    /// The most apps with live clients at once (`PUSH_APPS_MAX_LIVE`): past it the least recently used app's
    /// clients are dropped, to be made again on its next message.
    public var maximumLiveApps = 64
    /// How long an app's clients live without a send (`PUSH_APPS_IDLE_MS`).
    public var idleTimeout: Duration = .seconds(600)
    /// The most apps with a metrics label of their own (`PUSH_APPS_METRICS_LABELS`); later apps share `(other)`.
    public var maximumLabelledApps = 50
    /// The base URLs an app's `app.json` does not name: `APNS_URL`, `APNS_SANDBOX_URL`, `FCM_URL`.
    public var defaultURLs: AppURLs

    public init(directory: String, defaultURLs: AppURLs) {
        self.directory = directory
        self.defaultURLs = defaultURLs
    }
}

/// The provider base URLs of one app.
public struct AppURLs: Sendable, Equatable {
    public var apns: String
    public var apnsSandbox: String
    public var fcm: String

    public init(
        apns: String = "https://api.push.apple.com", apnsSandbox: String = "https://api.sandbox.push.apple.com",
        fcm: String = "https://fcm.googleapis.com"
    ) {
        self.apns = apns
        self.apnsSandbox = apnsSandbox
        self.fcm = fcm
    }
}

/// `APNS_URL`, `APNS_SANDBOX_URL` and `FCM_URL` (or their defaults, `AppURLs()`), read once for the default app
/// and the app folders; a bad one refuses the start only where it is used.
struct ProviderURLs {
    let apns: Result<String, InvalidSetting>
    let apnsSandbox: Result<String, InvalidSetting>
    let fcm: Result<String, InvalidSetting>

    /// The three, for the app folders' defaults.
    func all() throws(InvalidSetting) -> AppURLs {
        AppURLs(apns: try apns.get(), apnsSandbox: try apnsSandbox.get(), fcm: try fcm.get())
    }
}

extension SettingReader {
    /// The provider URL variables, each read once.
    func providerURLs(allowsInsecureHTTP: Bool) -> ProviderURLs {
        let defaults = AppURLs()
        func read(_ name: String, _ fallback: String) -> Result<String, InvalidSetting> {
            Result { () throws(InvalidSetting) in try url(name, default: fallback, allowsHTTP: allowsInsecureHTTP) }
        }
        return ProviderURLs(
            apns: read("APNS_URL", defaults.apns), apnsSandbox: read("APNS_SANDBOX_URL", defaults.apnsSandbox),
            fcm: read("FCM_URL", defaults.fcm))
    }

    /// `PUSH_APPS_DIR` and its tuning variables; `nil` without `PUSH_APPS_DIR`.
    func appsConfiguration(urls: ProviderURLs) throws(InvalidSetting) -> AppsConfiguration? {
        guard let directory = optional("PUSH_APPS_DIR") else { return nil }
        var apps = AppsConfiguration(directory: directory, defaultURLs: try urls.all())
        apps.checkInterval = try milliseconds(
            "PUSH_APPS_CHECK_MS", default: apps.checkInterval, in: 100...3_600_000)
        apps.maximumLiveApps = try integer("PUSH_APPS_MAX_LIVE", default: apps.maximumLiveApps, in: 1...10_000)
        apps.idleTimeout = try milliseconds("PUSH_APPS_IDLE_MS", default: apps.idleTimeout, in: 1000...86_400_000)
        apps.maximumLabelledApps = try integer(
            "PUSH_APPS_METRICS_LABELS", default: apps.maximumLabelledApps, in: 0...1000)
        return apps
    }
}
