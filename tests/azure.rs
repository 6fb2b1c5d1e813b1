//! OpenAI's two APIs on Azure, against a real HTTP server on 127.0.0.1: the deployment and v1
//! URLs, the `api-key` header or a bearer token, the variables the official SDKs read, and the
//! same bodies and answers as on OpenAI.

#[allow(dead_code, reason = "shared with http.rs, which uses all of it")]
use std::collections::BTreeMap;

use serde_json::{Value, json};
use skyl::http::{ConfigErrorKind, HttpModel};
use skyl::model::Model;
use skyl::provider::{Adapter, AzureOpenAi, OpenAiChat, OpenAiResponses, Request};
use skyl::{Message, ToolDefinition};

use crate::support::fixture;
use crate::support::http_server::{self, End, Recorded, Reply, Server};

fn json_fixture(path: &str) -> Value {
    serde_json::from_slice(&fixture(path)).unwrap()
}

/// `variables` as the environment.
fn env(variables: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let variables: BTreeMap<String, String> = variables
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    move |name| variables.get(name).cloned()
}

fn request(model: &str) -> Request<'static> {
    Request::new(model.to_owned(), vec![Message::user("Weather in Paris?")]).with_tools(vec![ToolDefinition::new("get_weather", "Current weather in a city.", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))]
        ).with_max_tokens(256)
}

fn headers(auth: (&str, &str), accept: &str) -> BTreeMap<String, String> {
    [
        ("accept", accept),
        ("content-type", "application/json"),
        ("user-agent", concat!("skyl/", env!("CARGO_PKG_VERSION"))),
        auth,
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect()
}

#[tokio::test]
async fn chat_goes_to_the_deployment_with_the_api_version_and_the_api_key() {
    let answer = json_fixture("stream/openai_chat/one_call.json");
    let server = Server::start(vec![
        Reply::json(200, answer.to_string()),
        Reply::stream(&fixture("stream/openai_chat/one_call.sse"), End::Close),
    ])
    .await;
    let model = HttpModel::builder(AzureOpenAi::chat(OpenAiChat::default()))
        .with_vars(env(&[
            ("AZURE_OPENAI_API_KEY", "azure-key-0123456789"),
            ("AZURE_OPENAI_ENDPOINT", &server.url),
            ("OPENAI_API_VERSION", "2024-10-21"),
        ]))
        .build()
        .unwrap();
    let request = request("gpt-4o-prod");

    let whole = model.complete(&request).await.unwrap();
    assert_eq!(whole, OpenAiChat::default().decode(&answer).unwrap());
    let streamed = model.stream(&request, &mut |_| {}).await.unwrap();
    assert_eq!(streamed, whole);

    let body = OpenAiChat::default().encode(&request).unwrap();
    let path = "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21";
    let auth = ("api-key", "azure-key-0123456789");
    assert_eq!(
        server.requests(),
        [
            Recorded {
                method: "POST".into(),
                path: path.into(),
                headers: headers(auth, "application/json"),
                body: body.clone(),
            },
            Recorded {
                method: "POST".into(),
                path: path.into(),
                headers: headers(auth, "text/event-stream"),
                body: http_server::streamed("openai_chat", body),
            },
        ]
    );
}

#[tokio::test]
async fn responses_go_to_the_v1_api_with_an_entra_id_token() {
    let answer = json_fixture("openai_responses/text_and_calls.json");
    let server = Server::start(vec![Reply::json(200, answer.to_string())]).await;
    let model = HttpModel::builder(AzureOpenAi::responses(OpenAiResponses::default()))
        .with_vars(env(&[
            ("AZURE_OPENAI_AD_TOKEN", "entra-token-0123456789"),
            ("AZURE_OPENAI_ENDPOINT", &format!("{}/", server.url)),
        ]))
        .build()
        .unwrap();
    let request = request("gpt-4.1");

    let response = model.complete(&request).await.unwrap();
    assert_eq!(
        response,
        OpenAiResponses::default().decode(&answer).unwrap()
    );
    assert_eq!(
        server.requests(),
        [Recorded {
            method: "POST".into(),
            path: "/openai/v1/responses".into(),
            headers: headers(
                ("authorization", "Bearer entra-token-0123456789"),
                "application/json"
            ),
            body: OpenAiResponses::default().encode(&request).unwrap(),
        }]
    );
}

#[tokio::test]
async fn responses_with_an_api_version_are_not_per_deployment() {
    let answer = json_fixture("openai_responses/text_and_calls.json");
    let server = Server::start(vec![Reply::json(200, answer.to_string())]).await;
    let model = HttpModel::builder(
        AzureOpenAi::responses(OpenAiResponses::default()).with_api_version("2025-04-01-preview"),
    )
    .api_key("azure-key-0123456789")
    .base_url(&server.url)
    .build()
    .unwrap();
    model.complete(&request("gpt-4.1")).await.unwrap();
    let requests = server.requests();
    assert_eq!(
        (
            requests[0].path.as_str(),
            requests[0].headers.get("api-key")
        ),
        (
            "/openai/responses?api-version=2025-04-01-preview",
            Some(&"azure-key-0123456789".to_owned())
        )
    );
}

#[test]
fn azure_needs_an_endpoint_and_a_key() {
    let error = HttpModel::builder(AzureOpenAi::chat(OpenAiChat::default()))
        .with_vars(env(&[("AZURE_OPENAI_API_KEY", "k")]))
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ConfigErrorKind::NoBaseUrl);
    assert_eq!(
        error.to_string(),
        "no base URL for OpenAI Chat, which has none of its own: set AZURE_OPENAI_ENDPOINT, or give one with HttpModelBuilder::base_url"
    );

    let error = HttpModel::builder(AzureOpenAi::chat(OpenAiChat::default()))
        .with_vars(env(&[(
            "AZURE_OPENAI_ENDPOINT",
            "https://my-resource.openai.azure.com",
        )]))
        .build()
        .unwrap_err();
    assert_eq!(error.kind(), ConfigErrorKind::NoKey);
    assert_eq!(
        error.to_string(),
        "no API key for OpenAI Chat: set AZURE_OPENAI_API_KEY, or give one with HttpModelBuilder::api_key (a server at another base URL may need none)"
    );
}

#[test]
fn a_deployment_name_and_a_version_cannot_reach_another_path_or_parameter() {
    let azure = AzureOpenAi::chat(OpenAiChat::default()).with_api_version("2024-10-21&x=1");
    assert_eq!(
        skyl::provider::author::Api::url(&azure, "http://h", "a/b?c", false),
        "http://h/openai/deployments/a%2Fb%3Fc/chat/completions?api-version=2024-10-21%26x%3D1"
    );
}
