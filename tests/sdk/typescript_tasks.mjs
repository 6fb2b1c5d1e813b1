// The official MCP TypeScript SDK as the client of skyl's served tasks, at 2025-11-25: the
// SDK's own task form (`task` on tools/call, then tasks/get, tasks/result, tasks/cancel,
// tasks/list), against the `task_server` binary of tests/mcp on a fresh journal: a task polled to
// its result, one cancelled, one whose tool asks (answered by the SDK's elicitation handler
// during tasks/result), and the server killed (SIGKILL) while two tasks run, then started again
// on the same journal. The SDK speaks no revision after 2025-11-25 (1.32.2, the newest on npm,
// lists 2025-11-25 as its latest), so 2026-07-28's tasks are the Python SDK's test. Run by
// tests/sdk/run:
//
//   node typescript_tasks.mjs TASK_SERVER DIR
//
// Exits 0 when every check holds, else 1 naming the first that did not.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const [server, dir] = process.argv.slice(2);
if (!server || !dir) {
  console.error('usage: node typescript_tasks.mjs TASK_SERVER DIR');
  process.exit(2);
}

function check(what, got, expected) {
  if (!isDeepStrictEqual(got, expected)) {
    console.error(`${what}:\n  got      ${JSON.stringify(got)}\n  expected ${JSON.stringify(expected)}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

/** Drains a callToolStream, cancelling its task once created when `cancel` is set. */
async function stream(client, params, cancel) {
  const seen = [];
  for await (const message of client.experimental.tasks.callToolStream(params, undefined, {
    task: { ttl: 60000 },
  })) {
    seen.push(message);
    if (message.type === 'taskCreated' && cancel) {
      const cancelled = await client.experimental.tasks.cancelTask(message.task.taskId);
      check('tasks/cancel answers with the task, cancelled', cancelled.status, 'cancelled');
    }
  }
  return seen;
}

/** A client of `task_server` on the journal in `dir`, answering every question with yes. */
async function connect() {
  const transport = new StdioClientTransport({
    command: server,
    args: [join(dir, 'tasks.db'), join(dir, 'effects'), join(dir, 'gate')],
    stderr: 'ignore',
  });
  const client = new Client(
    { name: 'skyl-typescript-tasks', version: '0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { confirm: true },
  }));
  await client.connect(transport);
  return { client, transport };
}

function effects() {
  const counted = {};
  if (!existsSync(join(dir, 'effects'))) return counted;
  for (const line of readFileSync(join(dir, 'effects'), 'utf8').split('\n').filter(Boolean)) {
    counted[line] = (counted[line] ?? 0) + 1;
  }
  return counted;
}

/** Waits (at most 30 s) until every line of `lines` is among the effects. */
async function started(lines) {
  for (let n = 0; n < 1500; n++) {
    if (lines.every((line) => effects()[line])) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  check('the tools started', effects(), lines);
}

/** Polls tasks/get (at most 30 s) until the task ends. */
async function ended(client, taskId) {
  for (let n = 0; n < 1500; n++) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 20));
  }
  check('the task ended', 'still running', taskId);
}

const { client, transport } = await connect();

// A call made a task, polled to its result.
const charged = await stream(client, { name: 'charge', arguments: { order: 31, wait: false } });
const created = charged[0];
check('the first message is the created task', created.type, 'taskCreated');
check('the task id is of a 2025-11-25 task', created.task.taskId.startsWith('mcp2025-'), true);
check('the task asks for polls every 20 ms', created.task.pollInterval, 20);
const last = charged[charged.length - 1];
check('the last message is the result', last.type, 'result');
check('the result is the call\'s', last.result.content, [{ type: 'text', text: 'charged order 31' }]);
check('the result says it is no error', last.result.isError, false);
const task = await client.experimental.tasks.getTask(created.task.taskId);
check('tasks/get says the task completed', task.status, 'completed');

// A task cancelled while its tool runs.
const cancelled = await stream(client, { name: 'render', arguments: { report: 32, wait: true } }, true);
const end = cancelled[cancelled.length - 1];
check('a cancelled task ends the stream with an error', end.type, 'error');
const status = await client.experimental.tasks.getTask(cancelled[0].task.taskId);
check('tasks/get says the task was cancelled', status.status, 'cancelled');

// A plain call, without a task, is answered at once.
const plain = await client.callTool({ name: 'charge', arguments: { order: 33, wait: false } });
check('a plain call gets its result', plain.content, [{ type: 'text', text: 'charged order 33' }]);

// A task whose tool asks: the SDK's elicitation handler answers during tasks/result.
const refunded = await stream(client, { name: 'refund', arguments: { order: 36, wait: false } });
const refundedLast = refunded[refunded.length - 1];
check('the asked task\'s result is the call\'s, with the answer', refundedLast.result?.content, [
  { type: 'text', text: 'refunded order 36: "accept"' },
]);

// tasks/list lists every task created so far, oldest first.
const listed = await client.experimental.tasks.listTasks();
check(
  'tasks/list lists the tasks and their status',
  listed.tasks.map((task) => [task.taskId, task.status]),
  [
    [created.task.taskId, 'completed'],
    [cancelled[0].task.taskId, 'cancelled'],
    [refunded[0].task.taskId, 'completed'],
  ],
);

// Two tasks running when the server is killed: one with effects, one idempotent.
const asTask = { task: { ttl: 60000 } };
const charge = await client.request(
  { method: 'tools/call', params: { name: 'charge', arguments: { order: 34, wait: true }, ...asTask } },
  CreateTaskResultSchema,
);
const render = await client.request(
  { method: 'tools/call', params: { name: 'render', arguments: { report: 35, wait: true }, ...asTask } },
  CreateTaskResultSchema,
);
await started(['charge 34 start', 'render 35 start']);
process.kill(transport.pid, 'SIGKILL');
await client.close().catch(() => {});

// Started again on the same journal, the server answers for both.
writeFileSync(join(dir, 'gate'), '');
const again = (await connect()).client;
const unknown = await ended(again, charge.task.taskId);
check('a task cut off in a tool with effects completed', unknown.status, 'completed');
const unknownResult = await again.experimental.tasks.getTaskResult(charge.task.taskId, CallToolResultSchema);
check('its outcome is unknown: it is not run again', [unknownResult.content, unknownResult.isError], [
  [
    {
      type: 'text',
      text:
        'ERROR: the outcome of this charge call is unknown: it was started, and the process running it stopped ' +
        'before it finished, so it may or may not have taken effect. It was not run again, so that its effect ' +
        'is not repeated. Before calling charge again, check whether it took effect (with a tool that reads the ' +
        'state it changes, or by asking the user); call it again only if it did not.',
    },
  ],
  true,
]);
await ended(again, render.task.taskId);
const rendered = await again.experimental.tasks.getTaskResult(render.task.taskId, CallToolResultSchema);
check('a task cut off in an idempotent tool runs again to its result', rendered.content, [
  { type: 'text', text: 'rendered report 35' },
]);
await again.close();

// Each effect once: the charges ran to their end, the cancelled render started and stopped, the
// charge cut off by the kill never ran again; the idempotent render cut off did, by design.
check('each effect happened once', effects(), {
  'charge 31 start': 1,
  'charge 31 done': 1,
  'render 32 start': 1,
  'charge 33 start': 1,
  'charge 33 done': 1,
  'refund 36 start': 1,
  'refund 36 done': 1,
  'charge 34 start': 1,
  'render 35 start': 2,
  'render 35 done': 1,
});
