/// How many of an origin's requests the libcurl transport keeps in flight once its server has refused a stream.
///
/// libcurl 7.88 assumes 100 streams a connection until the server's SETTINGS arrive, sends at a new connection
/// every stream it holds, and closes a connection that refused one; a server allowing fewer refuses the rest
/// (REFUSED_STREAM) at every new connection, and resending them all at once opens the next. So each refusal halves
/// the requests the origin may have in flight (at least one), and every response adds one back, up to `bound`:
/// about doubling per round trip while the server takes them.
struct AcceptedStreams: Equatable {
    /// The configured bound (`maxConnectionsPerHost × maxStreamsPerConnection`).
    let bound: Int
    /// Requests allowed in flight now.
    private(set) var allowed: Int

    init(bound: Int) {
        self.bound = max(1, bound)
        allowed = self.bound
    }

    /// Whether the allowance is back at its bound (nothing left to remember).
    var isAtBound: Bool { allowed == bound }

    /// Notes a refused request, `stillInFlight` being the origin's requests in flight without it: half of what
    /// was allowed or is in flight, whichever is less.
    mutating func refused(stillInFlight: Int) {
        allowed = max(1, min(allowed, stillInFlight) / 2)
    }

    /// Notes a response from the origin.
    mutating func answered() {
        allowed = min(bound, allowed + 1)
    }
}
