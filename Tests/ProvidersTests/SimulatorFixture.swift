import Essentials
import Foundation
import HTTP2
import IntegrationSupport
import Providers
import TestSupport
import Testing

/// The end-to-end suites, run one test at a time: they share one simulator and its faults, clock and counters.
@Suite(.serialized) enum EndToEndTests {}

/// One push simulator (apns, fcm and oauth routes) shared by the end-to-end suites of this test process; it
/// exits by itself when the process ends (`--exit-on-stdin-eof`). Suites using it are `.serialized` and reset
/// what they touch first.
enum SharedSimulator {
    private static let started = Task { try await PushSimulator.start() }

    static func get() async throws -> PushSimulator { try await started.value }

    /// The shared simulator with its faults and clock reset and the counters of `route` (its control path,
    /// `/control/apns-reset` say) cleared: what each end-to-end test starts from.
    static func reset(clearing route: String) async throws -> PushSimulator {
        let simulator = try await get()
        try await simulator.reset()
        try await simulator.resetClock()
        _ = try await simulator.control("POST", route)
        return simulator
    }
}

struct APNsStats: Decodable {
    let accepted: Int
    let providerTokensSeen: Int
    let rejections: [String: Int]
}

struct OAuthStats: Decodable {
    let tokenRequests: Int
    let tokensIssued: Int
}

struct FCMStats: Decodable {
    let accepted: Int
    let rejections: [String: Int]
}

extension APNsCredentials {
    /// The provider-token signing key these credentials name.
    func signingKey() throws -> APNsSigningKey {
        try APNsSigningKey(pem: String(contentsOfFile: keyFile, encoding: .utf8), keyId: keyId, teamId: teamId)
    }
}

extension PushSimulator {
    /// Moves the simulated clock (APNs token ages, OAuth expiry) forward.
    func advanceClock(by duration: Duration) async throws {
        _ = try await control("POST", "/control/clock", body: #"{"advance":\#(duration.components.seconds)}"#)
    }

    /// Sets the simulated clock back to real time.
    func resetClock() async throws {
        _ = try await control("POST", "/control/clock", body: #"{"reset":true}"#)
    }

    /// An APNs client signing provider tokens with `key` and sending to the simulator (both environments) over
    /// a transport of `kind` with the `transport` settings, by default trusting the simulator's CA.
    func apnsClient(
        key: APNsSigningKey, transport: HTTP2TransportConfiguration? = nil, kind: HTTP2TransportKind = .curl,
        clock: any WallClock = SystemWallClock()
    ) throws -> APNsClient {
        APNsClient(
            configuration: APNsConfiguration(authentication: .token(key), productionURL: baseURL, sandboxURL: baseURL),
            transport: try kind.make(transport ?? HTTP2TransportConfiguration(extraCAFile: endpoint.caFile)),
            clock: clock)
    }

    /// A libcurl HTTP/2 client trusting the simulator's CA.
    func transport() throws -> CurlTransport {
        try CurlTransport(configuration: HTTP2TransportConfiguration(extraCAFile: endpoint.caFile))
    }
}

/// Runs `operation` `count` times with at most `width` in flight, returning the results in completion order.
func concurrently<T: Sendable>(
    _ count: Int, width: Int, _ operation: @escaping @Sendable (Int) async -> T
) async -> [T] {
    await withTaskGroup(of: T.self) { group in
        var results: [T] = []
        results.reserveCapacity(count)
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { await operation(index) }
            next += 1
        }
        while let result = await group.next() {
            results.append(result)
            if next < count {
                let index = next
                group.addTask { await operation(index) }
                next += 1
            }
        }
        return results
    }
}
