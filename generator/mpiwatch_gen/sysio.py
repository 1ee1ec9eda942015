"""The generator's two contacts with the system: running a tool, writing an output.

Every stage that compiles, links or inspects something runs it through
``run`` (which never raises: a tool that cannot start reads as exit status
127), and every output goes through ``write_if_changed``, so a regeneration
that changes nothing touches no file and make recompiles nothing.
"""

from __future__ import annotations

import os
import subprocess
from typing import Mapping, Sequence


def run(command: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run command without input and capture its output as text.

    A command that cannot be started, or that outlives ``timeout`` seconds,
    comes back with exit status 127 and the reason as its standard error.
    """
    try:
        return subprocess.run(list(command), cwd=cwd, env=None if env is None else dict(env),
                              capture_output=True, text=True, check=False, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(list(command), 127, "",
                                           f"{command[0]} did not finish in {timeout} s\n")
    except OSError as err:
        reason = "was not found" if isinstance(err, FileNotFoundError) else f"cannot run: {err.strerror}"
        return subprocess.CompletedProcess(list(command), 127, "", f"{command[0]} {reason}\n")


def write_if_changed(path: str, text: str) -> bool:
    """Write text to path unless it already holds exactly that; True if written.

    The new content replaces the old in one rename, so a reader (or a make
    interrupted half-way) never sees a half-written file.
    """
    try:
        with open(path, encoding="utf-8") as old:
            if old.read() == text:
                return False
    except (OSError, UnicodeDecodeError):
        pass
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    os.replace(tmp, path)
    return True
