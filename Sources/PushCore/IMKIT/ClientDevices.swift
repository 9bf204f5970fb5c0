/// One client's devices in one app, looked up in the registry: the ones a provider sends to, with their language,
/// and the ones that get no send, with why.
///
/// No device → one `no_devices` (platform `none`); `notificationEnabled: false` → every device `notifications_off`;
/// the planner decides the rest (a `web` device of an app without VAPID keys: `platform`). At most `maximumDevices` devices, in the registry's
/// order, so one client cannot take the pipeline's device budget. Shared by IMKIT messages and custom pushes.
public struct ClientDevices: Sendable {
    /// The devices to push to, each with the device's `locale`, else the client's.
    public var reachable: [(device: Device, locale: LanguageTag?)] = []
    public var unsent: [UnsentDevice] = []
    /// The client's settings record, `nil` when it has none.
    public var settings: ClientSettings?

    public init(of client: ClientKey, in directory: some DeviceDirectory, maximumDevices: Int) {
        let subscriptions = directory.subscriptions(of: client).prefix(maximumDevices)
        settings = directory.settings(of: client)
        guard !subscriptions.isEmpty else {
            unsent.append(UnsentDevice(clientID: client.clientID, platform: "none", token: nil, reason: .noDevices))
            return
        }
        for subscription in subscriptions {
            if settings?.notificationEnabled == false {
                unsent.append(
                    UnsentDevice(
                        clientID: client.clientID, platform: subscription.type.platform.rawValue,
                        token: subscription.token, reason: .notificationsOff))
            } else {
                reachable.append((subscription.device, subscription.locale ?? settings?.locale))
            }
        }
    }
}
