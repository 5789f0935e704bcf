import CSSL
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of a PEM file and the labels of its `-----BEGIN …-----` blocks, so that a parse
/// failure can say what the file holds instead ("only \"PRIVATE KEY\"").
struct PEMFile {
    /// Certificates and keys are a few kilobytes; anything much larger is not one.
    static let maximumSizeBytes = 1 << 20

    let path: String
    let bytes: [UInt8]

    init(path: String) throws(DTLSError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DTLSError("open \(path)", .unreadableFile(path: path, errno: errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw DTLSError("read \(path)", .unreadableFile(path: path, errno: errno))
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            guard bytes.count <= Self.maximumSizeBytes else {
                throw DTLSError("read \(path)", .unreadableFile(path: path, errno: EFBIG))
            }
        }
        self.path = path
        self.bytes = bytes
    }

    /// The labels of the PEM blocks in the file, in order: `CERTIFICATE`, `PRIVATE KEY`, ….
    var labels: [String] {
        let marker = Array("-----BEGIN ".utf8)
        let dash = UInt8(ascii: "-")
        var labels: [String] = []
        var index = 0
        while index + marker.count <= bytes.count {
            guard bytes[index..<index + marker.count].elementsEqual(marker) else {
                index += 1
                continue
            }
            let start = index + marker.count
            var end = start
            while end < bytes.count, bytes[end] != dash, bytes[end] != UInt8(ascii: "\n") { end += 1 }
            labels.append(String(decoding: bytes[start..<end], as: UTF8.self))
            index = end
        }
        return labels
    }

    /// Runs `body` with a read-only memory BIO over the file's bytes.
    func withBIO<Result>(_ body: (OpaquePointer) -> Result?) -> Result? {
        bytes.withUnsafeBytes { buffer -> Result? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
