public import HTTP2
import HTTPTypes
public import Observability
public import Providers
import PushPipeline

/// The providers' credentials, read from the files the configuration names and checked before anything starts:
/// the keys are `Secret`s from here on, and each error names its variable.
public struct ProviderCredentials: Sendable {
    /// APNs token auth: the `.p8` signing key of `APNS_KEY_FILE`, with `APNS_KEY_ID` and `APNS_TEAM_ID`.
    public var apnsSigningKey: Secret<APNsSigningKey>?
    /// APNs certificate auth: `APNS_CERT_FILE` and `APNS_CERT_KEY_FILE` (both checked to hold PEM of their kind)
    /// and the key's password.
    public var apnsClientCertificate: Secret<ClientCertificate>?
    /// FCM: the service account of `FCM_SERVICE_ACCOUNT_FILE`, its private key included.
    public var googleServiceAccount: Secret<GoogleServiceAccount>?
    /// Web Push: the VAPID key of `WEBPUSH_VAPID_KEY_FILE` with `WEBPUSH_VAPID_SUBJECT`.
    public var vapidKey: Secret<VAPIDKey>?

    /// Reads and checks the credentials `configuration` names, and that `PUSH_APPS_DIR` can be listed.
    static func load(for configuration: WorkerConfiguration, files: some FileReading) throws(InvalidSetting) -> Self {
        var credentials = ProviderCredentials()
        switch configuration.apns?.credentials {
        case .token(let keyFile, let keyID, let teamID):
            let pem = String(decoding: try read(keyFile, variable: "APNS_KEY_FILE", files: files), as: UTF8.self)
            do {
                credentials.apnsSigningKey = Secret(try APNsSigningKey(pem: pem, keyId: keyID, teamId: teamID))
            } catch {
                throw error.naming("APNS_KEY_FILE")
            }
        case .certificate(let file, let keyFile, let password):
            let certificate = ClientCertificate(
                certificateFile: file, keyFile: keyFile, keyPassword: password?.revealed)
            // The message names the file that cannot be used, never the password.
            do throws(HTTPError) {
                try certificate.validateCertificateFile()
            } catch {
                throw InvalidSetting(variable: "APNS_CERT_FILE", reason: error.message)
            }
            do throws(HTTPError) {
                try certificate.validateKeyFile()
            } catch {
                throw InvalidSetting(variable: "APNS_CERT_KEY_FILE", reason: error.message)
            }
            credentials.apnsClientCertificate = Secret(certificate)
        case nil:
            break
        }
        if let fcm = configuration.fcm {
            let json = try read(fcm.serviceAccountFile, variable: "FCM_SERVICE_ACCOUNT_FILE", files: files)
            let account: GoogleServiceAccount
            do {
                account = try GoogleServiceAccount(json: json)
            } catch {
                throw error.naming("FCM_SERVICE_ACCOUNT_FILE")
            }
            if let problem = account.tokenURIProblem(allowsHTTP: configuration.allowsInsecureHTTP) {
                throw InvalidSetting(variable: "FCM_SERVICE_ACCOUNT_FILE", reason: problem)
            }
            credentials.googleServiceAccount = Secret(account)
        }
        if let webPush = configuration.webPush {
            let pem = String(
                decoding: try read(webPush.keyFile, variable: "WEBPUSH_VAPID_KEY_FILE", files: files), as: UTF8.self)
            do {
                credentials.vapidKey = Secret(try VAPIDKey(pem: pem, subject: webPush.subject))
            } catch {
                throw InvalidSetting(variable: error.field, reason: error.reason)
            }
        }
        if let apps = configuration.apps {
            // The app folders themselves are read by `AppCatalog`: a broken one refuses its app only.
            do {
                _ = try files.folders(in: apps.directory)
            } catch {
                throw InvalidSetting(variable: "PUSH_APPS_DIR", reason: "cannot list \(error)")
            }
        }
        return credentials
    }

    private static func read(_ path: String, variable: String, files: some FileReading) throws(InvalidSetting)
        -> [UInt8]
    {
        do {
            return try files.contents(of: path, kind: .credentials)
        } catch {
            throw InvalidSetting(variable: variable, reason: "cannot read \(error)")
        }
    }
}

extension ProviderConfigurationError {
    /// The error as a setting error for `variable`, without repeating the variable's name.
    fileprivate func naming(_ variable: String) -> InvalidSetting {
        InvalidSetting(variable: variable, reason: field == variable ? reason : description)
    }
}
