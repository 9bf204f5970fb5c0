import Essentials
import HTTPTypes

extension HTTPRequest {
    /// The origin and method of a request either transport can send; `.invalidRequest` naming only the origin
    /// otherwise (the URL's path carries device tokens). `previous`, the origin of the request before it in a group,
    /// is taken as it is when the URL starts with it (a group's requests mostly go to one origin).
    func validated(after previous: RequestOrigin? = nil) throws(HTTPError) -> (
        origin: RequestOrigin, method: RequestMethod
    ) {
        guard var origin = previous.flatMap({ $0.begins(url) ? $0 : nil }) ?? RequestOrigin(url: url) else {
            throw HTTPError(.invalidRequest, "the request URL is not an absolute http(s) URL")
        }
        origin.publicAddressesOnly = publicAddressesOnly
        guard let method = RequestMethod(validating: self) else {
            throw HTTPError(.invalidRequest, "request to \(origin) has an invalid method or a header with a line break")
        }
        return (origin, method)
    }
}

extension AsyncLimiter {
    /// Waits for room for one more request (`maxOutstandingRequests`); `.cancelled` if the transport shut down or
    /// the caller's task was cancelled while waiting.
    func admit() async throws(HTTPError) {
        do {
            try await acquire()
        } catch .closed {
            throw HTTPError(.cancelled, "the HTTP/2 client is shut down")
        } catch {
            throw HTTPError(.cancelled, "the request was cancelled while waiting for room")
        }
    }

    /// Takes room for up to `wanted` more requests (at least one): whatever is free now without waiting, or, when
    /// nothing is, waits for room for one and takes what else came free with it. Each request taken needs one
    /// `release()`. `.cancelled` as `admit()`.
    func admit(upTo wanted: Int) async throws(HTTPError) -> Int {
        let free = acquireFree(upTo: wanted)
        if free > 0 { return free }
        try await admit()
        return 1 + acquireFree(upTo: wanted - 1)
    }
}
