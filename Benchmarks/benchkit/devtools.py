"""Headless Chromium over the DevTools protocol (aiohttp's websocket client, and the tests'
DevTools client in Tests/Tools/chromium_viewer.py): one browser, a page (target) per
measurement, JavaScript evaluated in it."""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import aiohttp

from .common import ToolFailed, stop_process

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "Tests", "Tools"))
from chromium_viewer import DevTools  # noqa: E402


class Chromium:
    """A headless Chromium with a fake camera and WebRTC on loopback allowed."""

    def __init__(self, debug_port, workdir):
        self.debug_port = debug_port
        self.profile = tempfile.mkdtemp(prefix="chromium-", dir=workdir)
        self.log_path = os.path.join(workdir, "chromium.log")

    async def __aenter__(self):
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([
            "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream=fps=30", "--allow-loopback-in-peer-connection",
            "--autoplay-policy=no-user-gesture-required", f"--remote-debugging-port={self.debug_port}",
            f"--user-data-dir={self.profile}", "--window-size=1000,900", "--no-first-run", "about:blank",
        ], stdout=self.log, stderr=subprocess.STDOUT)
        self.http = aiohttp.ClientSession()
        for _ in range(600):
            try:
                async with self.http.get(f"http://127.0.0.1:{self.debug_port}/json/version") as response:
                    await response.json()
                    return self
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
        raise ToolFailed("Chromium's DevTools port never answered")

    async def __aexit__(self, *exc):
        await self.http.close()
        stop_process(self.process, signal.SIGTERM, 10)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    async def open(self, url, before_load=None):
        """A new page at `url`; `before_load` is JavaScript that runs before the page's own."""
        async with self.http.put(f"http://127.0.0.1:{self.debug_port}/json/new?about:blank") as response:
            target = await response.json()
        page = Page(self, target["id"], await self.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=64 << 20))
        await page.call("Page.enable")
        if before_load:
            await page.call("Page.addScriptToEvaluateOnNewDocument", source=before_load)
        await page.call("Page.navigate", url=url)
        return page


class Page:
    def __init__(self, browser, target_id, socket):
        self.browser = browser
        self.target_id = target_id
        self.socket = socket
        self.tools = DevTools(socket)

    async def call(self, method, **params):
        try:
            return await self.tools.call(method, **params)
        except RuntimeError as error:
            raise ToolFailed(str(error)) from error

    async def evaluate(self, expression):
        """The value of `expression` (a promise is awaited), through JSON."""
        result = await self.call("Runtime.evaluate", expression=f"(async () => JSON.stringify(await ({expression})))()",
                                 awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise ToolFailed(f"{expression}: {result['exceptionDetails'].get('text')}")
        value = result["result"].get("value")
        return json.loads(value) if value is not None else None

    async def close(self):
        await self.socket.close()
        async with self.browser.http.get(f"http://127.0.0.1:{self.browser.debug_port}/json/close/{self.target_id}"):
            pass
