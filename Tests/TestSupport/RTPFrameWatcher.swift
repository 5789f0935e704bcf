import RTP

extension LoopbackSocket {
    /// Receives RTP until `count` frames have ended (packets with the marker bit), calling
    /// `onFrame` with the running count after each. Returns the frames seen, fewer than `count`
    /// only when nothing arrived for `idleTimeoutMilliseconds`: the test waits for the stream itself,
    /// not for the clock.
    @discardableResult
    public func waitForFrames(
        _ count: Int, idleTimeoutMilliseconds: Int32 = TestPatience.milliseconds, onFrame: (Int) -> Void = { _ in }
    ) -> Int {
        var frames = 0
        while frames < count, let packet = receive(timeoutMilliseconds: idleTimeoutMilliseconds) {
            guard let header = try? RTPHeader(parsing: packet), header.marker else { continue }
            frames += 1
            onFrame(frames)
        }
        return frames
    }
}
