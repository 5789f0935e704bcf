/// One RTP payload type of an `m=` line with its `a=rtpmap`, `a=fmtp` and `a=rtcp-fb` lines
/// (RFC 8866 section 6.6 and 6.15, RFC 4585 section 4.2).
public struct PayloadFormat: Sendable, Hashable {
    /// 0…127; 96…127 are dynamic (RFC 3551 section 6).
    public var payloadType: UInt8
    /// Nil for a static payload type listed without `a=rtpmap`.
    public var rtpmap: RTPMap?
    /// `a=fmtp` parameters in order; empty means no `a=fmtp` line.
    public var parameters: [FormatParameter]
    /// `a=rtcp-fb` values for this payload type (wildcard ones live on the media section).
    public var feedback: [RTCPFeedback]

    public init(payloadType: UInt8, rtpmap: RTPMap? = nil, parameters: [FormatParameter] = [], feedback: [RTCPFeedback] = []) {
        self.payloadType = payloadType
        self.rtpmap = rtpmap
        self.parameters = parameters
        self.feedback = feedback
    }

    /// VP8 at 90 kHz (RFC 7741 section 6.1).
    public static func vp8(payloadType: UInt8, feedback: [RTCPFeedback] = []) -> PayloadFormat {
        PayloadFormat(payloadType: payloadType, rtpmap: .vp8, feedback: feedback)
    }

    /// `rtx/<rate>` with `apt=<media payload type>` (RFC 4588 section 8.6).
    public static func retransmission(payloadType: UInt8, associatedPayloadType: UInt8, clockRate: UInt32 = 90_000) -> PayloadFormat {
        PayloadFormat(
            payloadType: payloadType, rtpmap: RTPMap(encodingName: "rtx", clockRate: clockRate),
            parameters: [FormatParameter(name: "apt", value: String(associatedPayloadType))])
    }

    /// `red/90000`: RTP payload for redundant data (RFC 2198 section 5), which carries ULPFEC.
    public static func red(payloadType: UInt8) -> PayloadFormat {
        PayloadFormat(payloadType: payloadType, rtpmap: .red)
    }

    /// `ulpfec/90000`: generic forward error correction (RFC 5109 section 14.1).
    public static func ulpfec(payloadType: UInt8) -> PayloadFormat {
        PayloadFormat(payloadType: payloadType, rtpmap: .ulpfec)
    }

    /// The value of the first `a=fmtp` parameter called `name`.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// `apt=`: the media payload type this retransmission format repairs.
    public var associatedPayloadType: UInt8? {
        parameter("apt").flatMap { SDPText.unsigned(Substring($0), as: UInt8.self) }
    }

    public var isRetransmission: Bool { rtpmap?.encodingName.lowercased() == "rtx" }

    /// Whether `a=rtpmap` names this codec (case-insensitive) at this clock rate.
    public func matches(_ codec: RTPMap) -> Bool {
        guard let rtpmap else { return false }
        return rtpmap.encodingName.lowercased() == codec.encodingName.lowercased() && rtpmap.clockRate == codec.clockRate
    }

    var fmtpValue: String? {
        parameters.isEmpty ? nil : "\(payloadType) " + parameters.map(\.sdpText).joined(separator: ";")
    }
}

/// `a=rtpmap:<pt> <encoding name>/<clock rate>[/<encoding parameters>]` (RFC 8866 section 6.6).
public struct RTPMap: Sendable, Hashable {
    public var encodingName: String
    public var clockRate: UInt32
    /// The channel count for audio (`opus/48000/2`), as written.
    public var encodingParameters: String?

    public init(encodingName: String, clockRate: UInt32, encodingParameters: String? = nil) {
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.encodingParameters = encodingParameters
    }

    public static let vp8 = RTPMap(encodingName: "VP8", clockRate: 90_000)
    public static let red = RTPMap(encodingName: "red", clockRate: 90_000)
    public static let ulpfec = RTPMap(encodingName: "ulpfec", clockRate: 90_000)

    var sdpText: String {
        encodingParameters.map { "\(encodingName)/\(clockRate)/\($0)" } ?? "\(encodingName)/\(clockRate)"
    }

    init(sdpText: Substring) throws(SDPParseError.Reason) {
        let parts = sdpText.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty else {
            throw .invalid(field: "a=rtpmap", problem: "expected \"<encoding>/<clock rate>\", found \(quoted(sdpText))")
        }
        encodingName = String(parts[0])
        clockRate = try SDPText.number(parts[1], as: UInt32.self, field: "a=rtpmap", what: "a clock rate")
        encodingParameters = parts.count == 3 ? String(parts[2]) : nil
    }
}

/// One `;`-separated `a=fmtp` parameter: `name=value`, or a bare `name` (RED writes `111/111`).
public struct FormatParameter: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    var sdpText: String { value.map { "\(name)=\($0)" } ?? name }

    /// The parameters of an `a=fmtp` value; blanks around each are dropped.
    static func list(_ text: Substring) -> [FormatParameter] {
        text.unicodeScalars.split(separator: ";").compactMap { piece in
            let piece = SDPText.trimmingBlanks(Substring(piece))
            guard !piece.isEmpty else { return nil }
            guard let (name, value) = SDPText.split(piece, at: "=") else { return FormatParameter(name: String(piece)) }
            return FormatParameter(name: String(SDPText.trimmingBlanks(name)), value: String(SDPText.trimmingBlanks(value)))
        }
    }
}
