/// One exact HTTP request to APNs, FCM or a Web Push service, ready for a provider client to add authorization
/// (and, for Web Push, to encrypt the body) and send.
public struct ProviderRequest: Sendable, Equatable {
    /// One request header.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var platform: Platform { fields.platform }
    public var method: String { fields.method }
    /// The path on the provider's host: `/3/device/<token>` or `/v1/projects/<project>/messages:send`; for Web Push
    /// the subscription's whole endpoint URL.
    public var path: String { fields.path }
    /// Every header except authorization, which the provider client adds.
    public var headers: [Header] { fields.headers }
    public var body: [UInt8] { fields.body }
    /// For APNs: send to the sandbox host instead of production.
    public var sandbox: Bool { fields.sandbox }
    /// When the push stops being worth sending (event time + time to live, epoch seconds).
    public var expiresAtEpochSeconds: Int { fields.expiresAtEpochSeconds }
    /// For Web Push: the push service's origin (`https://host[:port]`, lowercased), which has its own breaker and
    /// in-flight limit.
    public var origin: String? { fields.origin }

    /// The fields, shared by every copy: a request is built once and handed from the plan to the group, the sender
    /// and the retry path, and a copy of a struct of them retained each string and array.
    private let fields: Fields

    private final class Fields: Sendable {
        let platform: Platform
        let method: String
        let path: String
        let headers: [Header]
        let body: [UInt8]
        let sandbox: Bool
        let expiresAtEpochSeconds: Int
        let origin: String?

        init(
            platform: Platform, method: String, path: String, headers: [Header], body: [UInt8], sandbox: Bool,
            expiresAtEpochSeconds: Int, origin: String?
        ) {
            self.platform = platform
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
            self.sandbox = sandbox
            self.expiresAtEpochSeconds = expiresAtEpochSeconds
            self.origin = origin
        }
    }

    public init(
        platform: Platform, method: String = "POST", path: String, headers: [Header], body: [UInt8],
        sandbox: Bool = false, expiresAtEpochSeconds: Int, origin: String? = nil
    ) {
        fields = Fields(
            platform: platform, method: method, path: path, headers: headers, body: body, sandbox: sandbox,
            expiresAtEpochSeconds: expiresAtEpochSeconds, origin: origin)
    }

    public static func == (lhs: ProviderRequest, rhs: ProviderRequest) -> Bool {
        lhs.fields === rhs.fields
            || (lhs.platform == rhs.platform && lhs.method == rhs.method && lhs.path == rhs.path
                && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.sandbox == rhs.sandbox
                && lhs.expiresAtEpochSeconds == rhs.expiresAtEpochSeconds && lhs.origin == rhs.origin)
    }

    /// The value of header `name`, if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// The deployment values the builders need: the default APNs topic, the FCM project, and whether the app sends
/// Web Push.
public struct ProviderContext: Sendable, Equatable {
    /// The app's bundle id (`APNS_TOPIC`), used unless a device names its own topic.
    public var apnsTopic: String
    /// The Firebase project id (`project_id` of `FCM_SERVICE_ACCOUNT_FILE`).
    public var fcmProjectID: String { didSet { fcmSendPath = Self.sendPath(of: fcmProjectID) } }
    /// True when the app has VAPID keys; without them its `web` devices are skipped (reason `platform`).
    public var sendsWebPush: Bool
    /// The project's `messages:send` path, the same for every FCM request: written once, not once a request.
    public private(set) var fcmSendPath: String

    public init(apnsTopic: String, fcmProjectID: String, sendsWebPush: Bool = false) {
        self.apnsTopic = apnsTopic
        self.fcmProjectID = fcmProjectID
        self.sendsWebPush = sendsWebPush
        fcmSendPath = Self.sendPath(of: fcmProjectID)
    }

    private static func sendPath(of project: String) -> String { "/v1/projects/\(project)/messages:send" }
}

/// The providers' body size limits, in bytes.
public enum PayloadLimit {
    /// APNs notifications other than VoIP.
    public static let apns = 4096
    /// APNs VoIP (PushKit) notifications.
    public static let apnsVoip = 5120
    /// An FCM HTTP v1 message.
    public static let fcm = 4000
    /// A Web Push message's plaintext: one 4096-byte aes128gcm record less its 86-byte header, the padding
    /// delimiter and the 16-byte tag (RFC 8291 §4).
    public static let web = 3993

    /// The limit of requests to `platform` (PushKit tokens only ever get VoIP pushes).
    public static func bytes(for platform: Platform) -> Int {
        switch platform {
        case .apns: apns
        case .apnsVoip: apnsVoip
        case .fcm: fcm
        case .web: web
        }
    }
}
