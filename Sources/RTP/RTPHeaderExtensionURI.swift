/// The header extensions this module writes: their SDP `a=extmap` URIs (RFC 8285 §5) and the
/// IDs used unless the session negotiates others. The defaults are the IDs Chrome offers, so an
/// SDP written with them reads the same as a browser's (abs-capture-time, which Chrome offers only
/// when a page asks for it, takes an ID Chrome leaves free).
public enum RTPHeaderExtensionURI {
    public static let videoOrientation = "urn:3gpp:video-orientation"
    public static let absoluteSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    public static let transportWideSequenceNumber = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let absoluteCaptureTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    public static let playoutDelay = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    /// RFC 9143 §15.
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852 §4.3.
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// RFC 8852 §4.4.
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"

    public static let defaultVideoOrientationID: UInt8 = 13
    public static let defaultAbsoluteSendTimeID: UInt8 = 2
    public static let defaultTransportWideSequenceNumberID: UInt8 = 3
    public static let defaultAbsoluteCaptureTimeID: UInt8 = 9
    public static let defaultPlayoutDelayID: UInt8 = 12
    public static let defaultMIDID: UInt8 = 4
    public static let defaultRTPStreamIDID: UInt8 = 10
    public static let defaultRepairedRTPStreamIDID: UInt8 = 11
}
