// The trickle-ice-sdpfrag bodies of PATCH requests (RFC 8840, RFC 9725 section 4.3): session
// and media ICE lines, candidates, end-of-candidates, and the lines a fragment skips.
//
// Input: one body as bytes (invalid UTF-8 is read as U+FFFD, as a String from the network
// would be).

import FuzzSupport
import SDP

fuzz { input in
    let text = String(decoding: input, as: UTF8.self)
    guard let fragment = try? SDPFragment(parsing: text) else { return }
    // What reads writes back as a fragment that reads back to the same value, and writes the
    // same text again: a session answers a restart with what it holds.
    let written = fragment.serialized()
    let reread: SDPFragment
    do throws(SDPParseError) {
        reread = try SDPFragment(parsing: written)
    } catch {
        fuzzCheck(false, "sdpfrag: read\n\(text)\nwrote\n\(written)\nwhich does not read back: \(error)")
        return
    }
    fuzzCheck(reread == fragment, "sdpfrag: read\n\(text)\nwrote\n\(written)\nwhich reads back as another value")
    fuzzCheck(reread.serialized() == written, "sdpfrag: wrote\n\(written)\nthen something else")
    fuzzCheck(fragment.candidates.count <= SDPFragment.defaultLimits.maxCandidates, "sdpfrag: more candidates than the cap")
}
