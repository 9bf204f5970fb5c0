import Glibc
import Synchronization

/// The CPU time an event loop's thread has used, readable from any thread: what shows a loop that spins (CPU time
/// growing with wall time while nothing is sent) and what the transport's share of a push costs.
final class ThreadCPUClock: Sendable {
    /// The thread's CPU-time clock (`pthread_getcpuclockid`) while the thread runs.
    private let clock = Mutex<clockid_t?>(nil)
    /// The CPU time the thread had used when it stopped.
    private let final = Mutex<Duration>(.zero)

    /// Starts following the calling thread (the loop's, as its first act).
    func follow() {
        var id = clockid_t()
        guard pthread_getcpuclockid(pthread_self(), &id) == 0 else { return }
        clock.withLock { $0 = id }
    }

    /// Stops following the calling thread (the loop's, as its last act): its clock ends with it.
    func stop() {
        let used = elapsed
        clock.withLock { clock in
            final.withLock { $0 = used }
            clock = nil
        }
    }

    /// The CPU time the followed thread has used (user and system); zero before it started.
    var elapsed: Duration {
        clock.withLock { clock in
            guard let clock else { return final.withLock { $0 } }
            var time = timespec()
            guard clock_gettime(clock, &time) == 0 else { return final.withLock { $0 } }
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
    }
}
