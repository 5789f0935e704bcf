/// Extends 16-bit transport-wide sequence numbers from feedback to the sender's 64-bit count:
/// the value nearest the newest number sent.
struct TransportSequenceNumberUnwrapper {
    func unwrap(_ value: UInt16, newestSent: Int64) -> Int64 {
        let newestLow = UInt16(truncatingIfNeeded: newestSent)
        let behind = Int64(Int16(bitPattern: newestLow &- value))
        return newestSent - behind
    }
}
