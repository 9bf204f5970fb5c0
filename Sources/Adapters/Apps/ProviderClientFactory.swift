import Essentials
import HTTPTypes
import Observability
import Providers
import PushCore

/// Where every provider client is made, the default app's and each app folder's, from the app's credentials: over
/// one shared transport, with one provider token per APNs key (`APNsTokenSigners`), one request deadline and one Web
/// Push endpoint policy.
struct ProviderClientFactory: Sendable {
    let transport: any HTTPTransport
    /// The transport presenting the default app's client certificate (`APNS_CERT_FILE`), made whenever that app's
    /// APNs uses certificate auth: a client certificate belongs to every connection of its transport.
    let certificateTransport: (any HTTPTransport)?
    let signers: APNsTokenSigners
    let requestDeadline: Duration
    /// Where Web Push endpoints may point (`WEBPUSH_ALLOW_PRIVATE_ENDPOINTS`).
    let webPushPolicy: WebPushEndpointPolicy
    let clock: any WallClock

    /// The clients of one app, one for each provider its credentials configure.
    func clients(of credentials: AppCredentials) -> AppClients {
        AppClients(
            apns: credentials.apns.map(apns), fcm: credentials.fcm.map(fcm),
            webPush: credentials.webPush.map { webPush(vapid: $0.revealed) })
    }

    private func apns(_ apns: AppCredentials.APNs) -> APNsClient {
        let authentication = apns.authentication.revealed
        var over = transport
        if case .certificate = authentication, let certificateTransport { over = certificateTransport }
        return APNsClient(
            configuration: APNsConfiguration(
                authentication: authentication, productionURL: apns.url, sandboxURL: apns.sandboxURL,
                requestDeadline: requestDeadline),
            transport: over, clock: clock, signers: signers)
    }

    private func fcm(_ fcm: AppCredentials.FCM) -> FCMClient {
        FCMClient(
            configuration: FCMConfiguration(baseURL: fcm.url, requestDeadline: requestDeadline),
            serviceAccount: fcm.serviceAccount.revealed, transport: transport, clock: clock)
    }

    private func webPush(vapid: VAPIDKey) -> WebPushClient {
        WebPushClient(
            configuration: WebPushConfiguration(requestDeadline: requestDeadline, policy: webPushPolicy),
            vapid: vapid, transport: transport, clock: clock)
    }
}
