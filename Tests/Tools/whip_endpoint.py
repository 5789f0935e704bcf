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
Requests without "Authorization: Bearer <--token>" get 401 when --token is given; --tls-cert and
--tls-key make it an https:// endpoint.

aioice skips 127.0.0.1, so tests run this in a network namespace whose veth carries 127.0.0.2.
"""
import argparse
import asyncio
import ssl
import uuid

from aiohttp import web
from aiortc import RTCPeerConnection, RTCSessionDescription

from aiortc_peer import emit, receive_frames, report_ice_states


class Endpoint:
    def __init__(self, token):
        self.token = token
        self.sessions = {}

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
        return web.Response(
            status=201, text=pc.localDescription.sdp, content_type="application/sdp", headers={"Location": location})

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
    arguments = parser.parse_args()
    tls = None
    if arguments.tls_cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(arguments.tls_cert, arguments.tls_key)

    endpoint = Endpoint(arguments.token)
    app = web.Application()
    app.router.add_post("/whip", endpoint.post)
    app.router.add_delete("/whip/session/{session}", endpoint.delete)

    async def serve():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, arguments.host, arguments.port, ssl_context=tls)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        emit("listening", port=port)
        await asyncio.Event().wait()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
