import Lifecycle
import Synchronization
import Testing

/// The shutdown request apart from cancellation: handlers, waits, and work that the request cancels.
@Suite struct GracefulShutdownTests {
    @Test func aHandlerRunsOnceWhenTheRequestComesWhileItsOperationRuns() async {
        let shutdown = GracefulShutdown()
        let calls = Mutex(0)
        await shutdown.withHandler {
            shutdown.request()
            shutdown.request()
        } onRequest: {
            calls.withLock { $0 += 1 }
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(shutdown.isRequested)
    }

    @Test func aHandlerRunsAtOnceWhenTheRequestCameBeforeAndNeverAfterItsOperationReturned() async {
        let early = GracefulShutdown()
        early.request()
        let seenBeforeTheOperation = Mutex(false)
        await early.withHandler {
            #expect(seenBeforeTheOperation.withLock { $0 })
        } onRequest: {
            seenBeforeTheOperation.withLock { $0 = true }
        }

        let late = GracefulShutdown()
        let calls = Mutex(0)
        await late.withHandler {
        } onRequest: {
            calls.withLock { $0 += 1 }
        }
        late.request()
        #expect(calls.withLock { $0 } == 0)
    }

    @Test func waitReturnsWhenTheShutdownIsRequested() async {
        let shutdown = GracefulShutdown()
        async let waited: Void = shutdown.wait()
        shutdown.request()
        await waited
        #expect(shutdown.isRequested)
    }

    @Test func waitReturnsWhenItsTaskIsCancelledWithoutARequest() async {
        let shutdown = GracefulShutdown()
        let waiting = Task { await shutdown.wait() }
        waiting.cancel()
        await waiting.value
        #expect(!shutdown.isRequested)
    }

    @Test func theRequestCancelsTheWorkOfCancelOnRequest() async throws {
        let shutdown = GracefulShutdown()
        let cancelled = Mutex(false)
        async let working: Void = shutdown.cancelOnRequest {
            // Waits, on no clock, until the work is cancelled: a stream nobody writes to ends then.
            let (stream, continuation) = AsyncStream<Never>.makeStream()
            for await _ in stream {}
            withExtendedLifetime(continuation) {}
            cancelled.withLock { $0 = Task.isCancelled }
        }
        shutdown.request()
        try await working
        #expect(cancelled.withLock { $0 })
    }

    @Test func cancelOnRequestRethrowsWhatItsWorkThrowsAndReturnsWhenTheWorkEnds() async {
        struct Failed: Error {}
        let shutdown = GracefulShutdown()
        await #expect(throws: Failed.self) { try await shutdown.cancelOnRequest { throw Failed() } }
        await #expect(throws: Never.self) { try await shutdown.cancelOnRequest {} }
        #expect(!shutdown.isRequested)
    }
}
