//! A served prompt that asks the person (input-required at 2026-07-28), and a client subscribed
//! to a resource hearing that it changed (`resources/subscribe` at 2025-11-25).

// `resources/subscribe` is 2025-11-25's; rmcp marks it deprecated for 2026-07-28.
#![allow(deprecated)]

use serde_json::{Value, json};
use skyl::Toolbox;
use skyl::mcp::rmcp::model::{
    ClientCapabilities, ClientRequest, GetPromptRequest, GetPromptRequestParams, Implementation,
    ProtocolVersion, ResourceUpdatedNotificationParam, SubscribeRequest, SubscribeRequestParams,
    UnsubscribeRequest, UnsubscribeRequestParams,
};
use skyl::mcp::rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient, RunningService,
    ServiceError,
};
use skyl::mcp::rmcp::{ClientHandler, ServiceExt, model::ClientConfig};
use skyl::mcp::{
    DynamicPrompt, DynamicResource, Failure, PromptDefinition, ResourceDefinition, Server,
};
use tokio::sync::mpsc;

use crate::common::bounded;

/// A prompt that asks which project it is about, then names it.
fn asking_server() -> Server {
    let prompt = DynamicPrompt::from_fn(
        PromptDefinition::new("standup", "Writes the stand-up of a project."),
        |_| -> Result<String, Failure> {
            if let Some(answer) = skyl::mcp::answer("project") {
                let project = answer["content"]["project"].as_str().unwrap_or("?");
                return Ok(format!("Write the stand-up of {project}."));
            }
            let question = serde_json::from_value(json!({
                "method": "elicitation/create",
                "params": {"mode": "form", "message": "Which project?",
                           "requestedSchema": {"type": "object", "properties": {"project": {"type": "string"}}}}
            }))
            .map_err(Failure::new)?;
            Err(skyl::mcp::ask("project", question).into())
        },
    );
    Server::new(Toolbox::new())
        .with_prompt(prompt)
        .with_state_key([7; 32])
}

/// A client that declares elicitation, and passes on each resource update it hears.
struct Listener(mpsc::UnboundedSender<String>);

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("listener", "1.0.0"),
        )
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

async fn send(client: &RunningService<RoleClient, Listener>, request: ClientRequest) -> Value {
    match bounded("a request", client.peer().send_request(request)).await {
        Ok(result) => serde_json::to_value(result).unwrap(),
        Err(ServiceError::McpError(error)) => {
            json!({"error": serde_json::to_value(error).unwrap()})
        }
        Err(other) => panic!("the request failed outside MCP: {other}"),
    }
}

fn standup(answer: Option<Value>, state: Option<&str>) -> ClientRequest {
    let mut params = GetPromptRequestParams::new("standup");
    if let Some(answer) = answer {
        params.input_responses = Some([("project".to_owned(), answer)].into());
    }
    params.request_state = state.map(str::to_owned);
    ClientRequest::GetPromptRequest(GetPromptRequest::new(params))
}

#[tokio::test]
async fn a_prompt_asks_in_an_input_required_result_at_2026_07_28() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(asking_server().serve(server_end));
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let (sender, _) = mpsc::unbounded_channel();
    let client = bounded(
        "the discovery",
        Listener(sender).serve_with_lifecycle(client_end, lifecycle),
    )
    .await
    .unwrap();
    let mut asked = send(&client, standup(None, None)).await;
    let state = asked["requestState"].as_str().unwrap().to_owned();
    asked["requestState"] = json!("<signed>");
    assert_eq!(
        asked,
        json!({"resultType": "input_required", "requestState": "<signed>", "inputRequests": {"project": {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": "Which project?",
                       "requestedSchema": {"type": "object", "properties": {"project": {"type": "string"}}}}
        }}})
    );
    let answer = json!({"action": "accept", "content": {"project": "skyl"}});
    assert_eq!(
        send(&client, standup(Some(answer.clone()), Some(&state))).await,
        json!({"resultType": "complete", "description": "Writes the stand-up of a project.", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Write the stand-up of skyl."}}
        ]})
    );
    // A state the server did not sign is refused, and the prompt does not run.
    let refused = send(&client, standup(Some(answer), Some("forged"))).await;
    assert_eq!(refused["error"]["code"], json!(-32602), "{refused}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_subscribed_client_hears_its_resource_changed_at_2025_11_25() {
    let today = DynamicResource::from_fn(
        ResourceDefinition::new("notes://today", "today"),
        |_| "Buy milk.",
    );
    let day = DynamicResource::from_fn(
        ResourceDefinition::new("notes://days/{day}", "day"),
        |_| "A day.",
    );
    let server = Server::new(Toolbox::new())
        .with_resource(today)
        .with_resource(day);
    let updates = server.resource_updates();
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_end));
    let (sender, mut heard) = mpsc::unbounded_channel();
    let client = bounded("the handshake", Listener(sender).serve(client_end))
        .await
        .unwrap();
    let subscribe = |uri: &str| {
        ClientRequest::SubscribeRequest(SubscribeRequest::new(SubscribeRequestParams::new(uri)))
    };
    assert_eq!(send(&client, subscribe("notes://today")).await, json!({}));
    updates.updated("notes://today").await;
    assert_eq!(
        bounded("the update", heard.recv()).await.unwrap(),
        "notes://today"
    );
    // Unsubscribed, the client hears no more of it: the next update it hears is another's.
    let unsubscribe = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(
        UnsubscribeRequestParams::new("notes://today"),
    ));
    assert_eq!(send(&client, unsubscribe).await, json!({}));
    assert_eq!(send(&client, subscribe("notes://days/3")).await, json!({}));
    updates.updated("notes://today").await;
    updates.updated("notes://days/3").await;
    assert_eq!(
        bounded("the update", heard.recv()).await.unwrap(),
        "notes://days/3"
    );
    // A URI the server does not serve cannot be subscribed to.
    assert_eq!(
        send(&client, subscribe("notes://nowhere")).await,
        json!({"error": {"code": -32002, "message": "there is no resource at \"notes://nowhere\" to subscribe to; subscribe to one that resources/list lists, or that fits a template of resources/templates/list", "data": {"uri": "notes://nowhere"}}})
    );
    client.cancel().await.unwrap();
}
