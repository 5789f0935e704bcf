import FrameProcessing
import MediaCore
import Testing

@Suite struct I420TransformTests {
    /// A picture whose luma is its own coordinates, so moved pixels can be traced.
    static func coordinates(width: Int, height: Int) -> I420Buffer {
        let buffer = I420Buffer(width: width, height: height)
        buffer.fill(y: 0, u: 128, v: 128)
        for y in 0..<height {
            for x in 0..<width { buffer.dataY[y * buffer.strideY + x] = UInt8((y * width + x) % 251) }
        }
        return buffer
    }

    @Test func rotate90MovesTopLeftToTopRight() throws {
        let source = Self.coordinates(width: 6, height: 4)
        let rotated = I420Buffer(width: 4, height: 6)
        try I420Transform.rotate(source, by: .deg90, into: rotated)
        // Clockwise: source (x, y) lands at (height - 1 - y, x).
        for y in 0..<4 {
            for x in 0..<6 {
                #expect(rotated.dataY[x * rotated.strideY + (3 - y)] == source.dataY[y * 6 + x])
            }
        }
    }

    @Test(arguments: [(VideoRotation.deg90, VideoRotation.deg270), (.deg180, .deg180), (.deg270, .deg90)])
    func rotationAndItsInverseRestoreThePicture(forward: VideoRotation, back: VideoRotation) throws {
        let source = Self.coordinates(width: 34, height: 18)
        let turned = forward.swapsDimensions ? I420Buffer(width: 18, height: 34) : I420Buffer(width: 34, height: 18)
        let restored = I420Buffer(width: 34, height: 18)
        try I420Transform.rotate(source, by: forward, into: turned)
        try I420Transform.rotate(turned, by: back, into: restored)
        #expect(Array(restored.bytes) == Array(source.bytes))
    }

    @Test func mirrorFlipsRows() throws {
        let source = Self.coordinates(width: 8, height: 2)
        let mirrored = I420Buffer(width: 8, height: 2)
        try I420Transform.mirror(source, into: mirrored)
        #expect(mirrored.dataY[0] == source.dataY[7])
        #expect(mirrored.dataY[8 + 7] == source.dataY[8])
    }

    @Test func wrongRotationSizeIsAnError() {
        #expect(throws: LibyuvError.self) {
            try I420Transform.rotate(I420Buffer(width: 6, height: 4), by: .deg90, into: I420Buffer(width: 6, height: 4))
        }
    }

    @Test func scaleOfACropKeepsTheCroppedContent() throws {
        // Left half black, right half white: cropping the right half and scaling it down is all white.
        let source = I420Buffer(width: 64, height: 32)
        source.fill(y: 16, u: 128, v: 128)
        for row in 0..<32 { (source.dataY + row * 64 + 32).update(repeating: 235, count: 32) }
        let output = I420Buffer(width: 16, height: 16)
        try I420Transform.scale(source, crop: CropRect(x: 32, y: 0, width: 32, height: 32), into: output)
        #expect(UnsafeBufferPointer(start: output.dataY, count: 256).allSatisfy { $0 == 235 })
    }

    @Test func cropOutsideThePictureIsAnError() {
        #expect(throws: LibyuvError.self) {
            try I420Transform.scale(I420Buffer(width: 8, height: 8), crop: CropRect(x: 4, y: 0, width: 8, height: 8),
                                    into: I420Buffer(width: 4, height: 4))
        }
    }
}
