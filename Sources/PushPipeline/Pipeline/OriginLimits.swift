import Essentials
import Synchronization

/// The in-flight limit of each push-service origin (Web Push), so that a slow or stalling service holds at most
/// `limit` sends, and no more of its provider's or of all providers' in-flight sends than that.
///
/// An origin has a limiter only while some send to it holds or waits for a permit, so the table never holds more
/// origins than there are sends under way, whatever origins the registry names.
final class OriginLimits: Sendable {
    private struct Entry {
        let limiter: AsyncLimiter
        /// Sends holding or waiting for one of its permits.
        var users: Int
    }

    let limit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a permit of `origin`'s limit, waiting while its sends are at the limit. Every successful `acquire` needs
    /// one `release`.
    func acquire(_ origin: String) async throws(AsyncLimiter.Refusal) {
        let limiter = entries.withLock { [limit] entries in
            let limiter = entries[origin]?.limiter ?? AsyncLimiter(limit: limit)
            entries[origin] = Entry(limiter: limiter, users: (entries[origin]?.users ?? 0) + 1)
            return limiter
        }
        do {
            try await limiter.acquire()
        } catch {
            leave(origin)
            throw error
        }
    }

    /// Returns a permit of `origin`'s limit.
    func release(_ origin: String) {
        let limiter = entries.withLock { $0[origin]?.limiter }
        limiter?.release()
        leave(origin)
    }

    /// How many origins have sends under way (for tests).
    var count: Int { entries.withLock { $0.count } }

    private func leave(_ origin: String) {
        entries.withLock { entries in
            guard var entry = entries[origin] else { return }
            entry.users -= 1
            entries[origin] = entry.users > 0 ? entry : nil
        }
    }
}
