public import PushCore

/// Why the worker sends nothing for an app: the stable reason code of the `rejected` receipts.
public enum AppRefusal: String, Error, Sendable, Equatable {
    /// `PUSH_APPS_DIR` has no folder for the message's `appID`.
    case unknownApp = "unknown_app"
    /// The app's folder is there but cannot be used (a file missing or invalid).
    case misconfigured = "app_misconfigured"
}

/// The provider context of one app, or why it has none.
public enum AppStanding: Sendable, Equatable {
    case ready(ProviderContext)
    case refused(AppRefusal)

    /// The context when ready.
    public var context: ProviderContext? {
        guard case .ready(let context) = self else { return nil }
        return context
    }

    /// Why not, when refused.
    public var refusal: AppRefusal? {
        guard case .refused(let refusal) = self else { return nil }
        return refusal
    }
}

extension DeviceAction {
    /// This action for a message of an app that cannot send: a send becomes `rejected` with the refusal's code,
    /// anything else stays.
    public func refused(_ refusal: AppRefusal) -> DeviceAction {
        guard case .send = self else { return self }
        return .rejected(reason: refusal.rawValue)
    }
}

/// The apps a message's `appID` selects (its APNs topic and FCM project). The empty `appID` is the default app.
public protocol AppContexts: Sendable {
    /// What planning a message of `appID` uses now.
    func standing(ofApp appID: String) -> AppStanding
}

/// One app for every `appID`: the deployment of a single APNs key and FCM project (no `PUSH_APPS_DIR`).
public struct SingleApp: AppContexts {
    public let context: ProviderContext

    public init(_ context: ProviderContext) {
        self.context = context
    }

    public func standing(ofApp appID: String) -> AppStanding { .ready(context) }
}
