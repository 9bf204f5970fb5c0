/// The ingress's routes: IMKIT's two external push callbacks and its custom push API, all `POST` with a JSON body.
public enum IngressRoute: String, Sendable, CaseIterable {
    /// IMKIT's `PUSH` callback: one request per recipient (`toClient`, `badge`, `alert`).
    case imkitV1 = "/imkit/push"
    /// IMKIT's `PUSH_GENERIC` callback: one request per message (`pushToClients`).
    case imkitV2 = "/imkit/push/v2"
    /// IMKIT's custom push API: `{"clients": […], "payload": {…}}`.
    case pushToClients = "/push/push2clients"

    /// The path, as it appears in metrics labels too.
    public var path: String { rawValue }
}
