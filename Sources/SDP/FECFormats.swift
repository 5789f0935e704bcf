/// The payload types of RED (RFC 2198) and ULPFEC (RFC 5109) in a video section. FEC packets
/// travel as RED blocks, as libwebrtc sends and browsers expect them, so one is of no use
/// without the other.
public struct FECFormats: Sendable, Hashable {
    public var red: UInt8
    public var ulpfec: UInt8

    public init(red: UInt8, ulpfec: UInt8) {
        self.red = red
        self.ulpfec = ulpfec
    }

    /// The first `red/90000` and `ulpfec/90000` of `section`; nil unless it has both.
    public init?(in section: MediaDescription) {
        guard let red = section.firstPayloadFormat(matching: .red), let ulpfec = section.firstPayloadFormat(matching: .ulpfec) else {
            return nil
        }
        self.init(red: red.payloadType, ulpfec: ulpfec.payloadType)
    }

    var payloadFormats: [PayloadFormat] { [.red(payloadType: red), .ulpfec(payloadType: ulpfec)] }
}
