import Essentials
import HTTPTypes
import Providers
import PushCore

/// Where every provider client is made, the default app's and each app folder's: over one shared transport, with
/// one provider token per APNs key (`APNsTokenSigners`), one request deadline and one Web Push endpoint policy.
struct ProviderClientFactory: Sendable {
    let transport: any HTTPTransport
    let signers: APNsTokenSigners
    let requestDeadline: Duration
    /// Where Web Push endpoints may point (`WEBPUSH_ALLOW_PRIVATE_ENDPOINTS`).
    let webPushPolicy: WebPushEndpointPolicy
    let clock: any WallClock

    /// An APNs client; `own` replaces the shared transport (certificate auth has a transport of its own).
    func apns(
        _ authentication: APNsAuthentication, url: String, sandboxURL: String, over own: (any HTTPTransport)? = nil
    ) -> APNsClient {
        APNsClient(
            configuration: APNsConfiguration(
                authentication: authentication, productionURL: url, sandboxURL: sandboxURL,
                requestDeadline: requestDeadline),
            transport: own ?? transport, clock: clock, signers: signers)
    }

    func fcm(url: String, serviceAccount: GoogleServiceAccount) -> FCMClient {
        FCMClient(
            configuration: FCMConfiguration(baseURL: url, requestDeadline: requestDeadline),
            serviceAccount: serviceAccount, transport: transport, clock: clock)
    }

    func webPush(vapid: VAPIDKey) -> WebPushClient {
        WebPushClient(
            configuration: WebPushConfiguration(requestDeadline: requestDeadline, policy: webPushPolicy),
            vapid: vapid, transport: transport, clock: clock)
    }

    /// The clients of an app folder's credentials (token auth only).
    func clients(of credentials: AppCredentials) -> AppClients {
        AppClients(
            apns: credentials.apns.map {
                apns(.token($0.signingKey.revealed), url: $0.url, sandboxURL: $0.sandboxURL)
            },
            fcm: credentials.fcm.map { fcm(url: $0.url, serviceAccount: $0.serviceAccount.revealed) },
            webPush: credentials.webPush.map { webPush(vapid: $0.revealed) })
    }
}
