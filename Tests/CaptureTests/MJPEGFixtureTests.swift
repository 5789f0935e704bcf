@testable import FakeV4L2
import Foundation
import Testing

/// The fake camera's MJPEG frames are compiled in from Sources/FakeV4L2/Fixtures by
/// scripts/embed-mjpeg-fixture.py; a fixture changed without running it fails here.
@Suite struct MJPEGFixtureTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FakeV4L2/Fixtures")

    @Test(arguments: FakeMJPEGFrames.sizes)
    func theCompiledInFramesAreTheFixtureFiles(size: FakeFrameSize) throws {
        let frames = FakeMJPEGFrames.frames(at: size)
        #expect(frames.count == FakeMJPEGFrames.framesPerSize)
        for (index, frame) in frames.enumerated() {
            let file = Self.fixtures.appendingPathComponent("pattern-\(size)-\(index).jpg")
            #expect(frame == [UInt8](try Data(contentsOf: file)), "pattern-\(size)-\(index).jpg")
        }
    }
}
