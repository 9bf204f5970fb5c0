import Foundation
import IngressServer
import IntegrationSupport
import Synchronization
import Testing

/// One unauthenticated client holding 1,100 connections from one address, each sending a partial request head and
/// one more header line every 4 s (under the 10 s idle timeout), against the ingress with its default limits.
@Suite(.serialized) struct IngressSlowClientsTests {
    /// The slow client: keeps `count` connections from `source`, each with a request head it never finishes, and
    /// connects again whenever the ingress closed one.
    final class SlowClient: Sendable {
        let port: Int
        let count: Int
        private let stopped = Atomic(false)
        private let reconnects = Atomic(0)

        init(port: Int, count: Int) {
            self.port = port
            self.count = count
        }

        /// Connections made again after the ingress closed them.
        var reconnected: Int { reconnects.load(ordering: .relaxed) }

        func stop() { stopped.store(true, ordering: .relaxed) }

        /// Runs on its own thread until `stop()`.
        func start() {
            Thread.detachNewThread { [self] in
                var sockets = [Int32](repeating: -1, count: count)
                while !stopped.load(ordering: .relaxed) {
                    for index in sockets.indices where !stopped.load(ordering: .relaxed) {
                        if sockets[index] >= 0, Self.isOpen(sockets[index]),
                            LoopbackClient.write(sockets[index], "X-Slow: 1\r\n")
                        {
                            continue
                        }
                        if sockets[index] >= 0 {
                            close(sockets[index])
                            reconnects.add(1, ordering: .relaxed)
                        }
                        sockets[index] = (try? LoopbackClient.connect(port: port, source: "127.0.0.2")) ?? -1
                        if sockets[index] >= 0 {
                            _ = LoopbackClient.write(sockets[index], "POST /imkit/push/v2 HTTP/1.1\r\nHost: x\r\n")
                        }
                    }
                    for _ in 0..<40 where !stopped.load(ordering: .relaxed) { usleep(100_000) }
                }
                for socket in sockets where socket >= 0 { close(socket) }
            }
        }

        /// Whether the server has not closed `socket`.
        private static func isOpen(_ socket: Int32) -> Bool {
            var byte: UInt8 = 0
            let count = recv(socket, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        }
    }

    /// How many of the legitimate requests posted for `duration` (from 127.0.0.1, `lanes` at a time) were answered
    /// 200 within 1 s, of how many.
    static func legitimateRequests(port: Int, lanes: Int, for duration: Duration) -> (fast: Int, total: Int) {
        let counts = Mutex((fast: 0, total: 0))
        let end = ContinuousClock.now + duration
        DispatchQueue.concurrentPerform(iterations: lanes) { _ in
            while ContinuousClock.now < end {
                let started = ContinuousClock.now
                let reply = try? LoopbackClient.post(
                    port: port, "/imkit/push/v2", body: IngressEndToEndTests.v2, headers: ["IM-API-KEY: new-key"],
                    timeoutSeconds: 5)
                let fast = reply?.status == 200 && started.duration(to: .now) <= .seconds(1)
                counts.withLock { counts in
                    counts.total += 1
                    if fast { counts.fast += 1 }
                }
            }
        }
        return counts.withLock { $0 }
    }

    @Test(arguments: [
        // The defaults: 256 connections per address, 10 s for a request's head and body, 1,024 connections.
        [:],
        // As behind a proxy, every connection from one address: the slots are reclaimed from the slowest requests.
        ["PUSH_INGRESS_MAX_CONNECTIONS_PER_ADDRESS": "65536"],
    ])
    func slowRequestHeadsFromOneAddressLeaveTheIngressAnsweringOthersWithinASecond(
        environment: [String: String]
    ) async throws {
        let fixture = try await IngressEndToEndTests.Fixture(environment: environment)
        let port = fixture.ingress.port
        let slow = SlowClient(port: port, count: 1_100)
        slow.start()
        try await Task.sleep(for: .seconds(3))
        let (fast, total) = await Task.detached {
            Self.legitimateRequests(port: port, lanes: 4, for: .seconds(20))
        }.value
        slow.stop()
        print(
            "slow heads \(environment): \(fast) of \(total) legitimate requests answered 200 within 1 s, "
                + "\(slow.reconnected) slow connections closed and made again")
        await fixture.stop()
        #expect(total >= 100)
        #expect(Double(fast) >= 0.99 * Double(total))
    }
}
