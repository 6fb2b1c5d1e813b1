"""The official MCP Python SDK (PyPI `mcp`) as the client of skyl's served tasks, at 2026-07-28.

The SDK has no tasks API of its own; it has client extensions, and this is one: the tasks
extension (`io.modelcontextprotocol/tasks`) whose claim on `tools/call`'s `resultType: "task"`
polls `tasks/get` to the result. The other task requests (`tasks/cancel`, `tasks/update`) go
through the SDK's session as requests of their own. Against the `task_server` binary of
tests/mcp on a fresh SQLite journal: a task created and polled to its result, one cancelled while
its tool runs, one whose tool asks and is answered, and the server killed (SIGKILL) while tasks
run, started again on the same journal; each effect counted. Run by tests/sdk/run:

    python python_tasks.py TASK_SERVER DIR

Exits 0 when every check holds, else 1 naming the first that did not.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any, ClassVar, Literal

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.stdio import StdioServerParameters
from pydantic import ConfigDict, Field, TypeAdapter
from task_process import MOST_POLLS, OUTCOME_UNKNOWN, check, effects, server_command, until_started

TASKS = "io.modelcontextprotocol/tasks"
ANY = TypeAdapter(dict[str, Any])


class TaskRequest(types.Request[dict[str, Any], str]):
    """A request of the tasks extension: `tasks/get`, `tasks/update`, `tasks/cancel`."""

    name_param: ClassVar[str | None] = "taskId"


class CreatedTask(types.Result):
    """What a `tools/call` answered with a task holds (SEP-2663's `CreateTaskResult`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


async def task_request(session: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return await session.send_request(TaskRequest(method=method, params=params), ANY)


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    """The person, asked during a call: accepts. Given so that the client declares elicitation,
    which a task's question needs; a task's questions are answered by `accept`."""
    return types.ElicitResult(action="accept", content={"confirm": True})


def accept(asked: dict[str, Any]) -> dict[str, Any]:
    """The person's answer to every question: accepted, confirmed."""
    return {key: {"action": "accept", "content": {"confirm": True}} for key in asked}


async def settle(session: Any, task_id: str, until: tuple[str, ...], answer: Any = None) -> dict[str, Any]:
    """Polls `tasks/get` until the task's status is one of `until`, answering what it asks with
    `answer` (when given) through `tasks/update`."""
    for _ in range(MOST_POLLS):
        got = await task_request(session, "tasks/get", {"taskId": task_id})
        if got["status"] in until:
            return got
        if got["status"] == "input_required" and answer is not None:
            responses = answer(got["inputRequests"])
            await task_request(session, "tasks/update", {"taskId": task_id, "inputResponses": responses})
        await anyio.sleep(got.get("pollIntervalMs", 20) / 1000)
    check(f"task {task_id} reaches {until}", "still " + got["status"], until)
    return got


class Tasks(ClientExtension):
    """The tasks extension: a call answered with a task is polled to its result."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created: CreatedTask, ctx: ClaimContext) -> types.CallToolResult:
        ended = await settle(ctx.session, created.task_id, ("completed", "failed", "cancelled"), accept)
        check(f"the task of {ctx.tool_name} completed", ended["status"], "completed")
        return types.CallToolResult.model_validate(ended["result"])


def server(task_server: str, work: Path) -> StdioServerParameters:
    command, args = server_command(task_server, work)
    return StdioServerParameters(command=command, args=args)


async def first_run(task_server: str, work: Path) -> tuple[str, str, str]:
    """Tasks created, polled, cancelled and asked; two left running when the server is killed.
    The ids of the asked one and the two running ones."""
    async with Client(server(task_server, work), mode="auto", extensions=[Tasks()], elicitation_callback=elicit) as client:
        check("the revision spoken", client.protocol_version, "2026-07-28")
        check(
            "the server declares the tasks extension",
            TASKS in (client.server_capabilities.extensions or {}),
            True,
        )
        session = client.session

        # A call made a task, polled to its result by the extension's claim.
        charged = await client.call_tool("charge", {"order": 51, "wait": False})
        check(
            "a task's result is the call's",
            charged.model_dump(by_alias=True, mode="json", exclude_none=True),
            {"content": [{"type": "text", "text": "charged order 51"}], "isError": False, "resultType": "complete"},
        )

        # A task cancelled while its tool runs.
        render = await session.call_tool("render", {"report": 52, "wait": True}, allow_claimed=True)
        check("a call answered with a task", type(render).__name__, "CreatedTask")
        check("a created task works", render.status, "working")
        await until_started(work, ["render 52 start"])
        await task_request(session, "tasks/cancel", {"taskId": render.task_id})
        cancelled = await settle(session, render.task_id, ("cancelled", "completed", "failed"))
        check("tasks/get says the task was cancelled", cancelled["status"], "cancelled")

        # A task whose tool asks: it waits for the answer, with no effect yet.
        refund = await session.call_tool("refund", {"order": 53, "wait": False}, allow_claimed=True)
        waiting = await settle(session, refund.task_id, ("input_required",))
        check(
            "the task asks what the tool asked",
            waiting["inputRequests"],
            {
                "confirm": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Refund order 53?",
                        "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
                    },
                }
            },
        )

        # Two tasks running when the server is killed: one with effects, one idempotent.
        charge = await session.call_tool("charge", {"order": 54, "wait": True}, allow_claimed=True)
        render = await session.call_tool("render", {"report": 55, "wait": True}, allow_claimed=True)
        await until_started(work, ["charge 54 start", "render 55 start"])
        os.kill(int((work / "pid").read_text()), signal.SIGKILL)
        return refund.task_id, charge.task_id, render.task_id


async def second_run(task_server: str, work: Path, refund: str, charge: str, render: str) -> None:
    """The server started again on the same journal answers for every task."""
    (work / "gate").touch()
    async with Client(server(task_server, work), mode="auto", extensions=[Tasks()], elicitation_callback=elicit) as client:
        session = client.session
        unknown = await settle(session, charge, ("completed", "failed", "cancelled"))
        check(
            "a task cut off in a tool with effects is not run again: its outcome is unknown",
            unknown["result"],
            {"resultType": "complete", "content": [{"type": "text", "text": OUTCOME_UNKNOWN}], "isError": True},
        )
        rendered = await settle(session, render, ("completed", "failed", "cancelled"))
        check(
            "a task cut off in an idempotent tool runs again to its result",
            rendered["result"],
            {"resultType": "complete", "content": [{"type": "text", "text": "rendered report 55"}], "isError": False},
        )
        refunded = await settle(session, refund, ("completed", "failed", "cancelled"), accept)
        check(
            "the asked task, answered after the restart, runs with the answer",
            refunded["result"],
            {
                "resultType": "complete",
                "content": [{"type": "text", "text": 'refunded order 53: "accept"'}],
                "isError": False,
            },
        )


async def main(task_server: str, work: Path) -> None:
    ids = await first_run(task_server, work)
    await second_run(task_server, work, *ids)
    check(
        "each effect happened once (the idempotent render cut off by the kill ran again, by design)",
        effects(work),
        {
            "charge 51 start": 1,
            "charge 51 done": 1,
            "render 52 start": 1,
            "charge 54 start": 1,
            "render 55 start": 2,
            "render 55 done": 1,
            "refund 53 start": 1,
            "refund 53 done": 1,
        },
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: python python_tasks.py TASK_SERVER DIR", file=sys.stderr)
        sys.exit(2)
    anyio.run(main, sys.argv[1], Path(sys.argv[2]))
