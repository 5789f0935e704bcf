#!/usr/bin/python3
"""A WHIP endpoint we did not write, for end-to-end tests: aiohttp takes the POST (RFC 9725),
aiortc answers it, receives the VP8 track and decodes it.

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC
(comparable with the test's own clock):
  {"event": "listening", "port": P}
  {"event": "offer", "bytes": N, "auth": "..."}      a POST arrived
  {"event": "answer", "location": "..."}             the 201 went out
  {"event": "ice", "state": ...}                     ICE connection state changes
  {"event": "frame", "n": N, "width": W, "height": H}   the first decoded picture and every 10th
  {"event": "delete", "session": "..."}              the session's DELETE arrived
  {"event": "patch", "status": S, "if_match": "...", "candidates": N, "end": bool}   a PATCH
PATCH (RFC 9725 section 4.3) takes trickled candidates into aiortc (204) with the 201's ETag in
If-Match (428 without, 412 with another); aiortc cannot restart ICE, so new credentials get 422,
as the RFC asks of a session that takes trickle ICE but not restarts.
Requests without "Authorization: Bearer <--token>" get 401 when --token is given; --tls-cert and
--tls-key make it an https:// endpoint. Each --link value goes out as a Link field on the 201 and
on OPTIONS (ICE servers, RFC 9725 section 4.6).
SIGINT or SIGTERM closes every session (DTLS close_notify) before it exits, as a server that
restarts does.

aioice skips 127.0.0.1, so tests run this in a network namespace whose veth carries 127.0.0.2.
"""
import argparse
import asyncio
import signal
import ssl
import uuid

from aiohttp import web
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.sdp import candidate_from_sdp

from aiortc_peer import emit, receive_frames, report_ice_states


class Endpoint:
    def __init__(self, token, links):
        self.token = token
        self.links = links
        self.sessions = {}

    def link_headers(self):
        return [("Link", value) for value in self.links]

    async def options(self, request):
        return web.Response(status=204, headers=self.link_headers())

    def authorized(self, request):
        return self.token is None or request.headers.get("Authorization") == f"Bearer {self.token}"

    async def post(self, request):
        if not self.authorized(request):
            return web.Response(status=401, text="missing or wrong bearer token\n")
        if request.content_type != "application/sdp":
            return web.Response(status=415, text="expected application/sdp\n")
        offer = await request.text()
        emit("offer", bytes=len(offer), auth=request.headers.get("Authorization", "-"))
        pc = RTCPeerConnection()
        session = uuid.uuid4().hex[:12]
        self.sessions[session] = pc

        report_ice_states(pc)

        @pc.on("track")
        def on_track(track):
            if track.kind != "video":
                return

            asyncio.ensure_future(receive_frames(track))

        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        location = f"/whip/session/{session}"
        emit("answer", location=location)
        headers = [("Location", location), ("ETag", f'"{session}"')] + self.link_headers()
        return web.Response(status=201, text=pc.localDescription.sdp, content_type="application/sdp", headers=headers)

    async def patch(self, request):
        if not self.authorized(request):
            return web.Response(status=401, text="missing or wrong bearer token\n")
        session = request.match_info["session"]
        pc = self.sessions.get(session)
        if pc is None:
            return web.Response(status=404, text="no such session\n")
        if_match = request.headers.get("If-Match")
        fragment = await request.text()
        lines = [line.strip() for line in fragment.splitlines()]
        candidates = [line[len("a=candidate:"):] for line in lines if line.startswith("a=candidate:")]
        end = "a=end-of-candidates" in lines
        ufrags = [line[len("a=ice-ufrag:"):] for line in lines if line.startswith("a=ice-ufrag:")]

        def answer(status, text=""):
            emit("patch", status=status, if_match=if_match, candidates=len(candidates), end=end)
            return web.Response(status=status, text=text)

        if request.content_type != "application/trickle-ice-sdpfrag":
            return answer(415, "expected application/trickle-ice-sdpfrag\n")
        if if_match is None:
            return answer(428, "If-Match required\n")
        if if_match not in ("*", f'"{session}"'):
            return answer(412, "no such ICE session\n")
        remote = pc.remoteDescription.sdp if pc.remoteDescription else ""
        if any(f"a=ice-ufrag:{ufrag}" not in remote for ufrag in ufrags):
            return answer(422, "this session takes trickled candidates, not ICE restarts\n")
        for text in candidates:
            candidate = candidate_from_sdp(text)
            candidate.sdpMid = "0"
            candidate.sdpMLineIndex = 0
            await pc.addIceCandidate(candidate)
        if end:
            # aiortc's addIceCandidate takes no end marker; its ICE transport does.
            for transceiver in pc.getTransceivers():
                await transceiver.receiver.transport.transport.addRemoteCandidate(None)
        return answer(204)

    async def delete(self, request):
        if not self.authorized(request):
            return web.Response(status=401, text="missing or wrong bearer token\n")
        session = request.match_info["session"]
        pc = self.sessions.pop(session, None)
        if pc is None:
            return web.Response(status=404, text="no such session\n")
        emit("delete", session=session)
        await pc.close()
        return web.Response(status=200)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM) and --tls-key")
    parser.add_argument("--tls-key")
    parser.add_argument("--link", action="append", default=[])
    arguments = parser.parse_args()
    tls = None
    if arguments.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(arguments.tls_cert, arguments.tls_key)

    endpoint = Endpoint(arguments.token, arguments.link)
    app = web.Application()
    app.router.add_post("/whip", endpoint.post)
    app.router.add_route("OPTIONS", "/whip", endpoint.options)
    app.router.add_delete("/whip/session/{session}", endpoint.delete)
    app.router.add_patch("/whip/session/{session}", endpoint.patch)

    async def serve():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, arguments.host, arguments.port, ssl_context=tls)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        emit("listening", port=port)
        stopping = asyncio.Event()
        for number in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(number, stopping.set)
        await stopping.wait()
        for pc in list(endpoint.sessions.values()):
            await pc.close()
        await runner.cleanup()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
