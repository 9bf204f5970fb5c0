import HTTPTypes
import Synchronization

/// A request of a group sent at once (`sendAll`) that passed the checks `send` makes: where it stands in the
/// group, its origin and its method.
struct GroupedRequest {
    let index: Int
    let origin: RequestOrigin
    let method: RequestMethod

    /// The requests either transport can send; each other one is answered at once with its error (which names only
    /// its origin).
    static func checked(
        _ requests: [HTTPRequest], answering answer: (Int, Result<HTTPResponse, HTTPError>) -> Void
    ) -> [GroupedRequest] {
        var checked: [GroupedRequest] = []
        checked.reserveCapacity(requests.count)
        for (index, request) in requests.enumerated() {
            do throws(HTTPError) {
                let (origin, method) = try request.validated(after: checked.last?.origin)
                checked.append(GroupedRequest(index: index, origin: origin, method: method))
            } catch {
                answer(index, .failure(error))
            }
        }
        return checked
    }
}

extension Atomic<UInt64> {
    /// Takes `count` request ids at once; the first of them (the others follow it).
    func reserve(_ count: Int) -> UInt64 {
        let count = UInt64(count)
        return wrappingAdd(count, ordering: .relaxed).newValue &- count &+ 1
    }
}
