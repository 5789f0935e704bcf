import Capture
import Foundation
import MediaCore
import Testing

@Suite struct TestPatternSourceTests {
    @Test func theSameIndexAndSizeGiveTheSamePicture() {
        let renderer = TestPatternRenderer(width: 320, height: 180)
        let a = I420Buffer(width: 320, height: 180), b = I420Buffer(width: 320, height: 180)
        renderer.render(index: 42, into: a)
        TestPatternRenderer(width: 320, height: 180).render(index: 42, into: b)
        #expect(Array(a.bytes) == Array(b.bytes))
        renderer.render(index: 43, into: b)
        #expect(Array(a.bytes) != Array(b.bytes))
    }

    @Test(arguments: [0, 1, 1234, 65535])
    func theBarcodeCarriesTheIndex(index: Int) {
        let renderer = TestPatternRenderer(width: 640, height: 360)
        let buffer = I420Buffer(width: 640, height: 360)
        renderer.render(index: index, into: buffer)
        #expect(TestPatternRenderer.readIndex(from: buffer) == index)
    }

    @Test(arguments: [(1, 1), (3, 5), (33, 17)])
    func tinyPicturesRenderWithoutTheBarcode(width: Int, height: Int) {
        let buffer = I420Buffer(width: width, height: height)
        TestPatternRenderer(width: width, height: height).render(index: 99, into: buffer)
        #expect(TestPatternRenderer.readIndex(from: buffer) == nil)
    }

    @Test func deliversConsecutiveFramesWithRotationMetadata() {
        let source = TestPatternSource(width: 160, height: 96, fps: 30, pace: .fast, rotation: .deg90)
        let frames = Array(CollectingDelegate.capture(source, start: source.startCapture, limit: 10).frames.prefix(10))
        #expect(frames.count == 10)
        #expect(frames.allSatisfy { $0.rotation == .deg90 && $0.width == 160 })
        #expect(frames.map { TestPatternRenderer.readIndex(from: $0.buffer) } == Array(0..<10))
    }

    @Test func stopMeansNoMoreCalls() {
        let source = TestPatternSource(width: 64, height: 48, pace: .fast)
        let delegate = CollectingDelegate(limit: 3)
        source.delegate = delegate
        source.startCapture()
        delegate.waitForEnd()
        source.stopCapture()
        let count = delegate.state.withLock { $0.frames.count }
        usleep(50_000)
        #expect(delegate.state.withLock { $0.frames.count } == count)
    }
}
