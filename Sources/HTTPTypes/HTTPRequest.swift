/// A request to send over HTTP/2.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The absolute URL, e.g. `https://api.push.apple.com/3/device/<token>`.
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// The longest the whole exchange may take, from being queued to the last byte of the response.
    public var deadline: Duration
    /// Sends the request on a newly opened connection rather than a pooled one (after a provider rejected what
    /// a connection carried). At the per-host connection limit, libcurl closes the oldest idle connection to
    /// that origin to make room, so the new connection replaces it; the nghttp2 transport drains the origin's
    /// connections (no new streams; each closes once its last stream ended).
    public var freshConnection: Bool
    /// Connects only to public addresses (`PublicAddress`): when the host resolves to none, the request fails with
    /// `.addressRefused` and nothing is connected to. Checked on the addresses connected to, so a second lookup
    /// cannot answer otherwise; the nghttp2 transport keeps these connections apart from others to the same origin.
    public var publicAddressesOnly: Bool
    /// Until a request to its origin has been answered 2xx, the origin has one request in flight at a time (APNs
    /// token auth: APNs takes one stream per connection until a request with a valid provider token succeeded). Once
    /// one such request was sent to an origin, the rule holds for all of that origin's requests; an origin none of
    /// whose requests asks for it (FCM, Web Push services) is never held to one.
    public var oneStreamUntilOriginSucceeds: Bool

    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], deadline: Duration,
        freshConnection: Bool = false, publicAddressesOnly: Bool = false, oneStreamUntilOriginSucceeds: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.freshConnection = freshConnection
        self.publicAddressesOnly = publicAddressesOnly
        self.oneStreamUntilOriginSucceeds = oneStreamUntilOriginSucceeds
    }
}
