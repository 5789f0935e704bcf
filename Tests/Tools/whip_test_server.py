#!/usr/bin/python3
"""A WHIP endpoint that misbehaves on request, for the WHIP client's tests.

Prints "listening PORT" once bound (port 0: any free port), then one line per request:
"<METHOD> <path> auth=<Authorization or -> type=<Content-Type or -> bytes=<body length>".
The path picks the answer:
  /ok            201, application/sdp, Location "sessions/1" (relative)
  /absolute      201, Location "http://127.0.0.1:<port>/elsewhere/2"
  /auth          401 "bad token" unless Authorization is "Bearer secret", else as /ok
  /badtype       201 with Content-Type text/plain
  /noloc         201 without Location
  /error         503 with a two-line body
  /big           201 with a body larger than any limit the test sets
  /hang          reads the request and never answers
  /links         201 as /ok, with ice-server Link fields (one broken, one of another relation);
                 OPTIONS: 204 with the same Links
  /busy          503 with Retry-After: 7;  /slow  429 with Retry-After as an HTTP-date 30 s ahead
  /sessions/*    DELETE: 204; PATCH (If-Match required, 428 without): a fragment with
                 "a=ice-ufrag" answers 200 with a fragment and ETag "restarted", else 204;
                 anything else 405
"""
import email.utils
import http.server
import socketserver
import sys
import threading
import time

ANSWER = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
LINKS = [
    ("Link", '<stun:stun.example.net:3478>; rel="ice-server"'),
    ("Link", '<turn:turn.example.net?transport=tcp>; rel="ice-server"; username="u"; credential="p\\"q"'),
    ("Link", '<https://example.net/next>; rel="next", <turn:user:secret@bad>; rel="ice-server"; username="a"; credential="b"'),
]
RESTART_ANSWER = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=ice-ufrag:srv\r\na=ice-pwd:serverpasswordserverpass\r\n"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, length):
        print(f"{self.command} {self.path} auth={self.headers.get('Authorization', '-')} "
              f"type={self.headers.get('Content-Type', '-')} bytes={length}", flush=True)

    def body(self):
        length = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(length) if length else b""
        self.record(len(data))
        return data

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.body()
        path = self.path
        sdp = ("Content-Type", "application/sdp")
        if path == "/auth":
            if self.headers.get("Authorization") != "Bearer secret":
                return self.reply(401, b"bad token\n")
            path = "/ok"
        if path == "/ok":
            return self.reply(201, ANSWER.encode(), [sdp, ("Location", "sessions/1")])
        if path == "/absolute":
            port = self.server.server_address[1]
            return self.reply(201, ANSWER.encode(), [sdp, ("Location", f"http://127.0.0.1:{port}/elsewhere/2")])
        if path == "/badtype":
            return self.reply(201, ANSWER.encode(), [("Content-Type", "text/plain"), ("Location", "/s/3")])
        if path == "/noloc":
            return self.reply(201, ANSWER.encode(), [sdp])
        if path == "/error":
            return self.reply(503, b"  \nover capacity, try later\nsecond line\n", [("Content-Type", "text/plain")])
        if path == "/big":
            return self.reply(201, b"v=0\r\n" + b"a=x\r\n" * 100_000, [sdp, ("Location", "/s/4")])
        if path == "/links":
            return self.reply(201, ANSWER.encode(), [sdp, ("Location", "sessions/5"), ("ETag", '"e1"')] + LINKS)
        if path == "/busy":
            return self.reply(503, b"busy\n", [("Retry-After", "7")])
        if path == "/slow":
            return self.reply(429, b"slow down\n", [("Retry-After", email.utils.formatdate(time.time() + 30, usegmt=True))])
        if path == "/hang":
            threading.Event().wait()
        self.reply(404, b"no such endpoint\n")

    def do_OPTIONS(self):
        self.body()
        if self.path == "/links":
            return self.reply(204, b"", LINKS)
        self.reply(405, b"no OPTIONS here\n")

    def do_PATCH(self):
        body = self.body()
        print(f"if-match={self.headers.get('If-Match', '-')}", flush=True)
        if not self.path.startswith("/sessions/"):
            return self.reply(405, b"no PATCH here\n")
        if self.headers.get("If-Match") is None:
            return self.reply(428, b"If-Match required\n")
        if b"a=ice-ufrag" in body:
            return self.reply(200, RESTART_ANSWER.encode(), [("Content-Type", "application/trickle-ice-sdpfrag"), ("ETag", '"restarted"')])
        self.reply(204)

    def do_DELETE(self):
        self.body()
        if self.path.startswith("/sessions/") or self.path.startswith("/elsewhere/"):
            return self.reply(204)
        self.reply(405, b"cannot delete this\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    server = Server(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
