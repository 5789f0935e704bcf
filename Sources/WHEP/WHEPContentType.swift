/// `Content-Type` as the endpoint checks it: the media type before any parameter, without case
/// (RFC 9110 §8.3.1), so `application/SDP; charset=utf-8` is an SDP offer.
enum WHEPContentType {
    static func isSDP(_ value: String?) -> Bool {
        mediaType(value) == "application/sdp"
    }

    /// The media type, lowercased, without parameters; nil without a `Content-Type`.
    static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        let mediaType = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return mediaType.trimmingSpaces.lowercased()
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
