#!/usr/bin/env python3
"""A page in headless Chromium, driven over the DevTools protocol on a pipe.

  cdp_page.py CHROME URL OUT [--until JS] [--seconds S] [--screenshot PNG] [--value JS]

Loads URL, then waits, in real time, until the JavaScript expression JS is
true (default: 3 s have passed) or S seconds are over (default 30), and
writes the page's DOM to OUT and its uncaught script errors to OUT.err (one
per line; the file is empty when there were none). The live page keeps a
stream open, which stalls Chromium's virtual time (--virtual-time-budget
never ends) and ends --dump-dom before the first event: hence a real clock,
and --remote-debugging-pipe (JSON messages ended by NUL on descriptors 3 and
4), which needs no WebSocket. Exit status 0, 1 when JS never became true
(the DOM is written all the same), 2 when the browser failed. With --value,
the JavaScript expression's value (once UNTIL held) is written as JSON to
OUT.value.json: a model the page exposes on window.
"""
from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chrome: str, profile: str):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # The child's ends above 4, so that making them 3 and 4 closes neither.
        to_chrome_r, from_chrome_w = (self._high(to_chrome_r), self._high(from_chrome_w))
        args = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--window-size=1280,1400",
                "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"]
        # Chromium reads the protocol from descriptor 3 and writes to 4.
        self.proc = subprocess.Popen(
            ["bash", "-c", 'exec "$@" 3<&%d 4>&%d %d<&- %d>&-' % (
                to_chrome_r, from_chrome_w, to_chrome_r, from_chrome_w), "bash"] + args,
            pass_fds=(to_chrome_r, from_chrome_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(os.environ.get("CDP_LOG", os.devnull), "w"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    @staticmethod
    def _high(fd: int) -> int:
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        return high

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("the browser did not answer")
            chunk = os.read(self.from_chrome, 65536)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 120) -> dict:
        # A guard against a hung browser, not a deadline: with both MPIs'
        # suites beside it, a call to a page busy drawing went unanswered for
        # 30 s (check-web-report's all-to-all page).
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)


def evaluate(b: Browser, session: str, expr: str):
    r = b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    return r.get("result", {}).get("value")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("chrome")
    p.add_argument("url")
    p.add_argument("out")
    p.add_argument("--until", default="")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--screenshot", default="")
    p.add_argument("--value", default="")
    a = p.parse_args(argv)
    profile = tempfile.mkdtemp(prefix="cdp-page.")
    b = Browser(a.chrome, profile)
    met = False
    try:
        target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.call("Runtime.enable", session=session)
        b.call("Page.enable", session=session)
        b.call("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 1400, "deviceScaleFactor": 1, "mobile": False}, session)
        b.call("Page.navigate", {"url": a.url}, session)
        until = a.until or "false"
        start = time.time()
        while time.time() - start < (a.seconds if a.until else 3):
            if evaluate(b, session, "!!(%s)" % until):
                met = True
                break
            time.sleep(0.2)
        if not a.until:
            met = True
        if a.value:
            with open(a.out + ".value.json", "w", encoding="utf-8") as f:
                json.dump(evaluate(b, session, a.value), f)
        dom = evaluate(b, session, "document.documentElement.outerHTML") or ""
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(dom)
        if a.screenshot:
            shot = b.call("Page.captureScreenshot", {"format": "png"}, session)
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        errors = [e["params"]["exceptionDetails"] for e in b.events
                  if e.get("method") == "Runtime.exceptionThrown"]
        with open(a.out + ".err", "w", encoding="utf-8") as f:
            for e in errors:
                f.write("%s: %s\n" % (e.get("url", "?"),
                                      e.get("exception", {}).get("description", e.get("text", ""))))
    except (OSError, RuntimeError, TimeoutError, EOFError, KeyError, ValueError) as e:
        print(f"cdp_page: {e}", file=sys.stderr)
        return 2
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    if not met:
        print(f"cdp_page: '{a.until}' still false after {a.seconds} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
