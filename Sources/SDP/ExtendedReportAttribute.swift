/// RTCP extended reports in SDP (RFC 3611 §5.1): `a=rtcp-xr:` lists the report blocks the
/// section's endpoints use. The one camrtp takes part in is `rcvr-rtt=all`: every endpoint,
/// one that sends no media included, sends its reference time (RRTR) and every sender answers
/// with DLRR, so that a receiver learns its round-trip time. Browsers offer it and send RRTR
/// only when the answer has it too.
extension Attribute {
    /// `a=rtcp-xr:rcvr-rtt=all`.
    public static let receiverReferenceTimeReports = Attribute(name: "rtcp-xr", value: "rcvr-rtt=all")
}

extension MediaDescription {
    /// Whether an `a=rtcp-xr` line has `rcvr-rtt=all`, with or without a maximum size
    /// (`rcvr-rtt=all:10000`); `rcvr-rtt=sender` leaves out receivers that send nothing.
    public var hasReceiverReferenceTimeReports: Bool {
        otherAttributes.contains { attribute in
            attribute.name == "rtcp-xr" && (attribute.value ?? "").split(separator: " ").contains { format in
                format == "rcvr-rtt=all" || format.hasPrefix("rcvr-rtt=all:")
            }
        }
    }
}
