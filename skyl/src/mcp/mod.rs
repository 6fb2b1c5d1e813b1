//! The Model Context Protocol, both ways (feature `mcp`): serve a [`Toolbox`](crate::Toolbox) as
//! an MCP server, and mount an MCP server's tools in a toolbox beside local ones.
//!
//! Both directions run on the official Rust SDK, [`rmcp`], which this module re-exports so that
//! code reaching for its types uses the version skyl was built with. The protocol itself (the
//! handshake, JSON-RPC framing, cancellation, version negotiation) is rmcp's; skyl decides what a
//! tool looks like on the wire and keeps its guarantee on both sides: every call gets one result,
//! and a failure is prose that names the tool, the cause and the next step.
//!
//! Both sides speak MCP 2026-07-28 (no handshake: `server/discover`, and each request carrying
//! its protocol version, client capabilities and client in `_meta`, with the `MCP-Protocol-Version`
//! and `Mcp-Method` headers over HTTP) with a peer that does, and 2025-11-25 (and the revisions
//! before it, through `initialize`) with one that does not. A mounted server is asked with
//! `server/discover` first; one that answers with an error, or lists only revisions with a
//! handshake, gets `initialize` on the same connection. Served with
//! [`Server::serve_http`], a request at 2026-07-28 for a method that revision removed
//! (`initialize`, `ping`, `logging/setLevel`) is answered 404 with JSON-RPC's -32601, as the
//! revision asks.
//!
//! The code is split by direction: serving in `serve/`, mounting in `mount/`, and what both
//! share here (`content.rs`, a tool's answer as `tools/call` carries it; `error.rs`, what fails
//! before a call; `listing.rs`, a tool as `tools/list` shows it), with `reading.rs`, the
//! macros' support for served prompts and resources, kept at `skyl::mcp::reading` because their
//! compile errors name that path. Each side's module doc is the map of its files.
//!
//! # Serving a toolbox
//!
//! [`Server`] wraps a toolbox (its state included). `tools/list` comes from the definitions, and
//! `tools/call` goes through [`Toolbox::dispatch`](crate::Toolbox::dispatch):
//!
//! ```no_run
//! /// Adds two numbers.
//! #[skyl::tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> Result<(), skyl::mcp::ServeError> {
//!     let toolbox = skyl::Toolbox::new().with(Add);
//!     skyl::mcp::Server::new(toolbox).serve_stdio().await
//! }
//! ```
//!
//! | in a `tools/call` | the MCP client receives |
//! |---|---|
//! | a result | `content: [{"type": "text", ...}]`, `isError: false` |
//! | a result with [content](crate::Content) | the prose as a `text` block, then per part: an `image` block (an image at a URL: a `resource_link`), an `audio` block, a `resource` block (a PDF given as bytes: a blob resource `attachment:///{title}`), a `resource_link` block; structured JSON as `structuredContent`, with its JSON as a `text` block unless the prose is that JSON |
//! | a tool whose definition has an `output_schema` | the same, plus the output parsed into `structuredContent` |
//! | arguments that do not fit, the tool's `Err`, a panic, a timeout | `isError: true` and skyl's prose, as a result: MCP asks for tool errors, input validation included, to be results so that the model can correct itself |
//! | a tool name the toolbox does not have | JSON-RPC error -32602 (MCP makes it a protocol error), whose message is skyl's prose: the tools there are, the nearest name |
//! | `arguments` that are not an object (an array, JSON text) | JSON-RPC error -32602, whose message is skyl's prose: the request does not satisfy MCP's `CallToolRequest`, which MCP makes a protocol error, and the tool does not run |
//! | `notifications/cancelled` | the tool's [`CallContext`](crate::tool::CallContext) is cancelled, its future is polled through its grace ([`Toolbox::with_cancel_grace`](crate::Toolbox::with_cancel_grace)) and then dropped, and no response is sent |
//! | a tool's [`CallContext::progress`](crate::tool::CallContext::progress), when the request's `_meta` has a `progressToken` | `notifications/progress` with that token, before the result |
//! | a tool's [`CallContext::log`](crate::tool::CallContext::log) | `notifications/message` (the `logger` is the tool's name), at or above the level of the client's `logging/setLevel` (every line until it sets one), before the result; at 2026-07-28, at or above the request's `_meta` `logLevel`, and none when it names none |
//!
//! `tools/list` carries each tool's name, description and `inputSchema` (skyl's canonical
//! schema, with `$schema` naming its dialect, JSON Schema 2020-12), and, where the definition has
//! them, its title and annotations ([`ToolAnnotations`](crate::tool::ToolAnnotations)) and its
//! `outputSchema`. The server declares `logging` and accepts the level a client sets.
//!
//! With [`Server::with_task_journal`], a call from a client that declares MCP's tasks extension
//! (`io.modelcontextprotocol/tasks`) is answered at once with a task, which the client polls with
//! `tasks/get` to its result and may cancel with `tasks/cancel`; each task is kept in a journal
//! (SQLite with the feature `durable`), so a server killed and started again on it still answers
//! for every task, and never runs a call that may have had effects twice. A task's tool that
//! [`ask`]s makes the task `input_required`; the client answers with `tasks/update`, and the call
//! runs again with the answers. A client of 2025-11-25 that asks for a task its own way (a
//! `task` parameter on `tools/call`) gets one from the same journal, in that revision's shapes
//! (`tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`); a server without a journal
//! refuses such a call (-32601) before it runs. Its `tools/list` says which tools take a task
//! (`execution.taskSupport`: `optional`, or `required` for those
//! [`Server::with_tasks_required_for`] requires it of), and its task whose tool asks is
//! `input_required` until `tasks/result` has asked the client (`elicitation/create`, the task
//! named in `_meta`) and the call has run again with the answers.
//!
//! A tool that needs to ask the client something mid-call (the person's input through
//! elicitation, a completion through sampling) asks with [`ask`], at every revision: at
//! 2026-07-28, where a server sends no request of its own during a call, the call is answered
//! with an input-required result holding its questions and a signed request state, and the
//! tool runs again, from its start, when the client calls with the answers, which [`answer`]
//! gives; before it, the server asks the client during the call and runs the tool again with
//! the answers ([`client_capabilities`] says what the client can answer). [`caller`] reaches a
//! client of 2025-11-25 directly.
//!
//! A call that needs a person's approval (by default, of a tool whose annotations say it is
//! destructive; [`Server::with_approval`] chooses) asks the client first, through elicitation:
//! the tool runs once the person accepts, and otherwise does not run and the client receives
//! an error result saying why, a client that cannot ask (no elicitation capability) included.
//! At 2026-07-28 the question is an input-required result (SEP-2322) instead of a request during
//! the call: the call's response asks it, with a request state signed for this call
//! ([`Server::with_state_key`]), and the client sends the call again with the answer and the
//! state; no connection is held open meanwhile. A changed state, or one given for another call,
//! is refused (JSON-RPC error -32602), and a client that did not declare elicitation gets
//! -32021 (missing client capability) with the same prose; the tool does not run.
//!
//! On the stdio transport nothing but JSON-RPC is written to stdout: skyl prints nothing, and a
//! tool's panic message goes through the panic hook, to stderr. Keep your own logging on stderr.
//!
//! [`Server::serve_stdio`] reads one message a line, of at most **16 MiB** (16,777,216 bytes),
//! and answers what is not a message as JSON-RPC 2.0 says instead of leaving the client to its
//! timeout; the server goes on either way:
//!
//! | on stdin | the client receives |
//! |---|---|
//! | a line that is not JSON, or that nests arrays and objects more than 128 deep | error -32700, `id` null |
//! | JSON that is not a request (not an object, a batch, no `method`, `jsonrpc` not `"2.0"`) | error -32600, with the request's `id` if it has a readable one, else null |
//! | a line over 16 MiB | error -32600 saying its size, with its `id` if one was found while the line was skipped, else null; the line is never held whole |
//! | params that do not fit a method MCP has | error -32602 saying where (rmcp alone answers -32601 "method not found"); this one on every transport |
//! | a notification that does not read | nothing (JSON-RPC never answers a notification) |
//!
//! With the feature `mcp-http`, [`Server::serve_http`] serves streamable HTTP on a local port.
//! Without authorization it answers only requests addressed to a loopback host;
//! [`Server::with_authorization`] requires a bearer token checked by a verifier you give
//! ([`Authorization`]: 401 or 403 with a `WWW-Authenticate` challenge, and the protected-resource
//! metadata document; scopes for the whole server, and per tool with
//! [`Authorization::require_tool_scopes`], whose calls without them get the 403 that starts MCP's
//! step-up authorization), and [`Server::with_stateless_http`] answers without sessions, so that
//! several processes can sit behind a load balancer. A POST body is a message of at most 4 MiB
//! (rmcp's limit); one that is not a message is answered 400 with the JSON-RPC error stdio would
//! give it (413 when it is too long).
//!
//! ## Tasks from the official SDKs
//!
//! The TypeScript SDK (`@modelcontextprotocol/sdk`, 1.32.2) speaks 2025-11-25 and its task form;
//! a server with a journal answers it as is. Declare elicitation to answer what a task's tool
//! asks: the SDK's handler is called during `tasks/result`.
//!
//! ```js
//! import { Client } from '@modelcontextprotocol/sdk/client/index.js';
//! import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
//! import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
//!
//! const client = new Client({ name: 'app', version: '1' }, { capabilities: { elicitation: { form: {} } } });
//! client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
//! await client.connect(new StdioClientTransport({ command: 'report-server' }));
//! const stream = client.experimental.tasks.callToolStream(
//!   { name: 'render_report', arguments: { month: 'May' } }, undefined, { task: { ttl: 60000 } });
//! for await (const message of stream) {
//!   if (message.type === 'taskCreated') console.log('task', message.task.taskId); // keep it
//!   if (message.type === 'result') console.log(message.result.content);
//! }
//! // Later, on any connection to the server (restarted or not) on the same journal:
//! //   client.experimental.tasks.getTask(id), .getTaskResult(id, CallToolResultSchema),
//! //   .cancelTask(id), .listTasks()
//! ```
//!
//! The Python SDK (PyPI `mcp`, 2.3.0) speaks 2026-07-28, and has no tasks API but client
//! extensions: this one claims a `tools/call` answered with a task and polls it to its result,
//! answering what the task asks with `tasks/update`.
//!
//! ```python
//! from typing import Any, ClassVar, Literal
//! import anyio, mcp_types as types
//! from mcp.client.client import Client
//! from mcp.client.extension import ClientExtension, ResultClaim
//! from mcp.client.stdio import StdioServerParameters
//! from pydantic import ConfigDict, Field, TypeAdapter
//!
//! class TaskRequest(types.Request[dict[str, Any], str]):
//!     name_param: ClassVar[str | None] = "taskId"
//!
//! class CreatedTask(types.Result):
//!     model_config = ConfigDict(extra="allow")
//!     result_type: Literal["task"] = Field(alias="resultType")
//!     task_id: str = Field(alias="taskId")
//!
//! class Tasks(ClientExtension):
//!     identifier = "io.modelcontextprotocol/tasks"
//!     def claims(self):
//!         return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]
//!     async def resolve(self, created, ctx):
//!         ask = lambda method, params: ctx.session.send_request(
//!             TaskRequest(method=method, params=params), TypeAdapter(dict[str, Any]))
//!         while True:
//!             task = await ask("tasks/get", {"taskId": created.task_id})
//!             if task["status"] == "completed":
//!                 return types.CallToolResult.model_validate(task["result"])
//!             if task["status"] in ("failed", "cancelled"):
//!                 raise RuntimeError(task.get("statusMessage", task["status"]))
//!             if task["status"] == "input_required":  # answer each question, by its key
//!                 answers = {key: {"action": "accept", "content": {}} for key in task["inputRequests"]}
//!                 await ask("tasks/update", {"taskId": created.task_id, "inputResponses": answers})
//!             await anyio.sleep(task.get("pollIntervalMs", 500) / 1000)
//!
//! async def main():
//!     async with Client(StdioServerParameters(command="report-server"), extensions=[Tasks()]) as client:
//!         print(await client.call_tool("render_report", {"month": "May"}))
//! ```
//!
//! At 2025-11-25, the Python SDK's last 1.x release (1.30.0) has that revision's tasks API:
//! `session.experimental.call_tool_as_task(name, arguments)`, `get_task`, `get_task_result`
//! (during which the session's `elicitation_callback` answers what the task's tool asks),
//! `cancel_task` and `list_tasks`. `tests/sdk/` in skyl's repository drives these SDKs against a
//! server killed and started again.
//!
//! # Prompts and resources beside the tools
//!
//! A server offers prompts (messages a person picks, with arguments) and resources (contents at
//! a URI, or at each URI a template fits) beside its tools. Write them as functions, as tools
//! are written, and give them to the server:
//!
//! ```no_run
//! use skyl::mcp::{PromptMessage, Server};
//!
//! #[derive(serde::Deserialize)]
//! #[serde(rename_all = "lowercase")]
//! enum Tone { Kind, Blunt }
//!
//! /// Asks for a review of a piece of code.
//! #[skyl::prompt]
//! fn code_review(
//!     /// The code to review.
//!     code: String,
//!     /// How to say it; kind unless given.
//!     tone: Option<Tone>,
//! ) -> Vec<PromptMessage> {
//!     let tone = if matches!(tone, Some(Tone::Blunt)) { "bluntly" } else { "kindly" };
//!     vec![PromptMessage::user(format!("Review this code, {tone}:\n{code}"))]
//! }
//!
//! /// The notes of one day of the month.
//! #[skyl::resource(uri_template = "notes://days/{day}", mime_type = "text/markdown")]
//! async fn day(day: u8) -> Result<String, std::io::Error> {
//!     std::fs::read_to_string(format!("notes/{day}.md"))
//! }
//!
//! /// The logo.
//! #[skyl::resource(uri = "assets://logo", mime_type = "image/png")]
//! fn logo() -> Vec<u8> {
//!     b"\x89PNG\r\n\x1a\n".to_vec()
//! }
//!
//! # async fn run() -> Result<(), skyl::mcp::ServeError> {
//! Server::new(skyl::Toolbox::new())
//!     .with_prompt(CodeReview)
//!     .with_resource(Day)
//!     .with_resource(Logo)
//!     .serve_stdio()
//!     .await
//! # }
//! ```
//!
//! A prompt's parameters are its arguments (an `Option` may be left out; each doc comment is
//! the argument's description), read from the text MCP sends as their types: `"3"` for a
//! number, an enum's variant by its name. A template's variables (`{name}`: one segment of the
//! URI, percent-decoded; `{+name}`: any text, slashes included) are the resource function's
//! parameters, read the same way. `completion/complete` offers an enum parameter's variants
//! that begin with what the client typed. Prompts return text, [`PromptMessage`]s (a user's or
//! an assistant's: text, an [`Image`](crate::content::Image), audio, an embedded
//! [`Resource`](crate::content::Resource)); resources return text, bytes or [`Resource`](crate::content::Resource)s,
//! of the `mime_type` given. [`DynamicPrompt`] and [`DynamicResource`] are the same made at run
//! time from a definition and a closure, with a completer of your own
//! ([`DynamicPrompt::with_completion`]); [`ServedPrompt`] and [`ServedResource`] are the traits
//! for a type of your own.
//!
//! | in a `prompts/get` or `resources/read` | the client receives |
//! |---|---|
//! | the function's value | `messages` (with the prompt's description), or `contents` with the URI and media type |
//! | a prompt name the server does not have | JSON-RPC error -32602 naming the prompts there are and the nearest |
//! | a required argument missing, an argument that does not read as its type | -32602 naming the argument, why, and what to send |
//! | a URI that is no resource and fits no template | -32002 (-32602 at 2026-07-28, SEP-2164), `data: {"uri": ...}`, the resources there are |
//! | a URI whose template variable does not read as its type | -32602 naming the variable, `data: {"uri": ...}` |
//! | the function's `Err`, a panic | -32603 with the cause (the panic's message) and the next step |
//! | a prompt that [`ask`]s, at 2026-07-28 | an input-required result with a signed request state, as a tool's |
//!
//! At 2026-07-28, lists and reads carry caching hints: `ttlMs: 0` and `cacheScope: "private"`
//! unless [`Server::with_cache_hints`] gives others. A server's tools, prompts and resources
//! are given before it serves and do not change while it does, so it declares `listChanged:
//! false` for each and sends no `list_changed` notification; a resource's contents may change
//! ([`Server::resource_updates`]).
//! A client subscribes to a resource (`resources/subscribe` at 2025-11-25, a
//! `subscriptions/listen` stream at 2026-07-28), and [`Server::resource_updates`] tells it when
//! the resource changed.
//!
//! # Mounting a server's tools
//!
//! [`Remote`] is a connection to an MCP server: a child process spoken to over stdio
//! ([`Remote::spawn`]), any rmcp transport ([`RemoteBuilder::connect`]) or, with `mcp-http`, a
//! URL ([`RemoteBuilder::connect_http`]). Its tools are [`RemoteTool`]s that go into a toolbox
//! like any other:
//!
//! ```no_run
//! use skyl::mcp::Remote;
//! use tokio::process::Command;
//!
//! /// Says hello.
//! #[skyl::tool]
//! fn hello() -> &'static str {
//!     "hello"
//! }
//!
//! # async fn run() -> Result<(), skyl::mcp::ConnectError> {
//! let files = Remote::spawn("files", Command::new("my-files-server")).await?;
//! let toolbox = skyl::Toolbox::new().with(Hello).with_remote(&files);
//! // The server's `read.file` is now `files_read_file`, beside `hello`.
//! # Ok(())
//! # }
//! ```
//!
//! - **Names.** Every name is made acceptable to every provider (a letter or `_` first, then
//!   `a-z A-Z 0-9 _ -`, at most 64 characters): the server's name is put in front as a prefix
//!   (change it with [`RemoteBuilder::prefix`]), other characters become `_`, and two names
//!   that come out equal get `_2`, `_3`. The call goes to the server under its own name.
//! - **Schemas.** A mounted tool's definition holds the server's input schema in skyl's
//!   canonical form, the one a model is sent (see [`crate::schema`]: no `$schema`, no root
//!   `title`); [`RemoteTool::input_schema`] keeps it as the server listed it, every keyword of
//!   JSON Schema 2020-12 included.
//! - **Results.** The text blocks before the first other block are the result's prose; every
//!   other block is a part of its [content](crate::Content), beside the result in the tool
//!   message ([`Toolbox::answer`](crate::Toolbox::answer) and the agent keep it; each adapter
//!   puts it on its wire): images, audio, embedded resources, resource links and later text.
//!   `structuredContent` is a [`Content::Json`](crate::Content::Json) part unless the text
//!   already says it: a text block that is its JSON, or, as the Python SDK's FastMCP writes a
//!   typed function's value, the text `3` beside `{"result": 3}` (a list: a block per item). A
//!   model reads each value once. [`Toolbox::dispatch`](crate::Toolbox::dispatch), whose result
//!   is text alone, says each part in a line. A result with `isError: true` is a failed result
//!   carrying the server's own message.
//! - **Failures.** A server that exited, crashed, closed the connection or did not answer within
//!   [`RemoteBuilder::call_timeout`] gives a failed result that names the server and says what
//!   to do; a call never hangs and never panics. Mounted tools need a tokio runtime: dispatch
//!   them with `.await` inside it.
//! - **Questions.** A server that asks the person something during a call (`elicitation/create`)
//!   pauses the [agent run](crate::agent) making the call, as a call waiting for approval does:
//!   the run stops, [`Run::question`](crate::agent::Run::question) shows what the server asks,
//!   and resumed after [`Run::reply`](crate::agent::Run::reply) the server receives the reply
//!   and the call goes on. The call waits in this process meanwhile (it holds its connection
//!   open); a run resumed in a process that does not hold it (another one, or this one after a
//!   restart) runs the call again if its tool is idempotent, and otherwise answers it with an
//!   error saying its outcome is unknown. With several calls to one server in flight, a
//!   question is shown on one of them (MCP does not say which call asked); its message says
//!   what it is about. Outside a run, a question is declined and the call logs why;
//!   [`RemoteBuilder::on_question`] answers them all instead. A client skyl builds declares
//!   the elicitation capability (form mode).
//!
//!   A server at 2026-07-28 asks in an input-required result instead: the question pauses the
//!   run the same way, and the reply goes back in the call sent again with the server's request
//!   state, exactly as given. The saved run keeps that state, so a run resumed in another process
//!   (or after a restart) sends the reply on there, through the call's tool, instead of answering
//!   outcome-unknown; the server answers as it would have in the first process.
//! - **Tasks.** skyl's client declares the tasks extension: a server that answers a call with a
//!   task is polled (`tasks/get`, as often as it asks) until the task ends, bounded by
//!   [`RemoteBuilder::task_timeout`], and the call's result is the task's. A task that waits
//!   for input (`input_required`, a form question) is answered as a question during the call
//!   is (the handler, else the person through a paused run, else declined), with
//!   `tasks/update`, one question at a time; the person's reply reaches the task from another
//!   process too. With [`RemoteBuilder::task_journal`], the task id is recorded as the call's
//!   handle in the run's journal, and a journaled run resumed in another process awaits that
//!   task instead of calling the tool again.
//! - **A changing tool list.** The server's `notifications/tools/list_changed` refreshes
//!   [`Remote::tools`]. A toolbox keeps the tools it was built with (a model must not see its
//!   tools change in the middle of a turn): a tool the server dropped answers that it is gone,
//!   and [`Remote::changed`] tells you when to build the next toolbox.
//!
//! # Features
//!
//! `mcp` brings rmcp (server and client, stdio transports) and tokio; `mcp-http` adds rmcp's
//! streamable HTTP transports, hyper to listen, and reqwest (without TLS: enable one of reqwest's
//! TLS features in your own `Cargo.toml` to reach `https://` servers) to connect. `mcp-oauth`
//! adds [`RemoteBuilder::oauth`]: OAuth 2.1 for the servers mounted over HTTP that require it
//! ([`OAuth`]: discovery, client registration, a person's authorization with PKCE or client
//! credentials, step-up for more scopes), on rmcp's OAuth client and the oauth2 crate.

// What both directions share: content, errors, the tool listing.
mod content;
mod error;
mod listing;
// Macro support for served prompts and resources (text read as a parameter's type), at the top
// because `#[prompt]`'s and `#[resource]`'s compile errors name its path.
#[doc(hidden)]
pub mod reading;
// Each direction, with the map of its files in its module doc.
mod mount;
mod serve;

pub use error::{Cause, ConnectError, ServeError};
#[cfg(feature = "mcp-oauth")]
pub use mount::oauth::{Authorize, AuthorizeFuture, OAuth};
pub use mount::{Remote, RemoteBuilder, RemoteTool};
pub use serve::Server;
#[cfg(feature = "mcp-http")]
pub use serve::authorization::{Authorization, Grant};
pub use serve::caller::{answer, ask, caller, client_capabilities};
pub use serve::catalog::{ResourceUpdates, ServedSet};
pub use serve::failure::Failure;
pub use serve::prompt::{
    DynamicPrompt, IntoPromptMessages, PromptArgument, PromptArguments, PromptDefinition,
    PromptFuture, PromptMessage, ServedPrompt,
};
pub use serve::resource::{
    DynamicResource, IntoResourceContents, ResourceDefinition, ResourceFuture, ResourceRead,
    ServedResource,
};

/// The MCP SDK skyl is built on, for its types (transports, `ServerHandler`, the protocol model).
pub use rmcp;
