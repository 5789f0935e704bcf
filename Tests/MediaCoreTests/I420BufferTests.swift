import MediaCore
import Testing

@Suite struct I420BufferTests {
    @Test(arguments: [(1, 1), (2, 2), (33, 17), (641, 361), (1280, 720)])
    func oddSizesHaveRoundedUpChroma(width: Int, height: Int) {
        let buffer = I420Buffer(width: width, height: height)
        #expect(buffer.chromaWidth == (width + 1) / 2)
        #expect(buffer.chromaHeight == (height + 1) / 2)
        #expect(buffer.strideY == width)
        #expect(buffer.strideU == buffer.chromaWidth)
        #expect(buffer.bytes.count == width * height + 2 * buffer.chromaWidth * buffer.chromaHeight)
        #expect(buffer.dataU - buffer.dataY == width * height)
        #expect(buffer.dataV - buffer.dataU == buffer.chromaWidth * buffer.chromaHeight)
        #expect(I420Buffer.byteCount(width: width, height: height) == buffer.bytes.count)
    }

    @Test func fillSetsEachPlane() {
        let buffer = I420Buffer(width: 5, height: 3)
        buffer.fill(y: 10, u: 20, v: 30)
        #expect(Array(UnsafeBufferPointer(start: buffer.dataY, count: 15)) == Array(repeating: 10, count: 15))
        #expect(Array(UnsafeBufferPointer(start: buffer.dataU, count: 6)) == Array(repeating: 20, count: 6))
        #expect(Array(UnsafeBufferPointer(start: buffer.dataV, count: 6)) == Array(repeating: 30, count: 6))
    }
}

@Suite struct I420BufferPoolTests {
    @Test func releasedBuffersAreReused() {
        let pool = I420BufferPool(capacity: 3)
        for _ in 0..<100 {
            let buffer = pool.makeBuffer(width: 64, height: 48)
            #expect(buffer != nil)
        }
        #expect(pool.allocationCount == 1)
    }

    @Test func heldBuffersAreNotHandedOutTwice() {
        let pool = I420BufferPool(capacity: 2)
        let first = pool.makeBuffer(width: 8, height: 8)
        let second = pool.makeBuffer(width: 8, height: 8)
        #expect(first != nil && second != nil && first !== second)
        #expect(pool.makeBuffer(width: 8, height: 8) == nil)
        _ = first
    }

    @Test func aNewSizeReplacesThePooledBuffers() {
        let pool = I420BufferPool(capacity: 2)
        _ = pool.makeBuffer(width: 8, height: 8)
        let resized = pool.makeBuffer(width: 16, height: 4)
        #expect(resized?.width == 16 && resized?.height == 4)
        #expect(pool.allocationCount == 2)
    }
}
