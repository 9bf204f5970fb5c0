import HTTPTypes
import PushCore

extension DeliveryOutcome {
    /// The outcome of a request that got no response.
    init(transportError error: HTTPError) {
        let reason = "transport: \(error.kind)"
        switch error.kind {
        case .connect, .timeout, .connectionLost, .cancelled:
            self = .retry(status: nil, reason: reason, after: nil)
        case .tls:
            // Trust or client-certificate configuration: nothing about this message, and retrying won't fix it.
            self = .credentials(status: nil, reason: reason)
        case .invalidRequest, .addressRefused:
            self = .rejected(status: nil, reason: reason)
        }
    }
}
