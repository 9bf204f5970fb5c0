import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

@Suite struct TransportFailureTests {
    @Test(arguments: [
        (HTTPError.Kind.connect, "retry"), (.timeout, "retry"), (.connectionLost, "retry"), (.cancelled, "retry"),
        (.tls, "credentials"), (.invalidRequest, "rejected"),
    ])
    func everyTransportErrorHasAClass(kind: HTTPError.Kind, expected: String) {
        #expect(DeliveryOutcome(transportError: HTTPError(kind, "x")).className == expected)
    }
}
