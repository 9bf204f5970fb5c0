import Configuration
import Observability
import Providers

extension AppCredentials {
    /// The default app, the apps table's entry for the empty `appID`: the providers of the `APNS_*`, `FCM_*` and
    /// `WEBPUSH_*` variables, each present when configured (none at all is a deployment of app folders only).
    init(defaultAppOf configuration: WorkerConfiguration, credentials: ProviderCredentials) {
        self.init()
        if let apns = configuration.apns {
            let authentication: APNsAuthentication =
                credentials.apnsSigningKey.map { .token($0.revealed) } ?? .certificate
            self.apns = APNs(
                authentication: Secret(authentication), topic: apns.topic, url: apns.url, sandboxURL: apns.sandboxURL)
        }
        if let fcm = configuration.fcm, let account = credentials.googleServiceAccount {
            self.fcm = FCM(serviceAccount: account, url: fcm.url)
        }
        webPush = credentials.vapidKey
    }
}
