//! # skyl: typed tools for language models
//!
//! skyl turns ordinary Rust functions into tools a language model can call, and guarantees that
//! every call the model makes gets exactly one [`ToolResult`] whose content tells the model what
//! happened and what to do next.
//!
//! ## What skyl does, and where to read about it
//!
//! | capability | feature | read |
//! |---|---|---|
//! | a tool from a function or a method: name, description and JSON schema from the signature and its doc comments | | [A tool is a function](#a-tool-is-a-function), [`tool`](macro@tool), [`tools`](macro@tools) |
//! | exactly one result per call, whatever goes wrong, in prose the model can act on | | [Every call gets exactly one result](#every-call-gets-exactly-one-result) |
//! | timeouts, blocking tools, cancellation, progress and logs from inside a call | `timeout` for timeouts | [Per-tool settings](#per-tool-settings), [A tool's view of its call](#a-tools-view-of-its-call) |
//! | images, PDFs, audio, resources and JSON beside the prose, lowered per provider | | [Results beyond text](#results-beyond-text), [`content`] |
//! | tools made at run time, size and depth limits, repeated-call detection, shared state | | [Tools built at run time](#tools-built-at-run-time), [Limits](#limits), [State](#state) |
//! | the four providers' wires, transcripts checked before sending, a provider of your own | | [Providers](#providers), [`provider`], [`provider::author`] |
//! | checking a toolbox against generated arguments, a scripted model for agent tests | `testing` | [Testing your tools](#testing-your-tools) |
//! | the agent loop: hooks, approvals, questions, budgets and cost, typed answers, tool search | | [Agent loop](#agent-loop), [`agent`] |
//! | agents as tools of other agents, handoffs and take-overs, the tree's usage and budget | | [Agents that call agents](#agents-that-call-agents) |
//! | runs that survive a crash: a journal of effects, each run once | `durable` | [Durable runs](#durable-runs), [`agent::journal`] |
//! | streamed answers, and a call's arguments readable while they stream | | [Streaming](#streaming), [`provider::stream`], [`provider::partial`] |
//! | HTTP to every provider, retries, streaming | `http` | [Talking to providers over HTTP](#talking-to-providers-over-http) |
//! | failing over to another model or provider, each answer priced at who gave it | | [Failing over to another provider](#failing-over-to-another-provider) |
//! | prompt caching, and an event when a change broke the cache | | [`provider::caching`], `Agent::with_caching`, `Event::CacheBroken` |
//! | an MCP server of a toolbox, with prompts and resources beside the tools (`#[prompt]`, `#[resource]`) | `mcp`, `mcp-http` | [MCP](#mcp) |
//! | MCP tasks from the journal, for clients of 2026-07-28 and 2025-11-25; `ask` at every revision | `mcp` with `durable` | [MCP](#mcp) (`Server::with_task_journal`) |
//! | an MCP server's tools mounted in a toolbox, OAuth included | `mcp`, `mcp-http`, `mcp-oauth` | [MCP](#mcp) |
//! | spans for runs, requests and calls, named as OpenTelemetry's GenAI conventions | `tracing` | [Feature flags](#feature-flags) |
//!
//! The crate root holds the common case; each module holds one role: [`tool`](mod@tool) what a tool takes
//! and returns, [`content`] the kinds of content, [`transcript`] a transcript by hand,
//! [`provider`] the wires, [`model`] the seam to a model, [`agent`] the loop.
//!
//! ## A tool is a function
//!
//! ```
//! use skyl::{ToolCall, Toolbox};
//!
//! /// Get the current weather for a city.
//! #[skyl::tool]
//! fn get_weather(
//!     /// The city, for example "Kampala".
//!     city: &str,
//!     /// How many days of forecast; today only when omitted.
//!     days: Option<u8>,
//! ) -> String {
//!     format!("22C and sunny in {city} for {} day(s)", days.unwrap_or(1))
//! }
//!
//! // The function is still a function...
//! assert_eq!(get_weather("Gulu", None), "22C and sunny in Gulu for 1 day(s)");
//!
//! // ...and `GetWeather` is the tool: a definition for the model and a typed dispatcher.
//! let toolbox = Toolbox::new().with(GetWeather);
//! let definition = &toolbox.definitions()[0];
//! assert_eq!(definition.description, "Get the current weather for a city.");
//! assert_eq!(
//!     definition.parameters,
//!     serde_json::json!({
//!         "type": "object",
//!         "properties": {
//!             "city": {"type": "string", "description": "The city, for example \"Kampala\"."},
//!             "days": {
//!                 "type": ["integer", "null"],
//!                 "minimum": 0,
//!                 "maximum": 255,
//!                 "description": "How many days of forecast; today only when omitted."
//!             }
//!         },
//!         "required": ["city"],
//!         "additionalProperties": false
//!     })
//! );
//!
//! let call = ToolCall::new("call_1", "get_weather", serde_json::json!({"city": "Kampala"}));
//! assert_eq!(toolbox.dispatch_blocking(&call).content, "22C and sunny in Kampala for 1 day(s)");
//! ```
//!
//! The doc comment is the tool's description and each parameter's `///` is that argument's
//! description: a tool without a description does not compile, because a model cannot use an
//! undocumented tool well. See [`tool`](macro@tool) for everything the attribute accepts.
//!
//! ## Methods as tools
//!
//! Tools that need a client, a pool or a workspace are methods of the type that holds it. Mark the
//! `impl` block [`#[tools]`](macro@tools) and each tool method `#[tool]`; one call registers them
//! all, sharing the instance, and a prefix keeps two instances apart:
//!
//! ```
//! use skyl::{ToolCall, Toolbox};
//!
//! /// A library's catalogue.
//! struct Catalogue { titles: Vec<&'static str> }
//!
//! #[skyl::tools]
//! impl Catalogue {
//!     /// Searches the catalogue for titles that contain a word.
//!     #[tool(read_only)]
//!     fn search_titles(
//!         &self,
//!         /// The word, e.g. "river".
//!         word: String,
//!     ) -> Vec<&'static str> {
//!         self.titles.iter().copied().filter(|title| title.contains(&word)).collect()
//!     }
//! }
//!
//! let toolbox = Toolbox::new()
//!     .with_set(Catalogue { titles: vec!["The River", "Moby-Dick"] })
//!     .with_set_prefixed("archive_", Catalogue { titles: vec!["River Songs"] });
//! let call = ToolCall::new("c1", "archive_search_titles", serde_json::json!({"word": "River"}));
//! assert_eq!(toolbox.dispatch_blocking(&call).content, r#"["River Songs"]"#);
//! ```
//!
//! ## Per-tool settings
//!
//! `#[tool(...)]` also says how a tool runs and what a host should know about it: `timeout = "5s"`
//! (feature `timeout`), `blocking` for a synchronous function that blocks (it runs on a small pool
//! of threads, so the calls of a turn run side by side and the timeout holds), the Model Context
//! Protocol's hints `title`, `read_only`, `destructive`, `idempotent` and `open_world` (carried on
//! [`ToolDefinition::annotations`], left off the providers' wire), and `output_schema`. See
//! [`tool`](macro@tool#per-tool-settings).
//!
//! ```
//! /// Counts the lines of a file on disk.
//! #[skyl::tool(blocking, read_only)]
//! fn count_lines(path: String) -> std::io::Result<usize> {
//!     Ok(std::fs::read_to_string(path)?.lines().count())
//! }
//! # let _ = CountLines;
//! ```
//!
//! ## Every call gets exactly one result
//!
//! [`Toolbox::dispatch`] answers one call and [`Toolbox::answer`] a whole assistant turn (its calls
//! run concurrently; the results keep call order). Neither can fail. Whatever goes wrong becomes a
//! result with `is_error: true` and prose that names the tool, the cause and the next step:
//!
//! | what happened | the model reads |
//! |---|---|
//! | no tool of that name | the tools there are, and the nearest name |
//! | arguments that do not fit | which argument, what was expected, "call it again with corrected arguments" |
//! | the tool returned `Err(e)` | `e`, and "do not retry; tell the user" |
//! | the tool returned a [`ToolFailure`] | its message, and the guidance it chose |
//! | the tool panicked | that it crashed, and not to retry |
//! | the call ran past `Toolbox::with_timeout` or its own `#[tool(timeout = "...")]` (feature `timeout`) | that it timed out |
//! | its arguments were past the toolbox's [`Limits`] in size or depth | that it was not run, and "call it again with smaller (flatter) arguments" |
//!
//! The prose matters because the `is_error` flag is lossy: only Anthropic receives it as a
//! flag. The OpenAI adapters turn it into an `"error: "` prefix, and Gemini drops it.
//!
//! A tool's `Err` chooses the model's next step with a [`ToolFailure`], or, in a tool that returns
//! `anyhow::Result` or `Box<dyn Error>` and relies on `?`, with a [`GuidedError`](crate::tool::GuidedError) or the [`Guide`](crate::tool::Guide)
//! methods on `Result`, which travel through `?` and any error chain that prints its causes:
//!
//! ```
//! use skyl::tool::Guide;
//!
//! /// Reads a note.
//! #[skyl::tool]
//! fn read_note(
//!     /// The note's number.
//!     number: String,
//! ) -> anyhow::Result<String> {
//!     let number: u32 = number.parse().retry_with_other_arguments()?;
//!     Ok(format!("note {number}"))
//! }
//! # let toolbox = skyl::Toolbox::new().with(ReadNote);
//! # let call = skyl::ToolCall::new("c", "read_note", serde_json::json!({"number": "x"}));
//! # assert!(toolbox.dispatch_blocking(&call).content.ends_with("Call read_note again with different arguments."));
//! ```
//!
//! A panic that is Tokio saying the application called a tool without the runtime it needs is
//! reported as the application's problem, with the fix, not as a bug in the tool.
//!
//! ## Results beyond text
//!
//! A tool can answer with an image, audio, a PDF, a link to a resource, an embedded resource or
//! structured JSON beside its prose: return an [`Image`](crate::content::Image) (`Image::png(bytes)`), a tuple such as
//! `(String, Image)`, a [`ToolOutput`](crate::tool::ToolOutput) built part by part, a list of content (`Vec<Image>`,
//! `Vec<Content>`, `[Content; N]`: as many parts as it holds), or an `Option` or `Result` of
//! these; a [`DynamicTool`] closure may return the same.
//!
//! ```
//! use skyl::{Message, Part, Role, ToolCall, Toolbox, content::Image};
//!
//! # const PNG_BYTES: &[u8] = b"\x89PNG\r\n\x1a\n";
//! /// Draws the chart of a city's week.
//! #[skyl::tool]
//! fn chart(city: String) -> (String, Image) {
//!     (format!("The week in {city}."), Image::png(PNG_BYTES))
//! }
//!
//! let toolbox = Toolbox::new().with(Chart);
//! let turn = Message {
//!     role: Role::Assistant,
//!     parts: vec![Part::ToolCall(ToolCall::new("c1", "chart", serde_json::json!({"city": "Gulu"})))],
//! };
//! let answer = toolbox.answer_blocking(&turn);
//! assert_eq!(answer.tool_results().next().unwrap().content, "The week in Gulu.");
//! assert_eq!(answer.result_content("c1").unwrap().content, [Image::png(PNG_BYTES).into()]);
//! ```
//!
//! The [`ToolResult`] keeps its three fields and its prose; the content rides beside it as a
//! [`Part::ResultContent`] in the same tool message, and the agent keeps it in its transcript.
//! Errors stay prose. The toolbox leaves out, each with a note in the prose saying why, media
//! whose bytes are not their media type (a GIF labelled PNG: the note says what the bytes look
//! like) and a part over [`Limits::with_max_media_bytes`] (3.75 MiB by default); the text and
//! the other parts are sent. Each adapter puts the content where its provider takes it and
//! says in a line what it cannot take, so nothing is dropped in silence and nothing is sent to
//! be refused:
//!
//! | adapter | images | PDFs | audio | links, resources, JSON | the loss |
//! |---|---|---|---|---|---|
//! | `Anthropic` | `image` blocks in the `tool_result` | `document` blocks | a line of prose | `text` blocks | audio; an image over 5 MB |
//! | `OpenAiResponses` | `input_image` in the `function_call_output` | `input_file` | a line of prose | `input_text` | audio |
//! | `Gemini` | `inlineData` / `fileData` parts of the `functionResponse` (PNG, JPEG, WebP) | the same | an `inlineData` part after the responses | lines of `response.output` | GIFs; audio is beside the response, not in it |
//! | `OpenAiChat` | `image_url` parts of a `user` message after the tool messages | `file` parts there (a URL: a line) | a line (`with_audio_input(true)`: `input_audio` there, WAV and MP3) | lines of the tool message | the media reach the model as the user's, not the tool's; audio by default |
//!
//! An embedded blob [`Resource`](crate::content::Resource) of a PDF, image or audio type (how an MCP server sends a PDF,
//! since MCP has no document block) goes as the document, image or clip it is.
//! [`Toolbox::dispatch`], whose [`ToolResult`] is text alone, says each part in a line instead.
//! [`Content`] has the details; `cargo run --example beyond_text` shows a chart made in code on
//! every wire.
//!
//! ## Parameter types and schemars
//!
//! A parameter's type implements serde's `Deserialize` and the `JsonSchema` of **schemars 1**
//! (the 1.x series; a type deriving schemars 0.8's `JsonSchema` does not fit). Depend on
//! `schemars = "1"` yourself, or derive through skyl's re-export so the versions always match:
//!
//! ```
//! #[derive(serde::Deserialize, skyl::schemars::JsonSchema)]
//! #[schemars(crate = "skyl::schemars")]
//! struct Filter {
//!     /// Only exact matches.
//!     #[serde(default)]
//!     exact: bool,
//! }
//!
//! /// Searches with a filter.
//! #[skyl::tool]
//! fn search(query: String, filter: Option<Filter>) -> String {
//!     format!("{query} {}", filter.is_some_and(|f| f.exact))
//! }
//! # let _ = Search;
//! ```
//!
//! The schema follows serde's attributes, and the parser follows the schema in every provider's
//! dialect: OpenAI's strict mode makes every optional argument required and nullable, so a
//! strict-mode model sends `null` for what it leaves out; skyl reads that `null` as "not given"
//! and the argument's default applies, at any depth. Unknown keys are refused at the root of the
//! arguments (a misspelt argument must not pass silently); in a nested type they follow that
//! type: accepted unless it has `#[serde(deny_unknown_fields)]`, which its schema then says with
//! `additionalProperties: false`.
//!
//! ## Tools built at run time
//!
//! A [`DynamicTool`] is a [`ToolDefinition`] (data: from a configuration file, another server, a
//! list) and a closure, synchronous or asynchronous, taking the arguments as a
//! `serde_json::Value` or as any `Deserialize` type. It keeps every promise of a `#[tool]`
//! function: the arguments are checked against the declared schema before the closure runs, with
//! the same prose, and an `Err`, a panic or a timeout becomes a result.
//!
//! ```
//! use serde_json::{json, Value};
//! use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
//!
//! let mut toolbox = Toolbox::new();
//! for (name, unit) in [("to_celsius", "C"), ("to_kelvin", "K")] {
//!     let tool = DynamicTool::from_fn(
//!         ToolDefinition::new(name, format!("Converts a temperature in Fahrenheit to {unit}."), json!({"type": "object", "properties": {"f": {"type": "number"}}, "required": ["f"]})),
//!         move |arguments: Value| {
//!             let c = (arguments["f"].as_f64().unwrap_or_default() - 32.0) * 5.0 / 9.0;
//!             if unit == "C" { format!("{c:.1}C") } else { format!("{:.1}K", c + 273.15) }
//!         },
//!     );
//!     // A definition that is data may be wrong: `add` says why instead of panicking.
//!     toolbox.add(tool).expect("a valid definition");
//! }
//! let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "to_celsius", json!({"f": 212})));
//! assert_eq!(result.content, "100.0C");
//!
//! // Change the set without rebuilding it, and offer one request only some of the tools.
//! toolbox.remove("to_kelvin");
//! assert_eq!(toolbox.definitions_of(["to_celsius"]).unwrap().len(), 1);
//! ```
//!
//! [`Toolbox::try_with`], [`add`](Toolbox::add) and [`replace`](Toolbox::replace) return a
//! [`RegistrationError`](crate::tool::RegistrationError) for a name that is taken or that no provider accepts, an empty
//! description, or a schema that is not an object schema; [`Toolbox::with`] panics with the same
//! message.
//!
//! ## Limits
//!
//! Every toolbox bounds what a model, or a tool, can make it do; [`Toolbox::with_limits`] takes
//! other [`Limits`]:
//!
//! | limit | default | past it |
//! |---|---|---|
//! | a result's content | 100 KiB | cut, with a note that says how much was kept and what to do; JSON is cut where a value ends, so it still parses; a failure's cause is cut inside its sentence |
//! | a call's arguments, as compact JSON | 1 MiB | the call is refused unread, naming the tool and the limit |
//! | how deep the arguments nest | 64 levels | the call is refused unread |
//! | calls of one turn running at once | unbounded | the next call waits for one to finish; results keep call order |
//!
//! 100 KiB is about 25,000 tokens: one result cannot fill a context window. 1 MiB is beyond what
//! any model writes in one answer. 64 levels is far beyond any tool's schema. The agent loop and
//! an MCP server dispatch through the toolbox, so they keep its limits. [`Limits`] says why each
//! default is what it is.
//!
//! ```
//! use skyl::{Limits, ToolCall, Toolbox};
//!
//! /// Reads the whole log.
//! #[skyl::tool]
//! fn read_log() -> String {
//!     "a line of the log\n".repeat(10_000)
//! }
//!
//! let toolbox = Toolbox::new()
//!     .with(ReadLog)
//!     .with_limits(Limits::default().with_max_output_bytes(18));
//! let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "read_log", serde_json::json!({})));
//! assert_eq!(
//!     result.content,
//!     "a line of the log\n\n\n[The output of read_log was cut: only its first 18 of 180000 \
//!      bytes are shown. If you need the rest, call read_log again with arguments that select less.]"
//! );
//! ```
//!
//! ## Repeated calls
//!
//! A tool marked as not idempotent (`annotations.idempotent: Some(false)`, or `destructive:
//! Some(true)` without `idempotent: Some(true)`) runs once per turn for the same arguments:
//! [`Toolbox::answer`] answers a second identical call of the same assistant message with a
//! refusal that quotes the first call's result, so a duplicated "send the email" does not send
//! two. A tool that says nothing about itself runs every call. See [`Toolbox::answer`].
//!
//! ## State
//!
//! A parameter marked `#[state]` is not an argument the model sees but a reference into the
//! toolbox's state, borrowed through [`FromRef`](crate::tool::FromRef); tools that need different parts of the state share
//! one [`Toolbox::with_state`].
//!
//! ## A tool's view of its call
//!
//! A parameter marked `#[context]`, of type [`CallContext`](crate::tool::CallContext), is the call itself: its id, its
//! effect key in a journaled run, a progress reporter and a logger (which reach an agent's
//! [`Event::ToolReport`](agent::Event::ToolReport), an MCP client's notifications, and `tracing`),
//! and its cancellation, set on a timeout, an MCP client's cancel or a dropped run, which a
//! cooperative tool checks or awaits on any executor, and cleans up after in a grace
//! ([`Toolbox::with_cancel_grace`]). [`DynamicTool`] closures take it with
//! `from_fn_with_context`, and a hand-written [`Tool`] through [`Tool::invoke`]. See
//! [`tool`](macro@tool#the-calls-context).
//!
//! ## Transcripts
//!
//! [`transcript::validate_complete`] checks the ordering rules every provider enforces (each result
//! right after the turn that made its call, one result per call) so that a broken transcript is an
//! error naming the message and the call, not an HTTP 400 after the tools already ran.
//!
//! ## Providers
//!
//! [`provider`] holds one [`Adapter`](provider::Adapter) per provider API (Anthropic Messages,
//! OpenAI Chat Completions, OpenAI Responses, Gemini `generateContent`). An adapter encodes a
//! [`provider::Request`] into the body that provider expects, with the tool results placed, ordered
//! and flagged as it requires, and decodes its response into an assistant [`Message`]. What
//! each provider loses of a result is listed in [`provider`].
//!
//! A decoded message keeps what its provider needs back on the next request (a Gemini thought
//! signature, an Anthropic thinking block, an OpenAI Responses reasoning item) inside the part it
//! belongs to, tagged with its [`Provider`](provider::Provider): append the message to the
//! transcript as it is, and each adapter sends back its own data and skips the others'.
//!
//! ```
//! use skyl::provider::{Adapter, Gemini, Provider};
//! use skyl::Part;
//!
//! let response = Gemini::default().decode(&serde_json::json!({
//!     "candidates": [{"content": {"role": "model", "parts": [
//!         {"text": "22C and sunny.", "thoughtSignature": "c2lnbmF0dXJl"}
//!     ]}, "finishReason": "STOP"}]
//! })).unwrap();
//! let Part::ProviderText { text, provider_data } = &response.message.parts[0] else { panic!() };
//! assert_eq!((text.as_str(), provider_data.provider_id()), ("22C and sunny.", Provider::Gemini.as_str()));
//! assert_eq!(response.message.text_content(), "22C and sunny.");
//! ```
//!
//! ## Testing your tools
//!
//! [`testing::check_toolbox`] checks skyl's promise on your own toolbox, in one line of a test:
//! each tool gets arguments generated from its own schema (valid ones in every provider's
//! dialect, edge values, and hostile ones: wrong types, missing fields, huge strings, deep
//! nesting, JSON text, unknown tool names), and every call must get one well-formed result, no
//! tool may panic, every value a provider's schema allows must be accepted, and every tool must
//! have run (a tool no valid call ran to an answer of its own fails). A failure panics with a
//! report that names the tool, the arguments and what went wrong; [`testing::ToolboxCheck`] sets
//! the number of cases and the seed, and returns the report. `check_toolbox` calls the tools
//! without a runtime: check tools that use Tokio with
//! [`ToolboxCheck::run_async`](testing::ToolboxCheck::run_async) inside it.
//!
//! ```
//! /// Get the current weather for a city.
//! #[skyl::tool]
//! fn get_weather(
//!     /// The city.
//!     city: String,
//!     /// Celsius unless false.
//!     #[serde(default)]
//!     metric: Option<bool>,
//! ) -> String {
//!     format!("22C and sunny in {city:?} ({metric:?})")
//! }
//!
//! skyl::testing::check_toolbox(&skyl::Toolbox::new().with(GetWeather));
//! ```
//!
//! [`testing::Instances`] is the generator underneath: values a JSON schema allows, from a seed,
//! for checks of your own (dispatch those of the schemas your adapters send, from
//! `provider::dialect`).
//!
//! ## Agent loop
//!
//! [`agent::Agent`] runs the loop every tool-using application writes: send the transcript, read
//! the answer, answer every call, append, repeat. It does no I/O of its own: an
//! [`model::Model`] talks to the provider (an HTTP transport, your own client, or
//! [`testing::ScriptedModel`] in tests and examples).
//!
//! ```
//! use serde_json::json;
//! use skyl::agent::{Agent, Stop, StopWhen};
//! use skyl::testing::ScriptedModel;
//! use skyl::{Message, ToolCall, Toolbox};
//!
//! /// Get the current weather for a city.
//! #[skyl::tool]
//! fn get_weather(
//!     /// The city.
//!     city: String,
//! ) -> String {
//!     format!("22C and sunny in {city}")
//! }
//!
//! let model = ScriptedModel::new()
//!     .reply_calls([ToolCall::new("c1", "get_weather", json!({"city": "Kampala"}))])
//!     .reply_text("22C and sunny in Kampala.");
//! let agent = Agent::new(model, Toolbox::new().with(GetWeather), "claude-sonnet-4-5")
//!     .with_system("You are terse.")
//!     .with_stop(StopWhen::token_budget(100_000));
//!
//! // `.await` it in async code; `blocking` runs it without an executor.
//! let run = agent.run(vec![Message::user("Weather in Kampala?")]).blocking()?;
//! assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2));
//! assert_eq!(run.text(), "22C and sunny in Kampala.");
//! # Ok::<(), skyl::agent::RunError>(())
//! ```
//!
//! - **Stopping.** A run ends when the model answers without calling a tool, or at the step
//!   limit (10 requests unless [`with_max_steps`](agent::Agent::with_max_steps) says
//!   otherwise). [`StopWhen`](agent::StopWhen) adds a "final answer" tool, a token budget or a
//!   predicate of your own. A breaker ends a run in which the model made the same failing call
//!   three times. Every stop comes after the last step's calls have their results.
//! - **Hooks.** [`Hooks`](agent::Hooks) step in before each request (trim the history, offer
//!   fewer tools, force a tool choice), before each call (run it, deny it with a reason the model
//!   reads, answer it in the tool's place, or pause it for approval), after each call and after
//!   each step. A closure is enough for one hook ([`agent::hooks`]). Calls that are let through
//!   run concurrently; their results keep call order.
//! - **Approval.** A paused run stops with [`Stop::AwaitingApproval`](agent::Stop::AwaitingApproval).
//!   It serializes with serde; later, perhaps in another process, record each decision with
//!   [`Run::approve`](agent::Run::approve) or [`Run::deny`](agent::Run::deny) and pass it to
//!   [`Agent::resume`](agent::Agent::resume). [`with_approval_for_destructive`](agent::Agent::with_approval_for_destructive)
//!   pauses every call of a tool whose annotations say it may destroy data. A call can also
//!   pause while it runs, to ask the person a [`Question`](agent::Question) (a mounted MCP
//!   server's elicitation): answer it with [`Run::reply`](agent::Run::reply).
//! - **Cost and budgets.** [`Run::usage`](agent::Run::usage) sums every request's tokens, cache
//!   reads and writes included; with the user's prices ([`with_prices`](agent::Agent::with_prices))
//!   each step and run has a [`Cost`](model::Cost). [`with_budget`](agent::Agent::with_budget)
//!   limits input tokens, output tokens and cost, checked **before** each request against the
//!   most it could use, so a run stops ([`Stop::Budget`](agent::Stop::Budget)) rather than
//!   overshoot.
//! - **Large toolboxes.** [`with_tool_search`](agent::Agent::with_tool_search) offers a few
//!   tools and a search for the rest ([`ToolSearch`](agent::ToolSearch)), in skyl or on the
//!   provider where it has one.
//! - **Failures.** A model request that fails ends the run with a [`RunError`](agent::RunError)
//!   that keeps the run so far, every tool result included: resume it once the provider is back.
//! - **Typed answers.** [`answer_as::<T>()`](agent::RunBuilder::answer_as) makes the final
//!   answer a `T: Deserialize + JsonSchema` (a struct, or a list, number, string or enum, which
//!   travels as `{"answer": ...}`): every request carries `T`'s schema as the provider's
//!   structured output ([`OutputSchema`](provider::OutputSchema) says where, per provider), an
//!   answer that does not read as `T` goes back to the model with what was wrong (twice, unless
//!   [`with_corrections`](agent::TypedRun::with_corrections) says otherwise), and then the run
//!   ends with an [`AnswerError`](agent::AnswerError) that keeps it.
//! - **Progress.** [`on_event`](agent::RunBuilder::on_event) streams the model's answer, each
//!   call's start and finish, and what a tool reports through its `#[context]`, to a callback,
//!   for a CLI or a UI. With the `tracing` feature, each
//!   run, request and call is a span named as OpenTelemetry's GenAI conventions say.
//!
//! Whatever the hooks, the people approving and the model do, every call gets exactly one
//! result, and each request the agent sends holds a transcript that every adapter accepts.
//! `cargo run --example agent` shows a run step by step.
//!
//! ## Durable runs
//!
//! A run started with `.journaled(&journal, "run-id")` records what it learns as it goes: each
//! model answer before it is acted on, a durable *intent* just before each call that can have
//! effects, each result as soon as it is known. Started again with the same id after a crash, in
//! any process, it replays the journal: the model is asked nothing it already answered, no
//! recorded result is made again, a read-only or idempotent call that was cut off runs again, and
//! any other call that was cut off is not run again: the model reads that its outcome is unknown
//! and that it must check before calling it again. A tool reads its call's
//! `skyl::agent::effect_key()` (stable across crashes) to pass to an external API as its
//! idempotency key. The `Journal` trait is the seam ([`agent::journal`] documents its records and
//! rules); the `durable` feature gives `SqliteJournal`, one file for many runs, in which a run
//! has one owner at a time (a second worker is refused until the owner's lease expires) and two
//! workers cannot both start the same effect. `cargo run --example durable` shows a run that
//! survives `kill -9` at any instant.
//!
//! ## Agents that call agents
//!
//! - **An agent as a tool.** [`AgentTool`](agent::AgentTool) (or
//!   [`Agent::as_tool`](agent::Agent::as_tool)) makes an agent a tool of another: its arguments
//!   are a typed input, its result the sub-agent's final answer read into a typed output (as
//!   `answer_as` reads one), and the sub-agent keeps its own model, tools, hooks and limits. With
//!   [`journaled`](agent::AgentTool::journaled), its run is journaled in the calling run's journal
//!   under the call's effect key (`{run}/{step}/{call id}`, and so on down), so a crash at any
//!   depth resumes every run where it was, repeating no effect.
//! - **Approvals and questions from inside.** A call deep inside that waits for a person pauses
//!   the top run, which serializes whole; [`Run::waiting`](agent::Run::waiting) says who waits
//!   and where (`["c1 research", "r2 mail", "m1 send_email"]`), and
//!   [`Run::approve_at`](agent::Run::approve_at), [`deny_at`](agent::Run::deny_at) and
//!   [`reply_at`](agent::Run::reply_at) decide, bound as any approval is.
//! - **Handoffs.** A [`Handoff`](agent::Handoff) tool ends a run when the model calls it, and
//!   [`Agent::take_over`](agent::Agent::take_over) goes on with the conversation under another
//!   agent, on any provider.
//! - **Events and spans nest.** A sub-agent's events come as [`Event::Nested`](agent::Event::Nested)
//!   under the call that runs it ([`Event::path`](agent::Event::path) says where), and its
//!   `invoke_agent` span is a child of that call's `execute_tool` span.
//!
//! ```
//! use serde_json::json;
//! use skyl::agent::{Agent, Stop};
//! use skyl::testing::ScriptedModel;
//! use skyl::{Message, ToolCall, Toolbox};
//!
//! /// Sends an email.
//! #[skyl::tool]
//! fn send_email(to: String) -> String {
//!     format!("sent to {to}")
//! }
//!
//! /// Who to write to.
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Mail {
//!     /// The address.
//!     to: String,
//! }
//!
//! // The sub-agent: its own model and tools; its email waits for a person.
//! let mailer = Agent::new(
//!     ScriptedModel::new()
//!         .reply_calls([ToolCall::new("m1", "send_email", json!({"to": "ada@example.com"}))])
//!         .reply_text(r#""Sent.""#),
//!     Toolbox::new().with(SendEmail),
//!     "small-model",
//! )
//! .with_approval_for_destructive(true);
//! let agent = Agent::new(
//!     ScriptedModel::new()
//!         .reply_calls([ToolCall::new("c1", "mail", json!({"to": "ada@example.com"}))])
//!         .reply_text("Ada has her email."),
//!     Toolbox::new().with(mailer.as_tool::<Mail, String>("mail", "Emails someone.")),
//!     "large-model",
//! );
//!
//! let mut run = agent.run(vec![Message::user("Email Ada")]).blocking()?;
//! assert_eq!(run.stop(), &Stop::AwaitingApproval);
//! assert_eq!(run.waiting()[0].describe(), ["c1 mail", "m1 send_email"]);
//! // It serializes whole; a person decides, perhaps in another process.
//! run.approve_at(&["c1", "m1"]).unwrap();
//! let run = agent.resume(run).blocking()?;
//! assert_eq!(run.text(), "Ada has her email.");
//! # Ok::<(), skyl::agent::RunError>(())
//! ```
//!
//! `cargo run --example agent` calls a packing sub-agent, and the nested crash test
//! (`examples/tests/nested_crash.rs`) kills three agents inside one another at random instants.
//!
//! ## Streaming
//!
//! Providers stream an answer as server-sent events. [`provider::stream::SseParser`] splits the bytes of a
//! response body into events, whatever the chunk boundaries, and the adapter's
//! [`provider::stream::StreamDecoder`] (from [`provider::stream::Streaming::stream_decoder`]) turns each event
//! into [`provider::stream::StreamEvent`]s: the text as it is written, each tool call as it starts, grows
//! and completes, then the usage and the end. It finishes into exactly the
//! [`provider::Response`] that `decode` gives for the same answer unstreamed. Neither does I/O,
//! so they serve any HTTP client:
//!
//! ```
//! use skyl::provider::{OpenAiChat, stream::{SseParser, StreamEvent, Streaming}};
//!
//! let body = concat!(
//!     "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
//!     "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let mut parser = SseParser::new();
//! let mut decoder = OpenAiChat::default().stream_decoder();
//! let mut text = String::new();
//! let mut on_event = |event: StreamEvent| {
//!     if let StreamEvent::TextDelta(piece) = event {
//!         text.push_str(&piece);
//!     }
//! };
//! // Feed the body in whatever pieces the network delivers.
//! for piece in body.as_bytes().chunks(17) {
//!     parser
//!         .try_feed(piece, |event| decoder.push(&event.event, &event.data, &mut on_event))
//!         .unwrap();
//! }
//! let response = decoder.finish(&mut on_event).unwrap();
//! assert_eq!(text, "Hello");
//! assert_eq!(response.message.text_content(), "Hello");
//! ```
//!
//! A stream that ends before the provider said the answer was complete, data that is not JSON,
//! and an error the provider sends mid-stream are each a [`provider::DecodeError`] that names the
//! event; a tool call is reported finished only once it is complete.
//!
//! To show a long tool call while it streams (the path of a file first, then its content filling
//! in), hand the events to a [`provider::partial::PartialCalls`] too: it parses each call's arguments
//! delta by delta ([`provider::partial::PartialArguments`]), each piece read once, and between pieces tells
//! the members that are complete, typed (`arguments.get::<String>("path")`), and the one being
//! written (`arguments.str_so_far("content")`). A stream nobody reads this way parses nothing.
//!
//! ## Talking to providers over HTTP
//!
//! With the `http` feature, `skyl::http::HttpModel` is an [`model::Model`] for each adapter: it
//! sends a [`provider::Request`] to Anthropic, OpenAI (Chat Completions or Responses), Gemini, or
//! any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq) and reads
//! the answer whole or streamed. `HttpModel::from_env` reads the variables the official SDKs
//! read (`ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
//! `GOOGLE_API_KEY` or `GEMINI_API_KEY`/`GOOGLE_GEMINI_BASE_URL`); `HttpModel::builder` takes
//! everything by hand, including a base URL for a server on your own machine.
//!
//! ```no_run
//! # #[cfg(feature = "http")]
//! async fn ask() -> Result<(), Box<dyn std::error::Error>> {
//!     use skyl::Message;
//!     use skyl::model::Model;
//!     use skyl::http::HttpModel;
//!     use skyl::provider::{OpenAiChat, Request, stream::StreamEvent};
//!
//!     // Ollama on this machine, through its OpenAI-compatible API: no key needed.
//!     let model = HttpModel::builder(OpenAiChat::default())
//!         .base_url("http://localhost:11434/v1")
//!         .build()?;
//!     let request = Request::new("llama3.2", vec![Message::user("Why is the sky blue?")]);
//!     let answer = model
//!         .stream(&request, &mut |event| {
//!             if let StreamEvent::TextDelta(text) = event {
//!                 print!("{text}");
//!             }
//!         })
//!         .await?;
//!     println!("\n{} tokens", answer.usage.output_tokens);
//!     Ok(())
//! }
//! ```
//!
//! **A server on your own machine.** Ollama, llama.cpp's `llama-server`, llama-cpp-python, vLLM
//! and LM Studio speak OpenAI's Chat Completions: point `OPENAI_BASE_URL` (or `base_url`) at the
//! server's `/v1` (Ollama `http://localhost:11434/v1`, llama-server `:8080/v1`, vLLM
//! `:8000/v1`, LM Studio `:1234/v1`); no key is needed once a base URL is set. Hosted compatible
//! APIs (OpenRouter, Groq, DeepSeek, Gemini's OpenAI endpoint) work the same way with their base
//! URL and key. Such servers do not all read OpenAI's request as OpenAI does, so an `HttpModel`
//! whose host is not OpenAI's marks its adapter
//! [compatible](provider::OpenAiChat::with_compatible): the token limit goes out as `max_tokens`,
//! the name they read. Every adapter sends `"content": ""` on a turn of calls only, the one value
//! every server takes; a stream that ends after its `finish_reason` without `data: [DONE]` is a
//! whole answer; a stream without a usage chunk has its usage
//! [unreported](provider::Usage::unreported), not zero. Some servers return fields of their own
//! that they need back on the next request (DeepSeek's `reasoning_content`, the thought
//! signatures of Gemini's endpoint, OpenRouter's `reasoning_details`); name the server with
//! [`OpenAiChat::with_server`](provider::OpenAiChat::with_server) to send them back to it, and
//! only to it (an `HttpModel` names DeepSeek, Gemini's endpoint and OpenRouter from the host).
//!
//! Failures are [`model::ModelError`]s that keep what the provider said: the HTTP status, its
//! error type and message verbatim, the request id, and how many retries were spent. Rate limits,
//! overload (Anthropic's 529 too) and broken connections are retried with backoff, honouring
//! `retry-after`; a connect timeout, a total timeout and an idle timeout between stream events
//! bound every request, and dropping the future cancels it. What is read is bounded too, as
//! axum's `DefaultBodyLimit` bounds a request: a whole body at 16 MiB and one streamed event at
//! 8 MiB unless `HttpModelBuilder::max_response_bytes` and `max_event_bytes` say otherwise, each
//! with an error that names the limit. The API key appears in no `Debug` or `Display`. The
//! transport runs on Tokio, as reqwest does.
//!
//! ## Failing over to another provider
//!
//! [`model::Failover`] is a model made of several, of any providers: each request goes to the
//! first [`model::Member`], and moves to the next when a member fails in a way that may pass
//! ([`ModelError::is_retryable`](model::ModelError::is_retryable): a rate limit, an overload, a
//! 5xx, a timeout, a stream cut before its end), once that member's own retries are spent. A run
//! goes on mid-way: its transcript, with the first provider's answers in it, is sent to the next
//! provider as that provider takes it (call ids made valid for its rules, provider data such as
//! thinking signatures and reasoning items sent back only to the provider that gave them), and
//! calls already answered are not run again, since a failed or cut answer runs nothing. Any other
//! failure (a 400, a bad key) is returned at once; when every member fails, the last error comes
//! back with the others in [`ModelError::failed_over`](model::ModelError::failed_over).
//!
//! ```no_run
//! # #[cfg(feature = "http")]
//! async fn run() -> Result<(), Box<dyn std::error::Error>> {
//!     use skyl::agent::{Agent, Event};
//!     use skyl::http::HttpModel;
//!     use skyl::model::{Failover, Member};
//!     use skyl::provider::{Anthropic, OpenAiChat, stream::StreamEvent};
//!     use skyl::{Message, Toolbox};
//!
//!     let model = Failover::new([
//!         Member::new(HttpModel::from_env(Anthropic)?).model_name("claude-sonnet-4-5"),
//!         Member::new(HttpModel::from_env(OpenAiChat::default())?).model_name("gpt-4.1"),
//!     ]);
//!     let agent = Agent::new(model, Toolbox::new(), "claude-sonnet-4-5");
//!     let run = agent
//!         .run(vec![Message::user("Summarise the incident.")])
//!         .on_event(|event| {
//!             if let Event::Model(StreamEvent::Failover { from, to, reason }) = event {
//!                 eprintln!("{from} failed ({reason}); {to} answers");
//!             }
//!         })
//!         .await?;
//!     println!("{}", run.text());
//!     Ok(())
//! }
//! ```
//!
//! Each request starts at the first member, so a run returns to the primary at its next step;
//! [`Failover::sticky`](model::Failover::sticky) keeps to the member that answered last. A
//! member's model name and provider-specific fields are its own
//! ([`Member::model_name`](model::Member::model_name), [`Member::extra`](model::Member::extra)):
//! keep fields only one provider takes there rather than on the agent. Which member answered a
//! step is [`Step::answered_by`](agent::Step::answered_by) (journaled with the answer), a
//! streaming caller is told of each move by [`provider::stream::StreamEvent::Failover`] (and drops what
//! the failed member had streamed), and with the `tracing` feature each move is logged as a
//! warning. In a journaled run the journal's rules hold across the move: a call cut off by a
//! crash is answered as the journal says, whichever member asks next. Two providers ask for data
//! only their own model can write (Gemini 3 a thought signature on each call of the current
//! turn, Anthropic with extended thinking a thinking block opening the last turn of calls):
//! [`model::Failover`]'s docs say how to order members around them.
//!
//! ## MCP
//!
//! With the feature `mcp`, `skyl::mcp` carries tools across the Model Context Protocol both ways,
//! on the official Rust SDK (rmcp):
//!
//! - **Serve.** `skyl::mcp::Server::new(toolbox).serve_stdio().await` makes a toolbox, state and
//!   all, an MCP server that Claude Desktop, Cursor or the MCP inspector can launch. Every tool
//!   keeps its guarantee there: bad arguments, an `Err`, a panic and a timeout are results with
//!   `isError: true` and the same prose, so the model can correct itself; an unknown name is the
//!   JSON-RPC error `-32602` that MCP asks for, with the same prose as its message. A definition's
//!   annotations and output schema are listed, and JSON output is sent as `structuredContent` too.
//!   A call that needs approval (a destructive tool's, unless `Server::with_approval` says
//!   otherwise) asks the client's user through elicitation first, and does not run without it.
//! - **Mount.** `skyl::mcp::Remote::spawn("files", command).await?` connects to a server, and
//!   `Toolbox::with_remote(&files)` adds its tools beside local ones, named so that every provider
//!   accepts them (`read.file` becomes `files_read_file`). A server that crashes, hangs or
//!   disconnects gives a failed result naming the server and what to do, never a hang or a panic.
//!   A server that asks the person something during a call (elicitation) pauses the agent run
//!   making it, as a call waiting for approval does, until the person replies.
//!
//! - **Prompts and resources.** `#[skyl::prompt]` and `#[skyl::resource]` make functions an MCP
//!   server's prompts and resources, served beside the tools with the same promise: one answer
//!   to every `prompts/get` and `resources/read`.
//! - **Tasks.** With a journal (`Server::with_task_journal`, feature `durable`), a call a client
//!   asks to run as a task is one, polled and cancelled, and never run twice across a crash; at
//!   2026-07-28 and in 2025-11-25's own form.
//!
//! `cargo run --example mcp_server` serves the weather example's tools over stdio. The module's
//! documentation (built with the feature) has the details: content blocks, timeouts, a changing
//! tool list, HTTP.
//!
//! ## Feature flags
//!
//! None is on by default. On docs.rs every feature is on, and each item a feature gates says which.
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `timeout` | no | `Toolbox::with_timeout` and `#[tool(timeout = "5s")]`, which stop an asynchronous call that runs too long, with an executor-agnostic timer thread (the futures-timer crate) |
//! | `tracing` | no | spans for agent runs, model requests and tool calls (OpenTelemetry GenAI names), from the tracing crate |
//! | `http` | no | `skyl::http::HttpModel`: a `Model` over HTTP for any `provider::author::Api` (the built-in adapters and your own), streamed or not (reqwest with rustls on aws-lc-rs, Tokio timers) |
//! | `mcp` | no | `skyl::mcp`: serve a toolbox as an MCP server, mount an MCP server's tools; stdio and child processes (rmcp, tokio) |
//! | `mcp-http` | no | `mcp` over streamable HTTP too: `Server::serve_http` on a local port, `RemoteBuilder::connect_http` (rmcp's HTTP transports, hyper, reqwest without TLS) |
//! | `mcp-oauth` | no | `mcp-http` and `RemoteBuilder::oauth`: mount servers that require OAuth 2.1 (discovery, registration, PKCE, client credentials, step-up), on rmcp's OAuth client and the oauth2 crate |
//! | `testing` | no | `skyl::testing`: a scripted model for agent tests, a toolbox checked against generated arguments (for `[dev-dependencies]`, as tokio's `test-util`) |
//! | `durable` | no | `skyl::durable::SqliteJournal`, the embedded journal of durable runs ([`agent::journal`]): rusqlite with its bundled SQLite, compiled from C |
//!
//! ```toml
//! [dependencies]
//! skyl = { version = "0.1", features = ["timeout"] }
//! ```
//!
//! Without features, skyl depends on serde, serde_json, schemars 1 and its own macros, and on
//! no async runtime.
#![warn(missing_docs)]
// docs.rs builds with `--cfg docsrs` on nightly: each feature-gated item is marked with its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod agent;
pub mod content;
#[cfg(feature = "durable")]
pub mod durable;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;
pub mod provider;
pub mod schema;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tool;
pub mod transcript;

mod arguments;
mod base64;
mod blocking;
mod dynamic_tool;
mod executor;
mod macro_support;
mod message;
mod name_index;
mod prose;
#[cfg(any(test, feature = "testing"))]
mod random;
mod registration;
mod text;
#[cfg(feature = "http")]
mod tls;
mod toolbox;

// The common case, at the root; the rest lives in the module of its role (`tool`, `content`,
// `transcript`, `provider`...), one public path per name.
pub use content::media::Content;
pub use dynamic_tool::DynamicTool;
pub use message::{Message, Part, Role, ToolCall, ToolResult};
pub use tool::contract::Tool;
pub use tool::definition::ToolDefinition;
pub use tool::failure::ToolFailure;
pub use tool::output::Json;
pub use toolbox::{Dispatch, Limits, Toolbox};

/// schemars 1, re-exported so that parameter types can derive `JsonSchema` at the version skyl
/// uses: `#[derive(skyl::schemars::JsonSchema)]` with `#[schemars(crate = "skyl::schemars")]`.
pub use schemars;

#[doc = include_str!("tool_attribute.md")]
#[doc(inline)]
pub use skyl_macros::tool;

#[doc = include_str!("tools_attribute.md")]
#[doc(inline)]
pub use skyl_macros::tools;

/// Makes a function a prompt an MCP server offers beside its tools (feature `mcp`): the
/// function's typed parameters are the prompt's arguments, its doc comment the prompt's
/// description and each parameter's doc comment the argument's; an `Option<T>` parameter may be
/// left out. It returns text, a [`PromptMessage`](crate::mcp::PromptMessage), messages, or a
/// `Result` of one of them ([`IntoPromptMessages`](crate::mcp::IntoPromptMessages)); it may be
/// `async`. The attribute makes a struct named after the function in UpperCamelCase, which
/// [`Server::with_prompt`](crate::mcp::Server::with_prompt) takes.
///
/// MCP sends arguments as text: each is read as its type (an enum's variant by name, a number
/// from its digits), and `completion/complete` offers an enum's variants with no code of yours.
/// Options: `name = "..."`, `title = "..."`, `description = "..."`.
///
/// ```
/// #[derive(serde::Deserialize)]
/// #[serde(rename_all = "lowercase")]
/// enum Tone { Kind, Blunt }
///
/// /// Asks for a review of a piece of code.
/// #[skyl::prompt]
/// fn code_review(
///     /// The code to review.
///     code: String,
///     /// How to say it; kind unless given.
///     tone: Option<Tone>,
/// ) -> String {
///     let tone = match tone { Some(Tone::Blunt) => "bluntly", _ => "kindly" };
///     format!("Review this code, {tone}:\n{code}")
/// }
///
/// let server = skyl::mcp::Server::new(skyl::Toolbox::new()).with_prompt(CodeReview);
/// # let _ = server;
/// ```
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use skyl_macros::prompt;

/// Makes a function a resource an MCP server offers beside its tools (feature `mcp`), at one
/// URI (`#[resource(uri = "notes://today")]`, no parameters) or at each URI a template fits
/// (`#[resource(uri_template = "notes://days/{day}")]`: `{name}` is one segment, `{+name}` any
/// text; each variable is a parameter of the function, read from the URI as its type, and a URI
/// whose variable does not read is answered with an error naming it). It returns text, bytes
/// (`Vec<u8>`, a blob), a [`Resource`](crate::content::Resource) or several, or a `Result` of one of them
/// ([`IntoResourceContents`](crate::mcp::IntoResourceContents)), of the media type
/// `mime_type = "..."` says; it may be `async`. The doc comment is the description; `name`,
/// `title` and `description` options as `#[prompt]` has. The struct it makes is what
/// [`Server::with_resource`](crate::mcp::Server::with_resource) takes.
///
/// ```
/// /// The notes of one day of the month.
/// #[skyl::resource(uri_template = "notes://days/{day}", mime_type = "text/plain")]
/// fn day(day: u8) -> Result<String, String> {
///     if day > 31 {
///         return Err(format!("there is no day {day}"));
///     }
///     Ok(format!("The notes of day {day}."))
/// }
///
/// let server = skyl::mcp::Server::new(skyl::Toolbox::new()).with_resource(Day);
/// # let _ = server;
/// ```
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use skyl_macros::resource;

/// Makes the `#[prompt]` and `#[resource(...)]` methods of an `impl` block prompts and
/// resources that hold the instance (feature `mcp`): the block's type implements
/// [`ServedSet`](crate::mcp::ServedSet), which
/// [`Server::with_served`](crate::mcp::Server::with_served) takes. Each method takes `&self`
/// first; the rest is as for a function under [`prompt`] or [`resource`].
///
/// ```
/// struct Notes {
///     owner: String,
/// }
///
/// #[skyl::served]
/// impl Notes {
///     /// Asks for a summary of the owner's notes.
///     #[prompt]
///     fn summarize(&self) -> String {
///         format!("Summarize the notes of {}.", self.owner)
///     }
///
///     /// Today's notes.
///     #[resource(uri = "notes://today", mime_type = "text/plain")]
///     fn today(&self) -> String {
///         format!("{}: buy milk.", self.owner)
///     }
/// }
///
/// let notes = Notes { owner: "Ada".into() };
/// let server = skyl::mcp::Server::new(skyl::Toolbox::new()).with_served(notes);
/// # let _ = server;
/// ```
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use skyl_macros::served;

// The crate README's example (its registry page) is a test too, so that the page cannot drift
// from the code. It is the package's own file: the packaged crate's doctests read nothing outside
// it. The repository's README shows the same example, which tests/front_pages.rs holds equal.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// Paths the `#[tool]` macro expands to. Not public API: no semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::arguments::{explain, parse_arguments, parse_explained};
    pub use crate::macro_support::{
        AnnotationParts, Defer, DefinitionParts, IntoRead, ReadAs, ReadAsPlaceholder, ReadProbe,
        TimeoutFeature, ToolOutputSchema, ToolParameter, ToolSetInstance, Unusable,
        arguments_schema, arguments_schema_of, assert_tool_set_instance, cached_definition,
        output_schema, parse_explained_as, run_blocking, tool_output, tool_timeout,
    };
    /// What `#[prompt]` and `#[resource]` expand to.
    #[cfg(feature = "mcp")]
    pub use crate::mcp::reading as mcp;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
