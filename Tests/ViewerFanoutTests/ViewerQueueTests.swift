import Testing
@testable import ViewerFanout

@Suite struct ViewerQueueTests {
    @Test func aViewerStartsOnAKeyframe() {
        var queue = ViewerQueue(capacity: 4)
        #expect(queue.offer(frame(0, key: false)) == .skipped)
        #expect(queue.offer(frame(1, key: true)) == .queued)
        #expect(queue.offer(frame(2, key: false)) == .queued)
        #expect(queue.takeAll().map(\.timestampNs) == [frame(1, key: true).timestampNs, frame(2, key: false).timestampNs])
        #expect(queue.frames.isEmpty)
    }

    @Test func anOverflowEmptiesTheQueueAndWaitsForTheNextKeyframe() {
        var queue = ViewerQueue(capacity: 2)
        #expect(queue.offer(frame(0, key: true)) == .queued)
        #expect(queue.offer(frame(1, key: false)) == .queued)
        #expect(queue.offer(frame(2, key: false)) == .overflowed(dropped: 3))
        #expect(queue.waitingForKeyframe)
        #expect(queue.offer(frame(3, key: false)) == .skipped)
        #expect(queue.offer(frame(4, key: true)) == .queued)
    }

    @Test func aClosedQueueTakesNothing() {
        var queue = ViewerQueue(capacity: 2)
        queue.close()
        #expect(queue.offer(frame(0, key: true)) == .closed)
    }
}
