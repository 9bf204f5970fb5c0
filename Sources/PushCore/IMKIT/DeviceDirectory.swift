/// Where an IMKIT message's clients are looked up: the device registry and the client settings, as tables.
public protocol DeviceDirectory: Sendable {
    /// The subscriptions of `client`, in a stable order (by type, then device id byte by byte).
    func subscriptions(of client: ClientKey) -> [Subscription]
    /// The settings of `client`; `nil` for a client without a settings record (the defaults apply).
    func settings(of client: ClientKey) -> ClientSettings?
}
