import Essentials
import PushCore

extension PlannedDevice {
    /// A registry device, or a client without devices, that gets no send: `skipped` with its reason, named by the
    /// token's hash (none for a client without devices).
    init(unsent: UnsentDevice) {
        self.init(
            target: DeviceTarget(
                userId: unsent.clientID, platform: unsent.platform, token: unsent.token ?? "",
                tokenHash: unsent.token.map(SHA256.tokenHash) ?? ""),
            decision: .skipped(reason: unsent.reason))
    }
}
