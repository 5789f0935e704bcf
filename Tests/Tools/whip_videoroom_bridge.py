#!/usr/bin/python3
"""A WHIP endpoint (RFC 9725) in front of Janus's VideoRoom, which has none: each POST to
/whip/<room> becomes a VideoRoom publisher of that room, so any WHIP client can publish into a
real SFU and subscribers can take its simulcast encodings and temporal layers.

  POST /whip/<room>             application/sdp offer: a Janus session, a handle on
                                janus.plugin.videoroom, "joinandconfigure" as publisher with the
                                offer as JSEP; 201 with Janus's answer, Location and ETag
  PATCH /whip/<room>/<id>       trickled candidates (RFC 8840 fragment) go to Janus (204); an ICE
                                restart gets 405 (the bridge cannot renegotiate)
  DELETE /whip/<room>/<id>      "leave", then the handle and the session go (200)

With --rid-order lmh the offer's a=rid lines are taken lowest first; by default (hml, as Janus)
the first a=rid line is the highest encoding, substream 2 (see Janus's sdp.c).

It reports on stdout, one JSON object a line, each with "t": seconds on CLOCK_MONOTONIC:
  {"event": "listening", "port": P}
  {"event": "offer", "room": R, "bytes": N}
  {"event": "published", "room": R, "feed": F, "resource": "/whip/R/ID"}
        F is the publisher's Janus feed id, which subscribers join
  {"event": "answer", "sdp": "..."}     Janus's answer, as the 201 carries it
  {"event": "patch", "status": S, "candidates": N, "end": bool}
  {"event": "delete", "room": R, "feed": F}
  {"event": "error", "status": S, "message": "..."}   a request that Janus refused

Janus skips loopback interfaces for ICE, so tests run Janus, this bridge and the publisher in a
network namespace whose veth carries 127.0.0.2.
"""
import argparse
import asyncio
import signal
import uuid

from aiohttp import web

from aiortc_peer import emit
from janus_api import JanusHTTP, JanusPlugin


class Bridge:
    def __init__(self, janus, rid_order):
        self.janus = janus
        self.rid_order = rid_order
        self.publishers = {}

    async def post(self, request):
        if request.content_type != "application/sdp":
            return web.Response(status=415, text="expected application/sdp\n")
        try:
            room = int(request.match_info["room"])
        except ValueError:
            return web.Response(status=404, text="rooms are numbers\n")
        offer = await request.text()
        emit("offer", room=room, bytes=len(offer))
        plugin = await JanusPlugin.attach(self.janus, "janus.plugin.videoroom")
        jsep = {"type": "offer", "sdp": offer, "rid_order": self.rid_order}
        try:
            event = await plugin.request(
                {"request": "joinandconfigure", "ptype": "publisher", "room": room, "display": "whip"}, jsep=jsep)
        except Exception as error:
            await plugin.destroy()
            emit("error", status=400, message=str(error))
            return web.Response(status=400, text=f"{error}\n")
        answer = event.get("jsep")
        if answer is None:
            await plugin.destroy()
            emit("error", status=502, message="Janus joined without an answer")
            return web.Response(status=502, text="Janus joined the publisher without an SDP answer\n")
        feed = event["plugindata"]["data"]["id"]
        resource = f"/whip/{room}/{uuid.uuid4().hex[:12]}"
        self.publishers[resource] = (room, feed, plugin)
        emit("published", room=room, feed=feed, resource=resource)
        emit("answer", sdp=answer["sdp"])
        headers = {"Location": resource, "ETag": f'"{plugin.handle}"'}
        return web.Response(status=201, text=answer["sdp"], content_type="application/sdp", headers=headers)

    async def patch(self, request):
        entry = self.publishers.get(request.path)
        if entry is None:
            return web.Response(status=404, text="no such session\n")
        fragment = await request.text()
        lines = [line.strip() for line in fragment.splitlines()]
        mid = next((line[len("a=mid:"):] for line in lines if line.startswith("a=mid:")), "0")
        candidates = [{"candidate": line[2:], "sdpMid": mid} for line in lines if line.startswith("a=candidate:")]
        end = "a=end-of-candidates" in lines

        def answer(status, text=""):
            emit("patch", status=status, candidates=len(candidates), end=end)
            return web.Response(status=status, text=text)

        if request.content_type != "application/trickle-ice-sdpfrag":
            return answer(415, "expected application/trickle-ice-sdpfrag\n")
        if any(line.startswith("a=ice-ufrag:") for line in lines) and request.headers.get("If-Match") == "*":
            return answer(405, "this endpoint takes trickled candidates, not ICE restarts\n")
        plugin = entry[2]
        if candidates:
            await plugin.trickle(candidates)
        if end:
            await plugin.trickle([{"completed": True}])
        return answer(204)

    async def delete(self, request):
        entry = self.publishers.pop(request.path, None)
        if entry is None:
            return web.Response(status=404, text="no such session\n")
        room, feed, plugin = entry
        emit("delete", room=room, feed=feed)
        await self.leave(plugin)
        return web.Response(status=200)

    @staticmethod
    async def leave(plugin):
        try:
            await plugin.request({"request": "leave"})
        except Exception:
            pass  # a publisher whose PeerConnection already went is gone from the room
        await plugin.destroy()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--janus", default="http://127.0.0.1:8088/janus", help="Janus's HTTP API")
    parser.add_argument("--host", default="127.0.0.2")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--rid-order", choices=["hml", "lmh"], default="hml",
                        help="whether the offer's first a=rid is the highest (hml) or the lowest (lmh) encoding")
    arguments = parser.parse_args()

    bridge = Bridge(JanusHTTP(arguments.janus), arguments.rid_order)
    app = web.Application()
    app.router.add_post("/whip/{room}", bridge.post)
    app.router.add_patch("/whip/{room}/{session}", bridge.patch)
    app.router.add_delete("/whip/{room}/{session}", bridge.delete)

    async def serve():
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, arguments.host, arguments.port)
        await site.start()
        emit("listening", port=site._server.sockets[0].getsockname()[1])
        stopping = asyncio.Event()
        for number in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(number, stopping.set)
        await stopping.wait()
        for _, _, plugin in list(bridge.publishers.values()):
            await bridge.leave(plugin)
        await runner.cleanup()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
