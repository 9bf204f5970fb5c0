import Testing

@testable import PushPipeline

@Suite struct ArrivalQueueTests {
    @Test func valuesPutBeforeTheWaitComeInOneBunch() async {
        let queue = ArrivalQueue<String>()
        queue.put(2, "c")
        queue.put(0, "a")
        let bunch = await queue.next()
        #expect(bunch?.map(\.index) == [2, 0])
        #expect(bunch?.map(\.value) == ["c", "a"])
    }

    @Test func aValuePutWhileTheTaskWaitsResumesIt() async {
        let queue = ArrivalQueue<Int>()
        async let taken = queue.next()
        try? await Task.sleep(for: .milliseconds(10))
        queue.put(1, 42)
        #expect(await taken?.map(\.value) == [42])
    }

    @Test func finishEndsTheWaitOnceEverythingWasTaken() async {
        let queue = ArrivalQueue<Int>()
        queue.put(0, 1)
        queue.finish()
        #expect(await queue.next()?.count == 1)
        #expect(await queue.next() == nil)
        async let waiting = ArrivalQueueTests.nextAfterFinish()
        #expect(await waiting)
    }

    /// A task already waiting when `finish` comes is resumed with nothing.
    private static func nextAfterFinish() async -> Bool {
        let queue = ArrivalQueue<Int>()
        async let taken = queue.next()
        try? await Task.sleep(for: .milliseconds(10))
        queue.finish()
        return await taken == nil
    }

    /// With several producers the values end only once the last one finished; a producer added after all had
    /// finished (by the waiting task, before it waits again) opens the queue again.
    @Test func theValuesEndOnceEveryProducerFinished() async {
        let queue = ArrivalQueue<Int>(producers: 0)
        queue.addProducer()
        queue.addProducer()
        queue.put(0, 10)
        queue.finish()
        #expect(await queue.next()?.map(\.value) == [10])
        queue.finish()
        #expect(await queue.next() == nil)
        queue.addProducer()
        queue.put(1, 11)
        #expect(await queue.next()?.map(\.value) == [11])
        queue.finish()
        #expect(await queue.next() == nil)
    }
}
