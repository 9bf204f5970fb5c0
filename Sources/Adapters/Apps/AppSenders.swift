import Configuration
import Essentials
import HTTPTypes
import Observability
import Providers
import PushCore
import PushPipeline
import Synchronization

/// The APNs, FCM and Web Push clients of one app: its provider tokens, OAuth tokens and VAPID key.
struct AppClients: Sendable {
    var apns: APNsClient?
    var fcm: FCMClient?
    var webPush: WebPushClient?
}

/// The apps table: the provider clients of every app, by `appID`. The empty `appID` is the default app
/// (`AppCredentials(defaultAppOf:credentials:)`), its clients made at start and kept. With `PUSH_APPS_DIR`, any other
/// `appID` is its folder's app, its clients made from the catalog on the app's first send and dropped when idle or
/// when its files change (`LiveApps`), and an app without a usable folder is refused; without it, every `appID` is
/// the default app. Every client comes from one `ProviderClientFactory`: apps with the same base URLs share
/// connections, and clients of one APNs key share its provider token.
package final class AppSenders: Sendable {
    private let defaultApp: AppClients
    /// The app folders of `PUSH_APPS_DIR`, when it is set.
    private let catalog: AppCatalog?
    private let factory: ProviderClientFactory
    private let clock: any WallClock
    private let live: Mutex<LiveApps<AppClients>>

    init(
        defaultApp: AppCredentials, folders catalog: AppCatalog?, factory: ProviderClientFactory,
        clock: any WallClock = SystemWallClock()
    ) {
        self.defaultApp = factory.clients(of: defaultApp)
        self.catalog = catalog
        self.factory = factory
        self.clock = clock
        let settings = catalog?.configuration
        live = Mutex(
            LiveApps(
                maximum: settings?.maximumLiveApps ?? 1, idleMillis: settings?.idleTimeout.wholeMilliseconds ?? 0))
    }

    /// The providers a send may go to, in `PushProvider` order: the default app's, or every provider when app
    /// folders may bring their own.
    var configuredProviders: [PushProvider] {
        guard catalog == nil else { return PushProvider.allCases }
        return PushProvider.allCases.filter { provider in
            switch provider {
            case .apns: defaultApp.apns != nil
            case .fcm: defaultApp.fcm != nil
            case .webpush: defaultApp.webPush != nil
            }
        }
    }

    /// The clients of `appID`, or why it cannot send.
    func clients(ofApp appID: String) -> Result<AppClients, AppRefusal> {
        guard let catalog, !appID.isEmpty else { return .success(defaultApp) }
        switch catalog.entry(ofApp: appID) {
        case nil: return .failure(.unknownApp)
        case .broken?: return .failure(.misconfigured)
        case .ready(let credentials, let generation)?:
            let now = clock.nowMillis()
            return .success(
                live.withLock { live in
                    live.value(for: appID, generation: generation, nowMillis: now) { factory.clients(of: credentials) }
                })
        }
    }

    /// Counts one send of `appID` (the default app's too) in `push_app_sends_total`, with `PUSH_APPS_DIR`.
    func count(app appID: String, provider: PushProvider, status: String) {
        catalog?.metrics.sends(app: appID, provider: provider, status: status).increment()
    }

    /// How many folder apps have live clients.
    var liveApps: Int { live.withLock { $0.count } }

    /// Drops the clients of folder apps idle past the timeout.
    func dropIdle() {
        let now = clock.nowMillis()
        _ = live.withLock { $0.dropIdle(nowMillis: now) }
    }
}
