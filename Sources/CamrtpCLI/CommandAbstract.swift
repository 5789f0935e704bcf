/// The one-line descriptions of the commands camrtp hands to camrtp-webrtc, for both programs' help.
package enum CommandAbstract {
    package static let publish = "Publish a source as VP8 over WebRTC to a WHIP endpoint (an SFU, a media server, a cloud ingest)."
    package static let serve = "Serve a source to browsers and WHEP players: a viewer page and a WHEP endpoint, many viewers on one encoder."
}
