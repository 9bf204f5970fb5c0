/// The response headers the provider clients read. A transport that serves only them keeps these
/// (`HTTP2TransportConfiguration.keptResponseHeaders`) and drops the others as they arrive.
public enum ProviderResponseHeader {
    /// APNs' id of the notification, which receipts carry.
    static let apnsID = "apns-id"
    /// When to try again: seconds, or an HTTP date (APNs, FCM, Web Push services, Google's token endpoint).
    static let retryAfter = "retry-after"

    /// Every header a client reads.
    public static let read = [apnsID, retryAfter]
}
