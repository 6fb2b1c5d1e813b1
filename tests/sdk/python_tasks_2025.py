"""The official MCP Python SDK as the client of skyl's served tasks, at 2025-11-25.

The SDK's 2.x releases speak 2026-07-28 and dropped 2025-11-25's task form (python_tasks.py
drives them); its last 1.x release (1.30.0) has that form's API, `session.experimental`:
`call_tool_as_task`, `get_task`, `get_task_result` (during which the server asks what a task's
tool asks, answered by the session's elicitation callback), `cancel_task`, `list_tasks`. Against
the `task_server` binary of tests/mcp on a fresh SQLite journal: each tool's task support in
`tools/list`, a task created and polled to its result, one cancelled while its tool runs, one
whose tool asks and is answered, the tasks listed, and the server killed (SIGKILL) while two tasks
run, started again on the same journal; each effect counted. Run by tests/sdk/run-python:

    python python_tasks_2025.py TASK_SERVER DIR

Exits 0 when every check holds, else 1 naming the first that did not.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from task_process import MOST_POLLS, OUTCOME_UNKNOWN, check, effects, server_command, until_started

ENDED = ("completed", "failed", "cancelled")


async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The person, asked what a task's tool asks: accepts."""
    check("the question is the tool's", params.message, "Refund order 63?")
    return types.ElicitResult(action="accept", content={"confirm": True})


def server(task_server: str, work: Path) -> StdioServerParameters:
    command, args = server_command(task_server, work)
    return StdioServerParameters(command=command, args=args)


async def settle(session: ClientSession, task_id: str, until: tuple[str, ...]) -> types.GetTaskResult:
    for _ in range(MOST_POLLS):
        task = await session.experimental.get_task(task_id)
        if task.status in until:
            return task
        await anyio.sleep((task.pollInterval or 20) / 1000)
    check(f"task {task_id} reaches {until}", "still " + task.status, until)
    return task


def content(result: types.CallToolResult) -> Any:
    return [result.model_dump(mode="json", exclude_none=True)["content"], result.isError]


async def first_run(task_server: str, work: Path) -> tuple[str, str]:
    """Tasks created, polled, cancelled, asked and listed; two left running when the server is
    killed, whose ids are returned."""
    async with stdio_client(server(task_server, work)) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            initialized = await session.initialize()
            check("the revision spoken", initialized.protocolVersion, "2025-11-25")
            tools = await session.list_tools()
            check(
                "tools/list says each tool's task support",
                [(tool.name, tool.execution.taskSupport if tool.execution else None) for tool in tools.tools],
                [("charge", "optional"), ("render", "optional"), ("refund", "optional"), ("archive", "required")],
            )

            # A task polled to its result.
            charged = await session.experimental.call_tool_as_task("charge", {"order": 61, "wait": False})
            check("a created task works", charged.task.status, "working")
            check("it asks for polls every 20 ms", charged.task.pollInterval, 20)
            done = await settle(session, charged.task.taskId, ENDED)
            check("tasks/get says the task completed", done.status, "completed")
            result = await session.experimental.get_task_result(charged.task.taskId, types.CallToolResult)
            check("tasks/result gives the call's result", content(result), [[{"type": "text", "text": "charged order 61"}], False])

            # A task cancelled while its tool runs.
            render = await session.experimental.call_tool_as_task("render", {"report": 62, "wait": True})
            await until_started(work, ["render 62 start"])
            cancelled = await session.experimental.cancel_task(render.task.taskId)
            check("tasks/cancel answers with the task, cancelled", cancelled.status, "cancelled")

            # A task whose tool asks: asked during tasks/result, answered by the callback.
            refund = await session.experimental.call_tool_as_task("refund", {"order": 63, "wait": False})
            waiting = await settle(session, refund.task.taskId, ("input_required",) + ENDED)
            check("the task waits for input", waiting.status, "input_required")
            refunded = await session.experimental.get_task_result(refund.task.taskId, types.CallToolResult)
            check(
                "the asked task's result is the call's, with the answer",
                content(refunded),
                [[{"type": "text", "text": 'refunded order 63: "accept"'}], False],
            )

            listed = await session.experimental.list_tasks()
            check(
                "tasks/list lists the tasks, oldest first",
                [(task.taskId, task.status) for task in listed.tasks],
                [
                    (charged.task.taskId, "completed"),
                    (render.task.taskId, "cancelled"),
                    (refund.task.taskId, "completed"),
                ],
            )

            # Two tasks running when the server is killed: one with effects, one idempotent.
            charge = await session.experimental.call_tool_as_task("charge", {"order": 64, "wait": True})
            render = await session.experimental.call_tool_as_task("render", {"report": 65, "wait": True})
            await until_started(work, ["charge 64 start", "render 65 start"])
            os.kill(int((work / "pid").read_text()), signal.SIGKILL)
            return charge.task.taskId, render.task.taskId


async def second_run(task_server: str, work: Path, charge: str, render: str) -> None:
    """The server started again on the same journal answers for both."""
    (work / "gate").touch()
    async with stdio_client(server(task_server, work)) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicit) as session:
            await session.initialize()
            await settle(session, charge, ENDED)
            unknown = await session.experimental.get_task_result(charge, types.CallToolResult)
            check(
                "a task cut off in a tool with effects is not run again: its outcome is unknown",
                content(unknown),
                [[{"type": "text", "text": OUTCOME_UNKNOWN}], True],
            )
            await settle(session, render, ENDED)
            rendered = await session.experimental.get_task_result(render, types.CallToolResult)
            check(
                "a task cut off in an idempotent tool runs again to its result",
                content(rendered),
                [[{"type": "text", "text": "rendered report 65"}], False],
            )


async def main(task_server: str, work: Path) -> None:
    ids = await first_run(task_server, work)
    await second_run(task_server, work, *ids)
    check(
        "each effect happened once (the idempotent render cut off by the kill ran again, by design)",
        effects(work),
        {
            "charge 61 start": 1,
            "charge 61 done": 1,
            "render 62 start": 1,
            "refund 63 start": 1,
            "refund 63 done": 1,
            "charge 64 start": 1,
            "render 65 start": 2,
            "render 65 done": 1,
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: python python_tasks_2025.py TASK_SERVER DIR", file=sys.stderr)
        sys.exit(2)
    anyio.run(main, sys.argv[1], Path(sys.argv[2]))
