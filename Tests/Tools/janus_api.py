"""Janus's HTTP API (https://janus.conf.meetecho.com/docs/rest.html) for the test peers:
requests are POSTs, and a session's events come from a long-poll GET on it."""

import asyncio
import json
import urllib.request
import uuid


class JanusHTTP:
    """Janus's REST API: requests are POSTs; events come from a long-poll GET on the session."""

    def __init__(self, base):
        self.base = base.rstrip("/")

    def _request(self, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())

    async def post(self, path, body):
        body = dict(body, transaction=uuid.uuid4().hex)
        reply = await asyncio.to_thread(self._request, path, body)
        if reply.get("janus") == "error":
            raise RuntimeError(f"janus error: {reply['error']}")
        return reply

    async def poll(self, session):
        """The next events of the session (a long poll that Janus answers within 30 s)."""
        reply = await asyncio.to_thread(self._request, f"/{session}?maxev=5", None, 40)
        return reply if isinstance(reply, list) else [reply]


class JanusPlugin:
    """One session with one plugin handle. A poller keeps the session alive and routes events:
    the answer to a `request` by its transaction, the plugin's other events to `events`."""

    def __init__(self, janus, session, handle):
        self.janus = janus
        self.session = session
        self.handle = handle
        self.events = asyncio.Queue()
        self.pending = {}
        self.poller = asyncio.ensure_future(self._poll())

    @classmethod
    async def attach(cls, janus, plugin):
        session = (await janus.post("", {"janus": "create"}))["data"]["id"]
        try:
            handle = (await janus.post(f"/{session}", {"janus": "attach", "plugin": plugin}))["data"]["id"]
        except Exception:
            await janus.post(f"/{session}", {"janus": "destroy"})
            raise
        return cls(janus, session, handle)

    async def _poll(self):
        while True:
            try:
                events = await self.janus.poll(self.session)
            except Exception as error:
                for future in self.pending.values():
                    if not future.done():
                        future.set_exception(error)
                return
            for event in events:
                future = self.pending.pop(event.get("transaction"), None)
                if future is not None and not future.done():
                    future.set_result(event)
                else:
                    self.events.put_nowait(event)

    async def request(self, body, jsep=None):
        """Sends a plugin message and returns its asynchronous "event" (with any JSEP), or raises
        with the plugin's error."""
        transaction = uuid.uuid4().hex
        future = asyncio.get_running_loop().create_future()
        self.pending[transaction] = future
        message = {"janus": "message", "body": body, "transaction": transaction}
        if jsep is not None:
            message["jsep"] = jsep
        reply = await asyncio.to_thread(self.janus._request, f"/{self.session}/{self.handle}", message)
        if reply.get("janus") == "error":
            self.pending.pop(transaction, None)
            raise RuntimeError(f"janus error: {reply['error']}")
        event = reply if reply.get("janus") == "success" else await future
        self.pending.pop(transaction, None)
        data = event.get("plugindata", {}).get("data", {})
        if "error" in data:
            raise RuntimeError(f"{body.get('request')} failed: {data['error']} ({data.get('error_code')})")
        return event

    async def trickle(self, candidates):
        """Hands Janus trickled candidates ({"candidate", "sdpMid"}), or their end ({"completed": true})."""
        await self.janus.post(f"/{self.session}/{self.handle}", {"janus": "trickle", "candidates": candidates})

    async def destroy(self):
        self.poller.cancel()
        try:
            await self.janus.post(f"/{self.session}/{self.handle}", {"janus": "detach"})
        finally:
            await self.janus.post(f"/{self.session}", {"janus": "destroy"})
