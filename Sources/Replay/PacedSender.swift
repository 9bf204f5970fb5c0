public import Essentials
public import PushCore
public import PushPipeline
import Synchronization

/// A sender that starts at most `--rate` sends a second, evenly spaced, then sends with `inner`.
public final class PacedSender<Inner: PushSender>: PushSender {
    public typealias Request = Inner.Request

    let inner: Inner
    let clock: any WallClock
    let pacing: Mutex<SendPacing>

    public init(_ inner: Inner, sendsPerSecond: Int, clock: any WallClock) {
        self.inner = inner
        self.clock = clock
        pacing = Mutex(SendPacing(sendsPerSecond: sendsPerSecond))
    }

    public func send(_ request: Request, to provider: PushProvider) async -> DeliveryOutcome {
        let now = clock.nowMicros()
        let wait = pacing.withLock { $0.reserve(nowMicros: now) }
        if wait > 0 { try? await clock.sleep(for: .microseconds(wait)) }
        return await inner.send(request, to: provider)
    }

    public func origin(of request: Request, to provider: PushProvider) -> String? {
        inner.origin(of: request, to: provider)
    }
}
