import Synchronization

/// What a transport counted since it started; the worker samples it into `push_http_connections_total` and
/// `push_http_resends_total`.
public struct HTTP2TransportCounts: Sendable, Equatable {
    /// Connections opened to servers (with libcurl: the new connections its transfers needed).
    public var connectionsOpened: Int
    /// Requests sent again after the server refused them (REFUSED_STREAM, GOAWAY) or their connection was lost
    /// before any response byte.
    public var resends: Int
    /// Responses that went past `HTTP2TransportConfiguration.maxResponseBytes`: each failed its request, and its
    /// stream was reset.
    public var oversizedResponses: Int

    public init(connectionsOpened: Int = 0, resends: Int = 0, oversizedResponses: Int = 0) {
        self.connectionsOpened = connectionsOpened
        self.resends = resends
        self.oversizedResponses = oversizedResponses
    }

    /// The counts of several transports together.
    public static func + (left: Self, right: Self) -> Self {
        Self(
            connectionsOpened: left.connectionsOpened + right.connectionsOpened, resends: left.resends + right.resends,
            oversizedResponses: left.oversizedResponses + right.oversizedResponses)
    }
}

/// The counters behind `HTTP2TransportCounts`: written by a transport's thread, read by any.
final class TransportCounters: Sendable {
    private let connections = Atomic<Int>(0)
    private let resends = Atomic<Int>(0)
    private let oversized = Atomic<Int>(0)

    func connectionsOpened(_ count: Int = 1) { connections.add(count, ordering: .relaxed) }
    func resent() { resends.add(1, ordering: .relaxed) }
    func oversizedResponse() { oversized.add(1, ordering: .relaxed) }

    var counts: HTTP2TransportCounts {
        HTTP2TransportCounts(
            connectionsOpened: connections.load(ordering: .relaxed), resends: resends.load(ordering: .relaxed),
            oversizedResponses: oversized.load(ordering: .relaxed))
    }
}
