import Foundation

/// A one-page HTTP/1.1 server on 127.0.0.1 for a headless browser: `GET /` serves the page and
/// `POST /result` hands its body to `waitForResult`, so a test waits for the page's own signal
/// rather than for a time budget.
final class PageServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let page: String
    private let lock = NSLock()
    private var result: String?
    private let posted = DispatchSemaphore(value: 0)

    struct SocketError: Error, CustomStringConvertible {
        let operation: String
        let code: Int32
        var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

    init(page: String) throws {
        self.page = page
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(listener)
            throw SocketError(operation: "bind/listen", code: code)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    var url: String { "http://127.0.0.1:\(port)/" }

    /// The body of the first `POST`, or nil when none came within `timeout` seconds.
    func waitForResult(timeout: Double) -> String? {
        guard posted.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { result }
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            respond(on: connection)
            close(connection)
        }
    }

    private func respond(on connection: Int32) {
        guard let (head, body) = readRequest(connection) else { return }
        if head.hasPrefix("POST ") {
            lock.withLock { result = body }
            send(connection, status: "204 No Content", type: "text/plain", body: "")
            posted.signal()
        } else if head.hasPrefix("GET / ") {
            send(connection, status: "200 OK", type: "text/html; charset=utf-8", body: page)
        } else {
            send(connection, status: "404 Not Found", type: "text/plain", body: "")
        }
    }

    /// The request line and headers, and a body of `Content-Length` bytes.
    private func readRequest(_ connection: Int32) -> (String, String)? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = bytes.firstRange(of: separator) {
                let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
                let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                let length = lengthLine.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if bytes.count - end.upperBound >= length {
                    return (head, String(decoding: bytes[end.upperBound..<(end.upperBound + length)], as: UTF8.self))
                }
            }
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
    }

    private func send(_ connection: Int32, status: String, type: String, body: String) {
        let response = Array(
            "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8)
        var offset = 0
        while offset < response.count {
            let written = response[offset...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }
}
