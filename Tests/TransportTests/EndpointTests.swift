import Testing
import Transport

@Suite("Endpoint parsing")
struct EndpointTests {
    @Test func ipv4() throws {
        let endpoint = try Endpoint(parsing: "127.0.0.1:5004")
        #expect(endpoint.family == .ipv4)
        #expect(endpoint.address == "127.0.0.1")
        #expect(endpoint.port == 5004)
        #expect(endpoint.description == "127.0.0.1:5004")
        #expect(endpoint.hasEvenPort)
        #expect(endpoint.defaultRTCPEndpoint == (try Endpoint(parsing: "127.0.0.1:5005")))
    }

    @Test func ipv6InBrackets() throws {
        let endpoint = try Endpoint(parsing: "[::1]:5004")
        #expect(endpoint.family == .ipv6)
        #expect(endpoint.address == "::1")
        #expect(endpoint.port == 5004)
        #expect(endpoint.description == "[::1]:5004")
        let long = try Endpoint(parsing: "[2001:DB8:0:0::7]:65535")
        #expect(long.address == "2001:db8::7")
        #expect(long.defaultRTCPEndpoint == nil)
    }

    @Test func hostNameResolves() throws {
        let endpoint = try Endpoint(parsing: "localhost:5005")
        #expect(["127.0.0.1", "::1"].contains(endpoint.address))
        #expect(endpoint.port == 5005)
        #expect(!endpoint.hasEvenPort)
    }

    @Test(arguments: [
        ("foo", "--to \"foo\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("", "--to \"\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        (":5004", "--to \":5004\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("127.0.0.1:", "--to \"127.0.0.1:\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("127.0.0.1:50x4", "--to \"127.0.0.1:50x4\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("127.0.0.1:+5004", "--to \"127.0.0.1:+5004\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("[::1]5004", "--to \"[::1]5004\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("[::1:5004", "--to \"[::1:5004\": expected HOST:PORT, such as 127.0.0.1:5004 or [::1]:5004"),
        ("127.0.0.1:70000", "--to \"127.0.0.1:70000\": port must be 1…65535, got 70000"),
        ("127.0.0.1:0", "--to \"127.0.0.1:0\": port must be 1…65535, got 0"),
        ("127.0.0.1:99999999999999999999", "--to \"127.0.0.1:99999999999999999999\": port must be 1…65535, got 99999999999999999999"),
        ("::1:5004", "--to \"::1:5004\": put an IPv6 address in brackets, such as [::1]:5004"),
        ("[127.0.0.1]:5004", "--to \"[127.0.0.1]:5004\": \"127.0.0.1\" is not an IPv6 address; brackets are for IPv6, such as [::1]:5004"),
    ])
    func rejects(input: String, message: String) {
        #expect {
            try Endpoint(parsing: input)
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func unknownHostNamesTheHostAndTheFix() {
        #expect {
            try Endpoint(parsing: "no-such-host.invalid:5004", option: "--peer")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("--peer \"no-such-host.invalid:5004\": unknown host \"no-such-host.invalid\" (")
                && text.hasSuffix("); use an IP address or a resolvable name")
        }
    }
}
