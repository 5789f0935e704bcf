// A YUV4MPEG2 stream as `Y4MStreamReader` reads it from a file or a pipe: the stream header
// line (through `Y4MHeader`), then FRAME headers with or without parameters and the frame data.
//
// Input: the stream's bytes, written to a temporary file that the reader reads.

import Capture
import FuzzSupport
import MediaCore

#if canImport(Glibc)
import Glibc
#endif

/// Frames larger than this are not read: the reader would take the header's size (up to
/// 16384 × 16384) at its word and the caller's buffer would cost more than the parsing.
let maximumFrameBytes = 1 << 20
let maximumFrames = 8

nonisolated(unsafe) let file: UnsafeMutablePointer<FILE> = {
    guard let file = tmpfile() else { fatalError("cannot make a temporary file: \(String(cString: strerror(errno)))") }
    return file
}()

fuzz { input in
    let fd = fileno(file)
    guard ftruncate(fd, 0) == 0, pwrite(fd, input.baseAddress, input.count, 0) == input.count,
        lseek(fd, 0, SEEK_SET) == 0
    else { fatalError("cannot write the input: \(String(cString: strerror(errno)))") }

    guard let reader = try? Y4MStreamReader(fileDescriptor: fd, name: "fuzz input") else { return }
    let header = reader.header
    fuzzCheck(VideoLimits.sizeProblem(width: header.width, height: header.height) == nil, "Y4M: size out of range: \(header)")
    fuzzCheck(VideoLimits.frameRateProblem(header.frameRate) == nil, "Y4M: frame rate out of range: \(header)")
    guard header.frameByteCount <= maximumFrameBytes else { return }
    let buffer = I420Buffer(width: header.width, height: header.height)
    for _ in 0..<maximumFrames {
        guard (try? reader.readFrame(into: buffer)) == true else { break }
    }
}
