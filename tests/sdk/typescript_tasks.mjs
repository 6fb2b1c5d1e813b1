// The official MCP TypeScript SDK as the client of skyl's served tasks, at 2025-11-25: the
// SDK's own task form (`task` on tools/call, then tasks/get, tasks/result, tasks/cancel), against
// the `task_server` binary of tests/mcp on a fresh journal. Run by tests/sdk/run:
//
//   node typescript_tasks.mjs TASK_SERVER DIR
//
// Exits 0 when every check holds, else 1 naming the first that did not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

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

const transport = new StdioClientTransport({
  command: server,
  args: [join(dir, 'tasks.db'), join(dir, 'effects'), join(dir, 'gate')],
  stderr: 'ignore',
});
const client = new Client({ name: 'skyl-typescript-tasks', version: '0' }, { capabilities: {} });
await client.connect(transport);

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

await client.close();

// Each effect once: the charges ran to their end, the cancelled render started and stopped.
const effects = {};
for (const line of readFileSync(join(dir, 'effects'), 'utf8').split('\n').filter(Boolean)) {
  effects[line] = (effects[line] ?? 0) + 1;
}
check('each effect happened once', effects, {
  'charge 31 start': 1,
  'charge 31 done': 1,
  'render 32 start': 1,
  'charge 33 start': 1,
  'charge 33 done': 1,
});
