import HTTPTypes

/// The response headers a transport keeps (`HTTP2TransportConfiguration.keptResponseHeaders`), told by a header's name
/// as its bytes arrive, before any string is made of it. Providers answer with headers their clients never read
/// (FCM's `vary`, `alt-svc`, `cache-control`, …): each kept one is two strings in the response.
public struct KeptResponseHeaders: Sendable {
    /// The names kept, as given (compared regardless of ASCII case); `nil`: every header is.
    private let names: [[UInt8]]?

    /// Every header a response has.
    public static let all = KeptResponseHeaders(names: nil)

    /// Only the headers named (in any case); the others are counted towards the response's bound and dropped.
    public init(_ names: [String]) {
        self.init(names: names.map { Array($0.utf8) })
    }

    private init(names: [[UInt8]]?) {
        self.names = names
    }

    /// Whether a header named `name` (its bytes as received) is kept.
    func keeps(_ name: some Collection<UInt8>) -> Bool {
        guard let names else { return true }
        let count = name.count
        return names.contains { $0.count == count && name.elementsEqualIgnoringASCIICase($0) }
    }
}
