import ArgumentParser
import CameraRTP
import RTP
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

    /// The session plan for a stream to `destination`. Without `--srtp-key` a fresh key is drawn
    /// from the CSPRNG unless `requireKey` (a printed SDP must match what `send` will use).
    func makePlan(destination text: String, frameRate: Double?, requireKey: Bool = false) throws -> SessionPlan {
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
        let plan = SessionPlan(
            destination: destination, rtcpDestination: rtcp, payloadType: UInt8(payloadType), mtu: mtu,
            fixedSSRC: parsedSSRC, srtpKey: key,
            videoOrientationExtensionID: cvo ? RTPHeaderExtensionURI.defaultVideoOrientationID : nil,
            absoluteSendTimeExtensionID: absSendTime ? RTPHeaderExtensionURI.defaultAbsoluteSendTimeID : nil,
            frameRate: frameRate)
        try plan.validate()
        return plan
    }
}
