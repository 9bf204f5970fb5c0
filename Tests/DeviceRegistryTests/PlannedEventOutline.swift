import PushPipeline

extension PlannedEvent {
    /// The decision of each device as `client platform status/reason`, in the planner's order.
    var outline: [String] {
        devices.map { device in
            let decision: String
            switch device.decision {
            case .send(let provider, _): decision = "send \(provider.rawValue)"
            case .skipped(let reason): decision = "skipped \(reason)"
            case .expired: decision = "expired"
            case .rejected(let reason): decision = "rejected \(reason)"
            case .deadLetter(let reason, _): decision = "dead \(reason)"
            }
            return "\(device.target.userId) \(device.target.platform) \(decision)"
        }
    }
}
