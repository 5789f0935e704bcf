/// A declarative session description for one VP8 video stream (RFC 8866), written by the sender
/// and read by a plain RTP receiver such as ffmpeg, ffplay, GStreamer's sdpdemux or VLC.
///
/// The addresses are where the receiver listens: the destination of the stream. `serialized()`
/// is deterministic, so the same inputs (session id, SSRC, key) give the same bytes.
public struct SessionDescription: Sendable, Hashable {
    /// `o=` (RFC 8866 section 5.2).
    public var origin: Origin
    /// `s=` (RFC 8866 section 5.3); must not be empty, so an empty name is written as `-`.
    public var sessionName: String
    /// `c=` at session level (RFC 8866 section 5.7).
    public var connection: ConnectionAddress
    /// The single `m=video` section.
    public var video: VideoMedia

    public init(origin: Origin, sessionName: String = "camrtp", connection: ConnectionAddress, video: VideoMedia) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.video = video
    }

    /// The text with CRLF line endings (RFC 8866 section 5).
    public func serialized() -> String {
        lines().map { $0 + "\r\n" }.joined()
    }

    /// The lines in RFC 8866 section 5 order, without line endings. A CR or LF inside a value
    /// (which RFC 8866 section 5 forbids) becomes a space, so no value can start a line of its own.
    public func lines() -> [String] {
        unsanitizedLines().map(Self.singleLine)
    }

    private static func singleLine(_ line: String) -> String {
        let isBreak: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" }
        guard line.unicodeScalars.contains(where: isBreak) else { return line }
        return String(String.UnicodeScalarView(line.unicodeScalars.map { isBreak($0) ? " " : $0 }))
    }

    private func unsanitizedLines() -> [String] {
        var lines = [
            "v=0",
            "o=\(origin.username) \(origin.sessionID) \(origin.sessionVersion) IN \(origin.address.sdpText)",
            "s=\(sessionName.isEmpty ? "-" : sessionName)",
            "c=IN \(connection.sdpText)",
            "t=0 0",
        ]
        lines += video.lines()
        return lines
    }
}

/// The `o=` fields (RFC 8866 section 5.2). The session id and version are numbers the writer chooses;
/// NTP-format timestamps are suggested but any stable value works.
public struct Origin: Sendable, Hashable {
    public var username: String
    public var sessionID: UInt64
    public var sessionVersion: UInt64
    public var address: ConnectionAddress

    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64 = 1, address: ConnectionAddress) {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.address = address
    }
}

/// A unicast address with its SDP address type (RFC 8866 section 5.7).
public enum ConnectionAddress: Sendable, Hashable {
    case ipv4(String)
    case ipv6(String)

    /// `IP4 127.0.0.1` or `IP6 ::1`.
    public var sdpText: String {
        switch self {
        case .ipv4(let address): "IP4 \(address)"
        case .ipv6(let address): "IP6 \(address)"
        }
    }
}

/// Where the receiver's RTCP goes.
public enum RTCPAddressing: Sendable, Hashable {
    /// `a=rtcp:PORT` (RFC 3605 section 2.1), for a port other than or equal to RTP + 1.
    case port(UInt16)
    /// `a=rtcp-mux` (RFC 5761 section 5.1.1): RTCP shares the RTP port.
    case multiplexed
}

/// Media direction attribute (RFC 8866 section 6.7), from the sender's side: the stream flows one
/// way, so `sendonly`. GStreamer's sdpdemux and ffmpeg ignore it; RTSP-style readers treat
/// `recvonly` as a back channel and skip it.
public enum MediaDirection: String, Sendable, Hashable {
    case sendonly, recvonly, sendrecv, inactive
}

/// An RTP header extension negotiated with `a=extmap` (RFC 8285 section 5).
public struct HeaderExtensionMapping: Sendable, Hashable {
    /// 1…14 for one-byte headers, up to 255 for two-byte headers.
    public var id: UInt8
    public var uri: String

    public init(id: UInt8, uri: String) {
        self.id = id
        self.uri = uri
    }
}

/// `a=ssrc:SSRC cname:NAME` (RFC 5576 section 4.1), written only for a fixed SSRC.
public struct SourceDescription: Sendable, Hashable {
    public var ssrc: UInt32
    public var cname: String

    public init(ssrc: UInt32, cname: String) {
        self.ssrc = ssrc
        self.cname = cname
    }
}

/// `a=crypto:TAG SUITE inline:KEY` (RFC 4568 section 9.1) for SDES-keyed SRTP.
public struct CryptoAttribute: Sendable, Hashable {
    public var tag: Int
    /// The crypto-suite name, such as `AES_CM_128_HMAC_SHA1_80`.
    public var suite: String
    public var key: InlineKey

    public init(tag: Int = 1, suite: String, key: InlineKey) {
        self.tag = tag
        self.suite = suite
        self.key = key
    }
}

/// Base64 master key ‖ salt for `inline:` (RFC 4568 section 6.1). Redacted in `description`,
/// `debugDescription` and reflection; only the serialized SDP carries it.
public struct InlineKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    let base64: String

    public init(base64: String) {
        self.base64 = base64
    }

    public var description: String { "InlineKey(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// The `m=video` section (RFC 8866 section 5.14) and its attributes.
public struct VideoMedia: Sendable, Hashable {
    /// The RTP port the receiver listens on.
    public var port: UInt16
    /// Dynamic payload type, 96…127 (RFC 3551 section 6).
    public var payloadType: UInt8
    /// `a=rtpmap` encoding name and clock rate: VP8/90000 (RFC 7741 section 6.1).
    public var encodingName: String
    public var clockRate: Int
    public var rtcp: RTCPAddressing?
    /// `a=rtcp-fb:PT VALUE` entries (RFC 4585 section 4.2), such as `nack pli`.
    public var feedback: [String]
    public var extensions: [HeaderExtensionMapping]
    public var source: SourceDescription?
    /// `a=framerate` (RFC 8866 section 6.12).
    public var frameRate: Int?
    /// With a crypto attribute the profile is RTP/SAVP (RFC 3711 section 12), else RTP/AVP.
    public var crypto: CryptoAttribute?
    public var direction: MediaDirection

    public init(
        port: UInt16,
        payloadType: UInt8 = 96,
        encodingName: String = "VP8",
        clockRate: Int = 90_000,
        rtcp: RTCPAddressing? = nil,
        feedback: [String] = [],
        extensions: [HeaderExtensionMapping] = [],
        source: SourceDescription? = nil,
        frameRate: Int? = nil,
        crypto: CryptoAttribute? = nil,
        direction: MediaDirection = .sendonly
    ) {
        self.port = port
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.rtcp = rtcp
        self.feedback = feedback
        self.extensions = extensions
        self.source = source
        self.frameRate = frameRate
        self.crypto = crypto
        self.direction = direction
    }

    /// `RTP/SAVP` with SRTP, else `RTP/AVP`.
    public var transportProtocol: String { crypto == nil ? "RTP/AVP" : "RTP/SAVP" }

    func lines() -> [String] {
        var lines = [
            "m=video \(port) \(transportProtocol) \(payloadType)",
            "a=rtpmap:\(payloadType) \(encodingName)/\(clockRate)",
        ]
        switch rtcp {
        case .port(let rtcpPort): lines.append("a=rtcp:\(rtcpPort)")
        case .multiplexed: lines.append("a=rtcp-mux")
        case nil: break
        }
        lines += feedback.map { "a=rtcp-fb:\(payloadType) \($0)" }
        lines += extensions.map { "a=extmap:\($0.id) \($0.uri)" }
        if let frameRate { lines.append("a=framerate:\(frameRate)") }
        if let crypto { lines.append("a=crypto:\(crypto.tag) \(crypto.suite) inline:\(crypto.key.base64)") }
        if let source { lines.append("a=ssrc:\(source.ssrc) cname:\(source.cname)") }
        lines.append("a=\(direction.rawValue)")
        return lines
    }
}
