"""What both Python SDK drivers share, whatever the SDK's version: the checks, the `task_server`
process (started through a shell that writes its pid first, so that a test can kill it), the
effects it counts, and the sentence a call cut off by the kill is answered with."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import anyio

#: At most this many polls of one task (20 ms apart, as the server asks): 30 seconds.
MOST_POLLS = 1500

OUTCOME_UNKNOWN = (
    "ERROR: the outcome of this charge call is unknown: it was started, and the process running it stopped"
    " before it finished, so it may or may not have taken effect. It was not run again, so that its effect"
    " is not repeated. Before calling charge again, check whether it took effect (with a tool that reads the"
    " state it changes, or by asking the user); call it again only if it did not."
)


def check(what: str, got: Any, expected: Any) -> None:
    if got != expected:
        print(f"{what}:\n  got      {got!r}\n  expected {expected!r}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {what}")


def server_command(task_server: str, work: Path) -> tuple[str, list[str]]:
    """The command and arguments of `task_server` on the journal in `work`, for the SDK's
    `StdioServerParameters`; the shell writes its pid to `work/pid` and becomes the server."""
    return "/bin/sh", [
        "-c",
        'echo $$ > "$0"; exec "$@"',
        str(work / "pid"),
        task_server,
        str(work / "tasks.db"),
        str(work / "effects"),
        str(work / "gate"),
    ]


def effects(work: Path) -> dict[str, int]:
    path = work / "effects"
    return dict(Counter(path.read_text().splitlines())) if path.exists() else {}


async def until_started(work: Path, lines: list[str]) -> None:
    for _ in range(MOST_POLLS):
        if all(line in effects(work) for line in lines):
            return
        await anyio.sleep(0.02)
    check("the tools started", effects(work), lines)
