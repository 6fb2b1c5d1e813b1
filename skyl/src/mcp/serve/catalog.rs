//! The prompts and resources a [`Server`](crate::mcp::Server) offers beside its tools (a
//! `Catalog` the server holds), and how it answers
//! `prompts/list`, `prompts/get`, `resources/list`, `resources/templates/list`,
//! `resources/read`, `completion/complete` and `resources/subscribe`: each with one answer, a
//! failure or a panic of the user's function included.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequiredResult, InputResponses, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, Prompt as McpPrompt,
    PromptArgument as McpArgument, PromptMessage as McpMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, Resource as McpResource, ResourceTemplate,
    ResourceUpdatedNotificationParam, Role, ServerCapabilities, SubscriptionFilter,
};
use rmcp::service::{Peer, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink};
use serde_json::{Map, Value, json};

use crate::mcp::content;
use crate::mcp::serve::caller::{self, speaks_input_required};
use crate::mcp::serve::failure::Failure;
use crate::mcp::serve::prompt::{PromptArguments, PromptMessage, ServedPrompt};
use crate::mcp::serve::request_state::RequestStates;
use crate::mcp::serve::resource::{ResourceRead, ServedResource};
use crate::mcp::serve::uri_template::UriTemplate;
use crate::message::ToolCall;
use crate::prose::served as prose;

/// A type whose methods are prompts and resources: what `#[skyl::served]` implements for the
/// type of an impl block, for [`Server::with_served`](crate::mcp::Server::with_served).
pub trait ServedSet: Send + Sync + 'static {
    /// Its prompts, each holding the instance.
    fn prompts(self: Arc<Self>) -> Vec<Box<dyn ServedPrompt>>;
    /// Its resources, each holding the instance.
    fn resources(self: Arc<Self>) -> Vec<Box<dyn ServedResource>>;
}

/// The prompts and resources of a server, shared by its connections.
#[derive(Clone, Default)]
pub(in crate::mcp) struct Catalog {
    prompts: Vec<Arc<dyn ServedPrompt>>,
    resources: Vec<Served>,
    subscriptions: Arc<Mutex<Subscriptions>>,
}

/// Who hears a resource's updates.
#[derive(Default)]
struct Subscriptions {
    /// 2025-11-25's `resources/subscribe`, one a URI and connection.
    legacy: Vec<Subscription>,
    /// 2026-07-28's `subscriptions/listen` streams, by a number of their own.
    streams: Vec<(u64, SubscriptionSink)>,
    next: u64,
}

/// A resource and its URI, read as a template.
#[derive(Clone)]
struct Served {
    resource: Arc<dyn ServedResource>,
    template: UriTemplate,
}

/// A client's subscription to a URI's updates (2025-11-25's `resources/subscribe`).
struct Subscription {
    peer: Peer<RoleServer>,
    uri: String,
}

impl Catalog {
    /// Adds `prompt`, and declares the capabilities it needs (`prompts`, `completions`) in
    /// `capabilities`.
    ///
    /// # Panics
    ///
    /// If the catalog already has a prompt of that name: a client could not tell them apart.
    pub(in crate::mcp) fn add_prompt(
        &mut self,
        prompt: Arc<dyn ServedPrompt>,
        capabilities: &mut ServerCapabilities,
    ) {
        let name = &prompt.definition().name;
        assert!(
            !self.prompts.iter().any(|p| &p.definition().name == name),
            "the server already has a prompt named \"{name}\"; give one of them another name"
        );
        self.prompts.push(prompt);
        // The prompts are given before the server serves and never change while it does.
        let prompts = capabilities.prompts.get_or_insert_with(Default::default);
        prompts.list_changed = Some(false);
        capabilities
            .completions
            .get_or_insert_with(Default::default);
    }

    /// Adds `resource`, and declares the capabilities it needs (`resources` with `subscribe`,
    /// `completions`) in `capabilities`.
    ///
    /// # Panics
    ///
    /// If its URI is not a template skyl reads, or the catalog already has a resource at that
    /// URI.
    pub(in crate::mcp) fn add_resource(
        &mut self,
        resource: Arc<dyn ServedResource>,
        capabilities: &mut ServerCapabilities,
    ) {
        let uri = &resource.definition().uri;
        let template = match UriTemplate::parse(uri) {
            Ok(template) => template,
            Err(cause) => {
                panic!("the resource URI \"{uri}\" is not a template skyl reads: {cause}")
            }
        };
        assert!(
            !self
                .resources
                .iter()
                .any(|r| &r.resource.definition().uri == uri),
            "the server already has a resource at \"{uri}\"; give one of them another URI"
        );
        self.resources.push(Served { resource, template });
        let resources = capabilities.resources.get_or_insert_with(Default::default);
        resources.subscribe = Some(true);
        // The list is given before the server serves and never changes while it does; a
        // resource's contents may (`resource_updates`).
        resources.list_changed = Some(false);
        capabilities
            .completions
            .get_or_insert_with(Default::default);
    }

    /// A handle that tells the clients subscribed to a resource that it changed.
    pub(in crate::mcp) fn updates(&self) -> ResourceUpdates {
        ResourceUpdates {
            subscriptions: Arc::clone(&self.subscriptions),
        }
    }

    /// `prompts/list`.
    pub(in crate::mcp) fn prompts_listed(&self) -> ListPromptsResult {
        ListPromptsResult::with_all_items(
            self.prompts
                .iter()
                .map(|prompt| listed_prompt(prompt.as_ref()))
                .collect(),
        )
    }

    /// `resources/list` (fixed URIs) or `resources/templates/list`.
    pub(in crate::mcp) fn resources_listed(&self) -> ListResourcesResult {
        ListResourcesResult::with_all_items(
            self.resources
                .iter()
                .filter(|served| !served.template.has_variables())
                .map(|served| {
                    let d = served.resource.definition();
                    let mut listed = McpResource::new(&d.uri, &d.name);
                    listed.title.clone_from(&d.title);
                    listed.description.clone_from(&d.description);
                    listed.mime_type.clone_from(&d.mime_type);
                    listed
                })
                .collect(),
        )
    }

    /// `resources/templates/list`.
    pub(in crate::mcp) fn templates_listed(&self) -> ListResourceTemplatesResult {
        ListResourceTemplatesResult::with_all_items(
            self.resources
                .iter()
                .filter(|served| served.template.has_variables())
                .map(|served| {
                    let d = served.resource.definition();
                    let mut listed = ResourceTemplate::new(&d.uri, &d.name);
                    listed.title.clone_from(&d.title);
                    listed.description.clone_from(&d.description);
                    listed.mime_type.clone_from(&d.mime_type);
                    listed
                })
                .collect(),
        )
    }

    /// `prompts/get`: the prompt's messages; at 2026-07-28, the questions it [`ask`](crate::mcp::ask)s
    /// in an input-required result, and its messages once the client sends the answers.
    pub(in crate::mcp) async fn prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
        states: &RequestStates,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(prompt) = self
            .prompts
            .iter()
            .find(|prompt| prompt.definition().name == request.name)
        else {
            let names = self.prompts.iter().map(|p| p.definition().name.as_str());
            let prose = prose::unknown_prompt(&request.name, names);
            return Err(ErrorData::invalid_params(prose, None));
        };
        let definition = prompt.definition();
        let arguments = request.arguments.unwrap_or_default();
        for argument in definition.arguments.iter().filter(|a| a.required) {
            if arguments.get(&argument.name).is_none_or(Value::is_null) {
                let prose = prose::missing_argument(&definition.name, &argument.name);
                return Err(ErrorData::invalid_params(prose, None));
            }
        }
        // At 2026-07-28 a prompt may ask, as a tool does: its questions are the answer, and the
        // client sends the request again with the answers and the state this server signed.
        let modern = speaks_input_required(&context);
        let bound = ToolCall::new(
            context.id.to_string(),
            format!("prompts/get {}", definition.name),
            Value::Object(arguments.clone()),
        );
        let mut answers = InputResponses::new();
        if modern {
            if let Some(state) = &request.request_state {
                answers = states.opened(&bound, state)?;
            }
            answers.extend(request.input_responses.unwrap_or_default());
        }
        let inputs = Arc::new(caller::Inputs::new(
            answers.clone(),
            context.client_capabilities(),
            modern,
        ));
        let got = caller::with_inputs(
            Arc::clone(&inputs),
            caught(|| prompt.get(PromptArguments::new(arguments))),
        )
        .await;
        let asked = inputs.take_asked();
        if modern && !asked.is_empty() {
            let state = states.sealed(&bound, &answers);
            return Ok(InputRequiredResult::new(Some(asked), Some(state)).into());
        }
        let name = &definition.name;
        let messages = match got {
            Ok(Ok(messages)) => messages,
            Ok(Err(failure)) => return Err(prompt_failure(name, &failure)),
            Err(payload) => {
                let prose = prose::prompt_panicked(name, payload.as_deref());
                return Err(ErrorData::internal_error(prose, None));
            }
        };
        let mut result = GetPromptResult::new(messages.into_iter().map(message).collect());
        result.description.clone_from(&definition.description);
        Ok(result.into())
    }

    /// `resources/read`: the contents of the resource at the URI, or of the template it fits.
    pub(in crate::mcp) async fn read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some((served, variables)) = self.find(&uri) else {
            let known = self
                .resources
                .iter()
                .map(|r| r.resource.definition().uri.as_str());
            let prose = prose::unknown_resource(&uri, known);
            return Err(not_found(&context, prose, &uri));
        };
        let definition = served.resource.definition();
        let got = caught(|| served.resource.read(ResourceRead::new(&uri, variables))).await;
        let contents = match got {
            Ok(Ok(contents)) => contents,
            Ok(Err(failure)) => {
                return Err(match failure.argument_of() {
                    Some((variable, cause)) => {
                        let cause = cause.unwrap_or("it is missing");
                        let prose = prose::bad_variable(&uri, &definition.uri, variable, cause);
                        ErrorData::invalid_params(prose, Some(json!({"uri": uri})))
                    }
                    None => ErrorData::internal_error(
                        prose::resource_failed(&uri, &failure.to_string()),
                        Some(json!({"uri": uri})),
                    ),
                });
            }
            Err(payload) => {
                let prose = prose::resource_panicked(&uri, payload.as_deref());
                return Err(ErrorData::internal_error(prose, Some(json!({"uri": uri}))));
            }
        };
        Ok(ReadResourceResult::new(contents.into_iter().map(content::contents).collect()).into())
    }

    /// `completion/complete`: the values a prompt's argument or a template's variable may take
    /// that begin with what the client typed.
    pub(in crate::mcp) fn completion(
        &self,
        request: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let typed = &request.argument.value;
        let argument = &request.argument.name;
        let values = match &request.r#ref {
            Reference::Prompt(reference) => {
                let Some(prompt) = self
                    .prompts
                    .iter()
                    .find(|prompt| prompt.definition().name == reference.name)
                else {
                    let what = format!("the prompt \"{}\"", reference.name);
                    return Err(ErrorData::invalid_params(
                        prose::nothing_to_complete(&what),
                        None,
                    ));
                };
                caught_now(|| prompt.complete(argument, typed))
            }
            Reference::Resource(reference) => {
                let Some(served) = self
                    .resources
                    .iter()
                    .find(|served| served.resource.definition().uri == reference.uri)
                else {
                    let what = format!("the resource template \"{}\"", reference.uri);
                    return Err(ErrorData::invalid_params(
                        prose::nothing_to_complete(&what),
                        None,
                    ));
                };
                caught_now(|| served.resource.complete(argument, typed))
            }
            // A reference of a later revision: nothing this server knows to complete.
            _ => Vec::new(),
        };
        let total = values.len();
        let mut values = values;
        values.truncate(CompletionInfo::MAX_VALUES);
        let mut completion = CompletionInfo::default();
        completion.has_more = Some(total > values.len());
        completion.total = u32::try_from(total).ok();
        completion.values = values;
        Ok(CompleteResult::new(completion))
    }

    /// `resources/subscribe`: the client hears `notifications/resources/updated` for the URI
    /// when [`ResourceUpdates::updated`] says it changed.
    pub(in crate::mcp) fn subscribe_to(
        &self,
        uri: String,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.find(&uri).is_none() {
            return Err(not_found(&context, prose::unknown_subscription(&uri), &uri));
        }
        let mut subscriptions = lock(&self.subscriptions);
        let legacy = &mut subscriptions.legacy;
        legacy.retain(|s| !s.peer.is_transport_closed());
        if !legacy
            .iter()
            .any(|s| s.uri == uri && same_peer(&s.peer, &context.peer))
        {
            legacy.push(Subscription {
                peer: context.peer,
                uri,
            });
        }
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub(in crate::mcp) fn unsubscribe_from(&self, uri: &str, context: &RequestContext<RoleServer>) {
        lock(&self.subscriptions)
            .legacy
            .retain(|s| !(s.uri == uri && same_peer(&s.peer, &context.peer)));
    }

    /// What a `subscriptions/listen` (2026-07-28) is granted: the updates of the resources it
    /// names that this server has; `None` (the method is not served) without resources.
    pub(in crate::mcp) fn listen_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        if self.resources.is_empty() {
            return None;
        }
        let uris = requested.resource_subscriptions.as_ref().map(|uris| {
            uris.iter()
                .filter(|uri| self.find(uri).is_some())
                .cloned()
                .collect::<Vec<_>>()
        });
        let mut filter = SubscriptionFilter::default();
        filter.resource_subscriptions = uris;
        Some(filter)
    }

    /// A `subscriptions/listen` stream, open until the client cancels it: it hears the updates
    /// of the resources its filter names.
    pub(in crate::mcp) async fn listening(&self, context: SubscriptionContext) {
        let number = {
            let mut subscriptions = lock(&self.subscriptions);
            let number = subscriptions.next;
            subscriptions.next += 1;
            subscriptions.streams.push((number, context.sink().clone()));
            number
        };
        context.cancelled().await;
        lock(&self.subscriptions)
            .streams
            .retain(|(n, _)| *n != number);
    }
}

impl Catalog {
    /// The resource `uri` is, or whose template it fits, and the template's variables.
    fn find(&self, uri: &str) -> Option<(&Served, Map<String, Value>)> {
        // A fixed URI first: `notes://today` is that resource, even beside `notes://{day}`.
        let fixed = self.resources.iter().find(|served| {
            !served.template.has_variables() && served.resource.definition().uri == uri
        });
        if let Some(served) = fixed {
            return Some((served, Map::new()));
        }
        self.resources
            .iter()
            .filter(|served| served.template.has_variables())
            .find_map(|served| {
                served
                    .template
                    .read(uri)
                    .map(|variables| (served, variables))
            })
    }
}

/// Tells the clients subscribed to a resource that it changed
/// ([`Server::resource_updates`](crate::mcp::Server::resource_updates)).
#[derive(Clone)]
pub struct ResourceUpdates {
    subscriptions: Arc<Mutex<Subscriptions>>,
}

impl ResourceUpdates {
    /// Sends `notifications/resources/updated` for `uri` to every client subscribed to it
    /// (`resources/subscribe` at 2025-11-25, a `subscriptions/listen` stream naming it at
    /// 2026-07-28); a client that went away is forgotten.
    pub async fn updated(&self, uri: &str) {
        let (peers, streams) = {
            let mut subscriptions = lock(&self.subscriptions);
            subscriptions
                .legacy
                .retain(|s| !s.peer.is_transport_closed());
            let peers: Vec<Peer<RoleServer>> = subscriptions
                .legacy
                .iter()
                .filter(|s| s.uri == uri)
                .map(|s| s.peer.clone())
                .collect();
            let streams: Vec<SubscriptionSink> = subscriptions
                .streams
                .iter()
                .filter(|(_, sink)| {
                    sink.accepted()
                        .resource_subscriptions
                        .as_ref()
                        .is_some_and(|uris| uris.iter().any(|u| u == uri))
                })
                .map(|(_, sink)| sink.clone())
                .collect();
            (peers, streams)
        };
        // A client that went away meanwhile is forgotten on the next update.
        for peer in peers {
            let _ = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                .await;
        }
        for stream in streams {
            let _ = stream.notify_resource_updated(uri).await;
        }
    }
}

impl std::fmt::Debug for ResourceUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceUpdates").finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether two handles are of one connection: the client's handshake is held once per
/// connection.
fn same_peer(a: &Peer<RoleServer>, b: &Peer<RoleServer>) -> bool {
    match (a.peer_info(), b.peer_info()) {
        (Some(a), Some(b)) => Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

/// The error for a URI the server has no resource at: -32002 with the URI before 2026-07-28,
/// -32602 from it on (SEP-2164).
fn not_found(context: &RequestContext<RoleServer>, prose: String, uri: &str) -> ErrorData {
    let data = Some(json!({"uri": uri}));
    if speaks_input_required(context) {
        ErrorData::invalid_params(prose, data)
    } else {
        ErrorData::resource_not_found(prose, data)
    }
}

/// The error for a prompt's failure: the request's (invalid params) for an argument, the
/// server's (internal error) otherwise.
fn prompt_failure(prompt: &str, failure: &Failure) -> ErrorData {
    match failure.argument_of() {
        Some((argument, None)) => {
            ErrorData::invalid_params(prose::missing_argument(prompt, argument), None)
        }
        Some((argument, Some(cause))) => {
            ErrorData::invalid_params(prose::bad_argument(prompt, argument, cause), None)
        }
        None => ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            prose::prompt_failed(prompt, &failure.to_string()),
            None,
        ),
    }
}

/// A prompt as `prompts/list` shows it.
fn listed_prompt(prompt: &dyn ServedPrompt) -> McpPrompt {
    let d = prompt.definition();
    let arguments = d
        .arguments
        .iter()
        .map(|argument| {
            let mut listed = McpArgument::new(&argument.name).with_required(argument.required);
            listed.description.clone_from(&argument.description);
            listed
        })
        .collect::<Vec<_>>();
    let mut listed = McpPrompt::new(
        &d.name,
        d.description.as_deref(),
        (!arguments.is_empty()).then_some(arguments),
    );
    listed.title.clone_from(&d.title);
    listed
}

/// A prompt's message on MCP's wire.
fn message(message: PromptMessage) -> McpMessage {
    let role = if message.assistant {
        Role::Assistant
    } else {
        Role::User
    };
    McpMessage::new(role, content::block(message.content))
}

/// The output of the future `make` returns, or the message of a panic (`None` for one that is
/// not a string) while `make` runs or the future is polled.
async fn caught<'a, T>(
    make: impl FnOnce() -> Pin<Box<dyn Future<Output = T> + Send + 'a>>,
) -> Result<T, Option<String>> {
    let mut future = catch_unwind(AssertUnwindSafe(make)).map_err(message_of)?;
    std::future::poll_fn(
        |cx| match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(message_of(payload))),
        },
    )
    .await
}

/// What `complete` gives, or nothing when it panics: a completion is a suggestion.
fn caught_now(complete: impl FnOnce() -> Vec<String>) -> Vec<String> {
    catch_unwind(AssertUnwindSafe(complete)).unwrap_or_default()
}

/// A panic's message, when it is a string.
fn message_of(payload: Box<dyn Any + Send>) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}
