//! rmcp: the tool written with `#[tool]` on a method, served by a `ServerHandler` in both of the
//! forms rmcp documents: the `ToolRouter` built once and kept in a field (`#[tool_router]` with
//! `#[tool_handler(router = self.tool_router)]`), and `#[tool_router(server_handler)]`.
//!
//! A call reaches `ServerHandler::call_tool` as its server loop hands it over: the request's
//! parameters own the name and the arguments as a JSON object, and the request context holds
//! a handle on the peer, a cancellation token and the request id. The handle comes from a service
//! started with `serve_directly` on an in-memory pipe; starting it needs a tokio runtime, and the
//! service loop is never run.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString};
use rmcp::service::{RequestContext, RunningService, serve_directly};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::Value;
use skyl::ToolCall;

use super::forecast::forecast_text;
use super::{Dispatcher, run};

#[derive(Deserialize, schemars::JsonSchema)]
pub struct ForecastArgs {
    /// The city, in English.
    city: String,
    /// How many days ahead, 1 to 7.
    days: Option<u8>,
    /// Metric units when true.
    #[serde(default)]
    metric: bool,
}

/// `#[tool_router]` sees only the `#[tool]` methods written in its impl block, so the whole block,
/// `forecast` and the stand-ins, comes out of one macro.
macro_rules! tools {
    (#[$router:meta] $server:ident $($filler:ident)*) => {
        #[$router]
        impl $server {
            /// Looks up the weather forecast for a city.
            #[tool]
            fn forecast(&self, Parameters(args): Parameters<ForecastArgs>) -> String {
                forecast_text(&args.city, args.days, args.metric)
            }

            $(
                /// A stand-in tool that is never called.
                #[tool]
                fn $filler(&self) -> String {
                    String::new()
                }
            )*
        }
    };
}

/// The router kept in a field, with `forecast` alone.
pub struct FieldOne {
    tool_router: ToolRouter<Self>,
}

tools! { #[tool_router] FieldOne }

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FieldOne {}

/// The router kept in a field, with the stand-ins.
pub struct FieldMany {
    tool_router: ToolRouter<Self>,
}

macro_rules! field_many {
    ($($filler:ident)*) => {
        tools! { #[tool_router] FieldMany $($filler)* }
    };
}
with_fillers!(field_many);

#[tool_handler(router = self.tool_router)]
impl ServerHandler for FieldMany {}

/// `#[tool_router(server_handler)]`, with `forecast` alone.
pub struct HandlerOne;

tools! { #[tool_router(server_handler)] HandlerOne }

/// `#[tool_router(server_handler)]`, with the stand-ins.
pub struct HandlerMany;

macro_rules! handler_many {
    ($($filler:ident)*) => {
        tools! { #[tool_router(server_handler)] HandlerMany $($filler)* }
    };
}
with_fillers!(handler_many);

/// The server a session needs in order to start; it is never asked anything.
struct Idle;

impl ServerHandler for Idle {}

/// A server with `forecast` alone, or with the stand-ins too.
enum Server<One, Many> {
    One(One),
    Many(Many),
}

/// A server, and what a request context needs.
pub struct Served<One, Many> {
    server: Server<One, Many>,
    peer: Peer<RoleServer>,
    _session: RunningService<RoleServer, Idle>,
    _runtime: tokio::runtime::Runtime,
}

type Answer = Result<CallToolResponse, ErrorData>;

impl<One: ServerHandler, Many: ServerHandler> Served<One, Many> {
    fn new(one: impl FnOnce() -> One, many: impl FnOnce() -> Many, tools: usize) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread tokio runtime");
        let session = {
            let _entered = runtime.enter();
            let (pipe, _) = tokio::io::duplex(64);
            serve_directly(Idle, pipe, None)
        };
        Served {
            server: if tools == 1 {
                Server::One(one())
            } else {
                Server::Many(many())
            },
            peer: session.peer().clone(),
            _session: session,
            _runtime: runtime,
        }
    }

    fn context(&self) -> RequestContext<RoleServer> {
        RequestContext::new(NumberOrString::Number(1), self.peer.clone())
    }

    fn registered(&self) -> usize {
        let listed = match &self.server {
            Server::One(server) => run(server.list_tools(None, self.context())),
            Server::Many(server) => run(server.list_tools(None, self.context())),
        };
        listed.expect("tools/list").tools.len()
    }

    fn dispatch(&self, call: &ToolCall) -> Answer {
        let mut request = CallToolRequestParams::new(call.name.clone());
        if let Value::Object(arguments) = &call.arguments {
            request = request.with_arguments(arguments.clone());
        }
        match &self.server {
            Server::One(server) => run(server.call_tool(request, self.context())),
            Server::Many(server) => run(server.call_tool(request, self.context())),
        }
    }
}

fn text(answer: &Answer) -> (&str, bool) {
    match answer {
        Ok(CallToolResponse::Complete(result)) => (
            result
                .content
                .first()
                .and_then(|content| content.as_text())
                .map_or("", |text| text.text.as_str()),
            result.is_error == Some(true),
        ),
        Ok(_) => ("", true),
        Err(error) => (&error.message, true),
    }
}

/// A `Dispatcher` that is a `Served` of the servers `one` and `many` make.
macro_rules! served {
    ($name:ident, $one:expr, $many:expr) => {
        impl Dispatcher for $name {
            type Answer = Answer;

            fn with_tools(tools: usize) -> Self {
                $name(Served::new($one, $many, tools))
            }

            fn registered(&self) -> usize {
                self.0.registered()
            }

            fn dispatch(&self, call: &ToolCall) -> Answer {
                self.0.dispatch(call)
            }

            fn text(answer: &Answer) -> (&str, bool) {
                text(answer)
            }
        }
    };
}

/// The router kept in a field.
pub struct RouterField(Served<FieldOne, FieldMany>);

served!(
    RouterField,
    || FieldOne {
        tool_router: FieldOne::tool_router(),
    },
    || FieldMany {
        tool_router: FieldMany::tool_router(),
    }
);

/// `#[tool_router(server_handler)]`.
pub struct ServerHandlerMacro(Served<HandlerOne, HandlerMany>);

served!(ServerHandlerMacro, || HandlerOne, || HandlerMany);
