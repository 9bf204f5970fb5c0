import Essentials
import HTTPTypes
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

/// The clients of the apps of `PUSH_APPS_DIR`, made from the catalog on an app's first send and dropped when idle
/// or when its files change (`LiveApps`). Every app sends over one shared HTTP/2 transport, which keeps a
/// connection per origin, so apps with other base URLs get their own connections and apps with the same share them;
/// clients of one APNs key share its provider token (`APNsTokenSigners`).
package final class AppSenders: Sendable {
    private let catalog: AppCatalog
    private let factory: ProviderClientFactory
    private let clock: any WallClock
    private let metrics: AppMetrics
    private let live: Mutex<LiveApps<AppClients>>

    init(
        catalog: AppCatalog, transport: any HTTPTransport, signers: APNsTokenSigners, requestDeadline: Duration,
        webPushPolicy: WebPushEndpointPolicy = WebPushEndpointPolicy(), maximumLiveApps: Int,
        idleTimeout: Duration, metrics: AppMetrics, clock: any WallClock = SystemWallClock()
    ) {
        self.metrics = metrics
        self.catalog = catalog
        factory = ProviderClientFactory(
            transport: transport, signers: signers, requestDeadline: requestDeadline, webPushPolicy: webPushPolicy,
            clock: clock)
        self.clock = clock
        live = Mutex(LiveApps(maximum: maximumLiveApps, idleMillis: idleTimeout.wholeMilliseconds))
    }

    /// The clients of `appID`, or why it cannot send.
    func clients(ofApp appID: String) -> Result<AppClients, AppRefusal> {
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

    /// Counts one send of `appID` (the default app's too) in `push_app_sends_total`.
    func count(app appID: String, provider: PushProvider, status: String) {
        metrics.sends(app: appID, provider: provider, status: status).increment()
    }

    /// How many apps have live clients.
    var liveApps: Int { live.withLock { $0.count } }

    /// Drops the clients of apps idle past the timeout.
    func dropIdle() {
        let now = clock.nowMillis()
        _ = live.withLock { $0.dropIdle(nowMillis: now) }
    }
}
