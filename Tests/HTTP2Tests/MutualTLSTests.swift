import HTTPTypes
import IntegrationSupport
import TestSupport
import Testing

@testable import HTTP2

/// The transport's side of mutual TLS, against the simulator's listener that requires a certificate of its client
/// CA: what a presented, a missing, a foreign and a locked certificate come to.
@Suite("Mutual TLS")
struct MutualTLSTests {
    /// The echo routes, and the APNs routes for their control command that issues client certificates.
    static let routes = "echo,apns"

    /// One request to the mutual-TLS listener presenting `certificate`: the response, or the transport's error.
    static func send(
        _ kind: HTTP2TransportKind, _ simulator: PushSimulator, presenting certificate: ClientCertificate?
    ) async throws -> Result<
        HTTPResponse, HTTPError
    > {
        let client = try kind.make(
            HTTP2TransportConfiguration(extraCAFile: simulator.endpoint.caFile, clientCertificate: certificate))
        let outcome = await result(
            client, HTTPRequest(method: "GET", url: "\(simulator.mutualTLSBaseURL)/echo", deadline: .seconds(30)))
        await client.shutdown()
        return outcome
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aCertificateOfTheClientCAIsPresentedAndAccepted(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulator(routes: Self.routes) { simulator in
            let issued = try await simulator.apnsClientCertificate(password: "s3cret pass")
            let certificate = ClientCertificate(
                certificateFile: issued.certificateFile, keyFile: issued.keyFile, keyPassword: "s3cret pass")
            #expect(try await Self.send(kind, simulator, presenting: certificate).get().status == 200)
            #expect(try await simulator.requests().map(\.clientCertificate) == [true])
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func noCertificateIsATLSError(_ kind: HTTP2TransportKind) async throws
    {
        try await withSimulator(routes: Self.routes) { simulator in
            let outcome = try await Self.send(kind, simulator, presenting: nil)
            #expect(outcome.failure?.kind == .tls)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aCertificateFromAnotherCAIsATLSErrorSayingItWasProbablyRefused(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulator(routes: Self.routes) { simulator in
            let issued = try await simulator.apnsClientCertificate(unrelatedCA: true)
            let error = try await Self.send(
                kind, simulator,
                presenting: ClientCertificate(certificateFile: issued.certificateFile, keyFile: issued.keyFile)
            ).failure
            #expect(error?.kind == .tls)
            #expect(
                error?.message.contains("probably refused the client certificate") == true,
                "\(String(describing: error))")
            #expect(try await simulator.requests().isEmpty)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func aWrongKeyPasswordIsATLSErrorAboutTheKeyWithoutThePassword(
        _ kind: HTTP2TransportKind
    ) async throws {
        try await withSimulator(routes: Self.routes) { simulator in
            let issued = try await simulator.apnsClientCertificate(password: "right")
            let error = try await Self.send(
                kind, simulator,
                presenting: ClientCertificate(
                    certificateFile: issued.certificateFile, keyFile: issued.keyFile, keyPassword: "wrong")
            ).failure
            #expect(error?.kind == .tls)
            #expect(error?.message.contains("key password") == true)
            #expect(error?.message.contains("wrong") == false)
        }
    }

    @Test(arguments: HTTP2TransportKind.allCases) func unreadableCertificateFilesFailWhenTheClientIsCreated(
        _ kind: HTTP2TransportKind
    ) throws {
        let missing = ClientCertificate(certificateFile: "/nonexistent/cert.pem", keyFile: "/nonexistent/key.pem")
        #expect(throws: HTTPError(.tls, "cannot read the client certificate file /nonexistent/cert.pem")) {
            try kind.make(HTTP2TransportConfiguration(clientCertificate: missing))
        }
    }
}
