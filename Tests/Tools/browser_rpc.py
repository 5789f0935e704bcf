"""The request/response half of a browser's remote protocol over a websocket (aiohttp): Chromium's
DevTools protocol and WebDriver BiDi both number their commands and answer with the same id,
and differ only in how an answer says it failed. And how a driver ends its browser."""

import subprocess


def stop_browser(browser):
    """Ends a browser process: SIGTERM, and SIGKILL if it is still there after 10 s."""
    browser.terminate()
    try:
        browser.wait(timeout=10)
    except subprocess.TimeoutExpired:
        browser.kill()


class BrowserRPC:
    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0

    def error(self, message):
        """The failure an answer reports, or None."""
        raise NotImplementedError

    async def call(self, method, **params):
        self.next_id += 1
        await self.socket.send_json({"id": self.next_id, "method": method, "params": params})
        while True:
            message = await self.socket.receive_json()
            if message.get("id") == self.next_id:
                failure = self.error(message)
                if failure is not None:
                    raise RuntimeError(f"{method}: {failure}")
                return message["result"]
