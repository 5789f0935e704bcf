// Session descriptions as a WHIP/WHEP endpoint or a signalling peer sends them: every field and
// attribute the model types (m= lines, rtpmap, fmtp, rtcp-fb, extmap, ssrc, crypto, fingerprint,
// candidates, ...) and those it keeps as written.
//
// Input: one description as bytes (invalid UTF-8 is read as U+FFFD, as a String from the
// network would be).

import FuzzSupport
import SDP

fuzz { input in
    let text = String(decoding: input, as: UTF8.self)
    guard let description = try? SessionDescription(parsing: text) else { return }
    // Whatever reads writes back as text that reads back to the same value, and that text is
    // what the writer gives again: a description relayed or answered says what it was given.
    let written = description.serialized()
    let reread: SessionDescription
    do throws(SDPParseError) {
        reread = try SessionDescription(parsing: written)
    } catch {
        fuzzCheck(false, "SDP: read\n\(text)\nwrote\n\(written)\nwhich does not read back: \(error)")
        return
    }
    fuzzCheck(reread == description, "SDP: read\n\(text)\nwrote\n\(written)\nwhich reads back as another value")
    let rewritten = reread.serialized()
    fuzzCheck(rewritten == written, "SDP: wrote\n\(written)\nthen\n\(rewritten)")
}
