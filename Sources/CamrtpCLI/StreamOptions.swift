import ArgumentParser
import PlainRTP
import RTP
import RTPSession
import Transport

/// How the stream goes on the wire; `send`, `sdp` and `loopback` share these so that the same
/// options give the same session description.
struct StreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Largest RTP packet in bytes, headers and SRTP tag included.", valueName: "bytes"))
    var mtu: Int = 1200

    @Option(help: ArgumentHelp("RTP payload type for VP8, 96...127.", valueName: "pt"))
    var payloadType: Int = 96

    @Option(help: ArgumentHelp(
        "Fixed SSRC (decimal or 0x hex), also written to the SDP; random by default.", valueName: "ssrc"))
    var ssrc: String?

    @Flag(help: "Protect the stream with SRTP; the key goes into the SDP's a=crypto line.")
    var srtp = false

    @Option(help: ArgumentHelp(
        "SRTP master key ‖ salt in base64 (30 bytes for the AES-128 suites); implies --srtp. Random if not given.",
        valueName: "base64"))
    var srtpKey: String?

    @Option(help: ArgumentHelp(
        "SRTP suite: \(SRTPSuite.allCases.map(\.sdpName).joined(separator: ", ")).", valueName: "suite"))
    var srtpSuite: String = SRTPSuite.aesCM128HMACSHA1_80.sdpName

    @Option(help: ArgumentHelp("RTCP port at the receiver; the RTP port + 1 by default.", valueName: "port"))
    var rtcpPort: Int?

    @Flag(help: "Send RTCP on the RTP port (a=rtcp-mux) instead of a separate port.")
    var rtcpMux = false

    @Flag(help: ArgumentHelp(
        "Signal --rotation with the CVO header extension instead of rotating the pixels.",
        discussion: "Browsers honour CVO; plain receivers such as ffplay ignore it, which is why pixels are rotated by default (--apply-rotation)."))
    var cvo = false

    @Flag(help: "Rotate the pixels by --rotation before encoding (the default unless --cvo).")
    var applyRotation = false

    @Flag(help: "Add the abs-send-time header extension, for receivers that estimate bandwidth.")
    var absSendTime = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Number every packet with the transport-wide sequence number and offer transport-cc feedback.",
        discussion: "Receivers that answer (GStreamer with extmap in its caps, browsers, SFUs) drive congestion control with it."))
    var transportCc = true

    @Option(help: ArgumentHelp(
        "Our RTP port; RTCP feedback is read there and on the next port (one port with --rtcp-mux). Any free port by default.",
        discussion: "A receiver that sends feedback to a fixed address (GStreamer's RTCP udpsink) needs it; ffmpeg (-sdp_flags rtcp_to_source) and Janus answer the address packets come from.",
        valueName: "port"))
    var localPort: Int?

    @Option(help: ArgumentHelp(
        "Repair lost packets a receiver NACKs: resend (the stored packet again, which every receiver understands), rtx (RFC 4588, its own SSRC and payload type) or off.",
        valueName: "mode"))
    var retransmit: Retransmission = .resend

    @Option(help: ArgumentHelp("RTP payload type of RTX with --retransmit rtx, 96...127.", valueName: "pt"))
    var rtxPayloadType: Int = 97

    @Option(help: ArgumentHelp(
        "Forward error correction, RED + ULPFEC (RFC 2198, RFC 5109): auto (as loss and RTT call for it), on (always) or off.",
        discussion: "The receiver must decode it (GStreamer's rtpredec and rtpulpfecdec, with the payload types of `camrtp sdp`); ffmpeg cannot.",
        valueName: "mode"))
    var fec: FECMode = .off

    @Flag(help: "Accept plain (unauthenticated) RTCP feedback on an SRTP session, for peers that send it so (Janus).")
    var acceptPlainRtcp = false

    @OptionGroup var latency: LatencyOptions

    @Option(help: ArgumentHelp(
        "Write one CSV line per congestion-control update (time, target, delay trend, threshold, loss, acknowledged rate) to this file.",
        valueName: "file"))
    var traceBwe: String?

    func validate() throws {
        guard mtu <= 65507 else { throw ValidationError("--mtu \(mtu) is larger than a UDP datagram can carry (65507)") }
        guard (96...127).contains(payloadType) else {
            throw ValidationError("--payload-type must be a dynamic type, 96...127, not \(payloadType)")
        }
        if ssrc != nil, parsedSSRC == nil {
            throw ValidationError("--ssrc \"\(ssrc!)\": expected a 32-bit number, such as 305419896 or 0x12345678")
        }
        if cvo && applyRotation { throw ValidationError("--cvo and --apply-rotation exclude each other: signal the rotation or apply it") }
        if rtcpMux && rtcpPort != nil { throw ValidationError("--rtcp-mux and --rtcp-port exclude each other") }
        if let localPort, !(1...65534).contains(localPort) {
            throw ValidationError("--local-port must be 1...65534 (RTCP takes the next port), not \(localPort)")
        }
        guard (96...127).contains(rtxPayloadType), rtxPayloadType != payloadType else {
            throw ValidationError("--rtx-payload-type must be a dynamic type, 96...127, other than --payload-type, not \(rtxPayloadType)")
        }
        if acceptPlainRtcp && !usesSRTP { throw ValidationError("--accept-plain-rtcp is for SRTP sessions; plain RTP takes plain RTCP anyway") }
        if let rtcpPort, !(1...65535).contains(rtcpPort) { throw ValidationError("--rtcp-port must be 1...65535, not \(rtcpPort)") }
        guard let suite = SRTPSuite(sdpName: srtpSuite) else {
            throw ValidationError("--srtp-suite \"\(srtpSuite)\" is unknown; use one of \(SRTPSuite.allCases.map(\.sdpName).joined(separator: ", "))")
        }
        // Asking libsrtp2 costs its crypto library's start-up: only when SRTP is on.
        guard !usesSRTP || suite.isSupported else {
            throw ValidationError("--srtp-suite \(srtpSuite) is not supported by this libsrtp2; use \(SRTPSuite.aesCM128HMACSHA1_80.sdpName)")
        }
    }

    var usesSRTP: Bool { srtp || srtpKey != nil }

    private var parsedSSRC: UInt32? {
        guard let ssrc else { return nil }
        return ssrc.lowercased().hasPrefix("0x") ? UInt32(ssrc.dropFirst(2), radix: 16) : UInt32(ssrc)
    }

    /// The session plan for a stream to `destination`, the sender tuned by `encoder`. Without
    /// `--srtp-key` a fresh key is drawn from the CSPRNG unless `requireKey` (a printed SDP must
    /// match what `send` will use).
    func makePlan(destination text: String, frameRate: Double?, encoder: EncoderOptions, requireKey: Bool = false) throws -> SessionPlan {
        let destination = try Endpoint(parsing: text)
        let suite = SRTPSuite(sdpName: srtpSuite) ?? .aesCM128HMACSHA1_80
        var key: SRTPMasterKey?
        if let srtpKey {
            key = try SRTPMasterKey(base64: srtpKey, suite: suite)
        } else if usesSRTP {
            if requireKey {
                throw CLIError.usage(
                    "--srtp needs --srtp-key here, so that send uses the same key; make one with: head -c \(suite.keyingMaterialLength) /dev/urandom | base64")
            }
            key = SRTPMasterKey(randomFor: suite)
        }
        let rtcp: Endpoint? = rtcpMux ? nil : try rtcpPort.map { destination.with(port: UInt16($0)) } ?? {
            guard let next = destination.defaultRTCPEndpoint else {
                throw CLIError.usage("--to port \(destination.port) leaves no port for RTCP; use --rtcp-port or --rtcp-mux")
            }
            return next
        }()
        let extensions = HeaderExtensionIDs(
            absoluteSendTime: absSendTime ? RTPHeaderExtensionURI.defaultAbsoluteSendTimeID : nil,
            videoOrientation: cvo ? RTPHeaderExtensionURI.defaultVideoOrientationID : nil,
            transportWideSequenceNumber: transportCc ? RTPHeaderExtensionURI.defaultTransportWideSequenceNumberID : nil,
            absoluteCaptureTime: latency.absCaptureTime ? RTPHeaderExtensionURI.defaultAbsoluteCaptureTimeID : nil,
            playoutDelay: RTPHeaderExtensionURI.defaultPlayoutDelayID)
        var tuning = encoder.tuning(mtu: mtu, retransmission: retransmit, fec: fec)
        tuning.playoutDelay = try latency.requestedPlayoutDelay()
        let plan = SessionPlan(
            destination: destination, rtcpDestination: rtcp, localPort: UInt16(localPort ?? 0), payloadType: UInt8(payloadType),
            rtxPayloadType: UInt8(rtxPayloadType), fixedSSRC: parsedSSRC, srtpKey: key, extensions: extensions,
            frameRate: frameRate, acceptsPlainRTCP: acceptPlainRtcp, tuning: tuning)
        try plan.validate()
        return plan
    }
}

/// `--retransmit resend|rtx|off`.
extension Retransmission: ExpressibleByArgument {}

/// `--fec auto|on|off`.
extension FECMode: ExpressibleByArgument {}
