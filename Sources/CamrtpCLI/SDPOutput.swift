import PlainRTP
import Glibc
import MediaCore

/// Writes a plan's SDP where a receiver will read it, through `OutputFile`; an SDP that carries
/// an SRTP key (`a=crypto`) is a secret and is readable by its owner only (0600).
enum SDPOutput {
    static func write(_ plan: SessionPlan, to path: String) throws {
        do {
            try OutputFile.write(bytes(of: plan), to: path, ownerOnly: plan.srtpKey != nil)
        } catch {
            throw error.isDiskFailure ? CLIError.runtime("--sdp \(error)") : CLIError.usage("--sdp \(error)")
        }
    }

    static func bytes(of plan: SessionPlan) -> [UInt8] {
        Array(plan.sessionDescription.serialized().utf8)
    }
}

/// An SDP for a receiver camrtp starts itself: in a private folder of its own (mkdtemp, 0700) as
/// a file of unpredictable name (mkstemps, 0600), removed as soon as the receiver has read it,
/// and at the latest when camrtp ends.
final class TemporarySDPFile: Sendable {
    let path: String
    private let folder: String

    init(_ plan: SessionPlan) throws {
        var folderTemplate = Array((Self.temporaryDirectory + "/camrtp-XXXXXX").utf8CString)
        guard let made = mkdtemp(&folderTemplate) else {
            throw CLIError.runtime("cannot make a temporary folder for the SDP: \(String(cString: strerror(errno)))")
        }
        folder = String(cString: made)
        var fileTemplate = Array((folder + "/loopback-XXXXXX.sdp").utf8CString)
        let fd = mkstemps(&fileTemplate, 4)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            rmdir(folder)
            throw CLIError.runtime("cannot make a temporary SDP file: \(reason)")
        }
        path = String(decoding: fileTemplate.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let bytes = SDPOutput.bytes(of: plan)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else {
            remove()
            throw CLIError.runtime("cannot write the temporary SDP file \(path)")
        }
    }

    deinit {
        remove()
    }

    /// `$TMPDIR`, or /tmp.
    private static var temporaryDirectory: String {
        guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
        let path = String(cString: value)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Removes the file and its folder; safe to call again, and from a signal's clean-up.
    func remove() {
        unlink(path)
        rmdir(folder)
    }
}
