import Foundation
import HTTP2
import HTTPTypes
import IntegrationSupport
import PushCore
import TestSupport
import Testing

@testable import Providers

/// APNs certificate-based authentication over the libcurl transport against the simulator's mutual-TLS
/// listener (what the transport itself makes of certificates: HTTP2Tests' `MutualTLSTests`), and the fresh connection
/// after `ExpiredProviderToken`.
extension EndToEndTests {
    @Suite struct APNsCertificates {
        static let deviceToken = String(repeating: "0f", count: 32)
        static let body = Array(#"{"aps":{"alert":{"loc-key":"im_loc_text","loc-args":["Alice","Hi"]}}}"#.utf8)

        let simulator: PushSimulator

        init() async throws {
            simulator = try await SharedSimulator.reset(clearing: "/control/apns-reset")
        }

        /// An APNs client with certificate auth, sending to the mutual-TLS listener.
        func client(presenting certificate: ClientCertificate?) throws -> APNsClient {
            APNsClient(
                configuration: APNsConfiguration(
                    authentication: .certificate, productionURL: simulator.mutualTLSBaseURL,
                    sandboxURL: simulator.mutualTLSBaseURL),
                transport: try CurlTransport(
                    configuration: HTTP2TransportConfiguration(
                        extraCAFile: simulator.endpoint.caFile, clientCertificate: certificate)))
        }

        func send(_ apns: APNsClient, pushType: String = "alert", topic: String?) async -> DeliveryOutcome {
            var headers = [HTTPHeader("apns-push-type", pushType), HTTPHeader("apns-priority", "10")]
            if let topic { headers.append(HTTPHeader("apns-topic", topic)) }
            return await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: headers, body: Self.body)
        }

        @Test func aClientCertificateWithAnEncryptedKeyDeliversWithoutAuthorizationHeader() async throws {
            let issued = try await simulator.apnsClientCertificate(password: "s3cret pass")
            let apns = try client(
                presenting: ClientCertificate(
                    certificateFile: issued.certificateFile, keyFile: issued.keyFile, keyPassword: "s3cret pass"))
            #expect(await send(apns, topic: "com.example.chat").className == "delivered")
            #expect(await send(apns, topic: nil).className == "delivered")  // APNs takes the certificate's topic
            let requests = try await simulator.requests()
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.clientCertificate && $0.headers["authorization"] == nil })
        }

        @Test func theCertificateAllowsOnlyItsOwnTopicAndItsVoipVariant() async throws {
            let issued = try await simulator.apnsClientCertificate(topic: "com.example.chat")
            let apns = try client(
                presenting: ClientCertificate(certificateFile: issued.certificateFile, keyFile: issued.keyFile))
            #expect(await send(apns, pushType: "voip", topic: "com.example.chat.voip").className == "delivered")
            #expect(
                await send(apns, topic: "com.example.chat.beta") == .rejected(status: 400, reason: "TopicDisallowed"))
        }

        @Test func noClientCertificateIsACredentialsFailure() async throws {
            let outcome = await send(try client(presenting: nil), topic: "com.example.chat")
            #expect(outcome == .credentials(status: nil, reason: "transport: tls"))
        }

        @Test func aCertificateFromAnotherCAIsACredentialsFailure() async throws {
            let issued = try await simulator.apnsClientCertificate(unrelatedCA: true)
            let certificate = ClientCertificate(certificateFile: issued.certificateFile, keyFile: issued.keyFile)
            #expect(
                await send(try client(presenting: certificate), topic: "com.example.chat")
                    == .credentials(status: nil, reason: "transport: tls"))
            #expect(try await simulator.requests().isEmpty)
        }

        @Test(arguments: HTTP2TransportKind.allCases)
        func afterExpiredProviderTokenTheRenewedRequestGoesOutOnANewConnection(_ kind: HTTP2TransportKind)
            async throws
        {
            let credentials = try await simulator.apnsCredentials()
            let clock = ManualClock(Date())
            let apns = try simulator.apnsClient(
                key: credentials.signingKey(),
                transport: HTTP2TransportConfiguration(
                    maxConnectionsPerHost: 1, extraCAFile: simulator.endpoint.caFile),
                kind: kind, clock: clock)
            let alert = [HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-topic", "com.example.chat")]
            #expect(
                await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: alert, body: Self.body)
                    .className == "delivered")
            // APNs' clock runs ahead: it finds the token older than an hour while ours says 45 minutes.
            clock.advance(by: .seconds(45 * 60))
            try await simulator.advanceClock(by: .seconds(61 * 60))
            #expect(
                await apns.send(deviceToken: Self.deviceToken, sandbox: false, headers: alert, body: Self.body)
                    .className == "delivered")
            let requests = try await simulator.requests()
            #expect(requests.map(\.status) == [200, 403, 200])
            guard requests.count == 3 else { return }
            #expect(requests[1].connection == requests[0].connection)
            #expect(requests[2].connection != requests[1].connection)
            #expect(try await simulator.stats().connectionsOpened == 2)
            // The old connection was closed for the new one (libcurl: at its one-connection limit, the idle oldest;
            // nghttp2: the drained one, once its last stream ended).
            var stillOpen = true
            for _ in 0..<50 where stillOpen {
                let open = try await simulator.control("GET", "/stats", as: OpenConnections.self).openConnectionIds
                stillOpen = open.contains(requests[1].connection)
                if stillOpen { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(!stillOpen)
        }

        /// The ids of the simulator's open connections (`GET /stats`).
        struct OpenConnections: Decodable {
            let openConnectionIds: [Int]
        }
    }
}
