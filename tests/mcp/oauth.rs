//! Mounting a server that requires OAuth: skyl's own server with authorization is the resource
//! server, and an authorization server written here issues the tokens; skyl's `OAuth` discovers
//! it, registers, has the "person" authorize (or uses client credentials) and calls a tool.

use std::collections::HashMap;
use std::convert::Infallible;
use std::error::Error;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use skyl::mcp::{Authorization, ConnectError, Grant, OAuth, Remote, Server};
use skyl::{ToolCall, Toolbox};
use url::Url;

use crate::common::{bounded, http_exchange};
use crate::weather_tools;

/// The authorization server: what it issued, and what it was asked, in order.
struct Issuer {
    base: String,
    /// The scopes its tokens grant whatever is asked (`None`: what is asked).
    grants: Option<Vec<String>>,
    /// Whether its token responses say what the token grants, or what was asked.
    honest: bool,
    codes: Mutex<HashMap<String, Vec<String>>>,
    tokens: Mutex<HashMap<String, Vec<String>>>,
    seen: Mutex<Vec<String>>,
}

impl Issuer {
    /// Starts one on a local port.
    async fn start(grants: Option<&[&str]>, honest: bool) -> Arc<Issuer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = Arc::new(Issuer {
            base: format!("http://{}", listener.local_addr().unwrap()),
            grants: grants.map(|scopes| scopes.iter().map(|s| s.to_string()).collect()),
            honest,
            codes: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            seen: Mutex::new(Vec::new()),
        });
        let serving = Arc::clone(&issuer);
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let issuer = Arc::clone(&serving);
                tokio::spawn(async move {
                    let answer = hyper::service::service_fn(move |request| {
                        let issuer = Arc::clone(&issuer);
                        async move { Ok::<_, Infallible>(issuer.answer(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), answer)
                        .await;
                });
            }
        });
        issuer
    }

    fn saw(&self, what: String) {
        self.seen.lock().unwrap().push(what);
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// Forgets every token it issued, as if revoked.
    fn revoke(&self) {
        self.tokens.lock().unwrap().clear();
    }

    /// What a token grants, for the resource server's verifier.
    fn verify(&self, token: &str) -> Option<Grant> {
        let tokens = self.tokens.lock().unwrap();
        tokens.get(token).map(|scopes| Grant::new(scopes.clone()))
    }

    async fn answer(&self, request: Request<Incoming>) -> Response<Full<Bytes>> {
        let url = Url::parse(&format!("{}{}", self.base, request.uri())).unwrap();
        let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
        let path = url.path().to_owned();
        let body = request.into_body().collect().await.unwrap().to_bytes();
        let form: HashMap<String, String> =
            url::form_urlencoded::parse(&body).into_owned().collect();
        let base = &self.base;
        match path.as_str() {
            "/.well-known/oauth-authorization-server" => json_answer(
                StatusCode::OK,
                json!({
                    "issuer": base,
                    "authorization_endpoint": format!("{base}/authorize"),
                    "token_endpoint": format!("{base}/token"),
                    "registration_endpoint": format!("{base}/register"),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code", "client_credentials"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none", "client_secret_post"]
                }),
            ),
            "/register" => {
                let registration: Value = serde_json::from_slice(&body).unwrap();
                self.saw(format!("register {}", registration["client_name"]));
                json_answer(
                    StatusCode::CREATED,
                    json!({
                        "client_id": "registered-client",
                        "redirect_uris": registration["redirect_uris"]
                    }),
                )
            }
            "/authorize" => {
                let field = |key: &str| query.get(key).cloned().unwrap_or_default();
                self.saw(format!(
                    "authorize client_id={} scope={} resource={} pkce={}",
                    field("client_id"),
                    field("scope"),
                    field("resource"),
                    field("code_challenge_method")
                ));
                let scopes = field("scope")
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect();
                self.codes
                    .lock()
                    .unwrap()
                    .insert("the-code".to_owned(), scopes);
                let mut redirect = Url::parse(&field("redirect_uri")).unwrap();
                redirect
                    .query_pairs_mut()
                    .append_pair("code", "the-code")
                    .append_pair("state", &field("state"));
                Response::builder()
                    .status(StatusCode::FOUND)
                    .header("location", redirect.as_str())
                    .body(Full::new(Bytes::new()))
                    .unwrap()
            }
            "/token" => {
                let field = |key: &str| form.get(key).cloned().unwrap_or_default();
                let asked = match field("grant_type").as_str() {
                    "authorization_code" => {
                        self.saw(format!(
                            "token authorization_code resource={} verifier={}",
                            field("resource"),
                            !field("code_verifier").is_empty()
                        ));
                        self.codes.lock().unwrap().remove(&field("code"))
                    }
                    "client_credentials" => {
                        self.saw(format!(
                            "token client_credentials client_id={} resource={}",
                            field("client_id"),
                            field("resource")
                        ));
                        (field("client_secret") == "machine-secret").then(|| {
                            field("scope")
                                .split_whitespace()
                                .map(str::to_owned)
                                .collect()
                        })
                    }
                    _ => None,
                };
                let Some(asked) = asked else {
                    return json_answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"}));
                };
                let granted = self.grants.clone().unwrap_or_else(|| asked.clone());
                let said = if self.honest { granted.clone() } else { asked };
                let mut tokens = self.tokens.lock().unwrap();
                let token = format!("token-{}", tokens.len() + 1);
                tokens.insert(token.clone(), granted);
                json_answer(
                    StatusCode::OK,
                    json!({
                        "access_token": token,
                        "token_type": "Bearer",
                        "expires_in": 3600,
                        "scope": said.join(" ")
                    }),
                )
            }
            _ => json_answer(StatusCode::NOT_FOUND, json!({"error": "not_found"})),
        }
    }
}

fn json_answer(status: StatusCode, body: Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

/// skyl's weather server on a local port, taking the tokens `issuer` issued with the scope
/// `weather:read`. Returns its URL and the task serving it.
async fn weather_server(issuer: &Arc<Issuer>) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let verifier = Arc::clone(issuer);
    let authorization = Authorization::bearer(&url, &issuer.base, move |token: String| {
        let grant = verifier.verify(&token);
        async move { grant }
    })
    .require_scopes(["weather:read"]);
    let serving = tokio::spawn(async move {
        let _ = Server::new(weather_tools::toolbox())
            .with_authorization(authorization)
            .serve_http(listener)
            .await;
    });
    (url, serving)
}

/// The person, approving at once: their browser's GET of the authorization page, whose redirect
/// is where the browser would have gone.
async fn approve(url: String) -> Result<String, Box<dyn Error + Send + Sync>> {
    let page = Url::parse(&url)?;
    let address = format!(
        "{}:{}",
        page.host_str().ok_or("no host")?,
        page.port().ok_or("no port")?
    );
    let request = format!(
        "GET {}?{} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\r\n",
        page.path(),
        page.query().unwrap_or_default()
    );
    let (head, _) = http_exchange(address.parse()?, request).await;
    head.lines()
        .find_map(|line| line.strip_prefix("location: "))
        .map(str::to_owned)
        .ok_or_else(|| format!("the authorization page did not redirect: {head}").into())
}

async fn get_weather(remote: &Remote) -> String {
    let toolbox = Toolbox::new().with_remote(remote);
    let call = ToolCall::new("c", "weather_get_weather", json!({"city": "Gulu"}));
    bounded("a call", toolbox.dispatch(&call)).await.content
}

/// The authorization-code flow with a person who approves at once, and how many times they were
/// asked.
fn approving() -> (OAuth, Arc<Mutex<usize>>) {
    let asked = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&asked);
    let oauth = OAuth::authorization_code("http://127.0.0.1:9/callback", move |url: String| {
        *counted.lock().unwrap() += 1;
        approve(url)
    });
    (oauth, asked)
}

/// Mounts the weather server at `url` as "weather", with `oauth`.
async fn mount(url: &str, oauth: OAuth) -> Result<Remote, ConnectError> {
    bounded(
        "mounting with OAuth",
        Remote::builder("weather").oauth(oauth).connect_http(url),
    )
    .await
}

#[tokio::test]
async fn a_person_authorizes_and_the_mounted_servers_tool_is_called_with_the_token() {
    let issuer = Issuer::start(None, true).await;
    let (url, serving) = weather_server(&issuer).await;
    let (oauth, asked) = approving();
    let weather = mount(&url, oauth).await.unwrap();
    assert_eq!(get_weather(&weather).await, "27C and cloudy in Gulu");
    weather.close().await;

    // Registered itself, asked for the scope the server's challenge named, for this server, with
    // PKCE; one authorization for the handshake, the listing and the call.
    assert_eq!(
        issuer.seen(),
        [
            "register \"skyl\"".to_owned(),
            format!(
                "authorize client_id=registered-client scope=weather:read resource={url} pkce=S256"
            ),
            format!("token authorization_code resource={url} verifier=true"),
        ]
    );
    assert_eq!(*asked.lock().unwrap(), 1);
    serving.abort();
}

#[tokio::test]
async fn a_machine_client_gets_its_token_with_client_credentials() {
    let issuer = Issuer::start(None, true).await;
    let (url, serving) = weather_server(&issuer).await;
    let weather = mount(&url, OAuth::client_credentials("machine", "machine-secret"))
        .await
        .unwrap();
    assert_eq!(get_weather(&weather).await, "27C and cloudy in Gulu");
    weather.close().await;
    assert_eq!(
        issuer.seen(),
        [format!(
            "token client_credentials client_id=machine resource={url}"
        )]
    );
    serving.abort();
}

/// The error and each of its causes, outermost first.
fn chain(error: &dyn Error) -> Vec<String> {
    let mut chain = vec![error.to_string()];
    let mut cause = error.source();
    while let Some(error) = cause {
        chain.push(error.to_string());
        cause = error.source();
    }
    chain
}

#[tokio::test]
async fn an_authorization_the_person_does_not_complete_fails_the_connection_saying_so() {
    let issuer = Issuer::start(None, true).await;
    let (url, serving) = weather_server(&issuer).await;
    let oauth = OAuth::authorization_code("http://127.0.0.1:9/callback", |_url: String| async {
        Err::<String, _>("the person closed the browser window")
    });
    let refused = mount(&url, oauth).await.unwrap_err();
    assert!(
        matches!(refused, ConnectError::Authorization { .. }),
        "{refused:?}"
    );
    assert_eq!(
        chain(&refused),
        [
            format!("could not get authorization for the MCP server \"weather\" at {url}"),
            format!("the authorization for {url} was not completed; authorize again"),
            "the person closed the browser window".to_owned(),
        ]
    );
    serving.abort();
}

/// Mounts the weather server with a person who approves at once, as the pre-registered client
/// `preregistered`; returns the failure and how many times the person was asked.
async fn mount_refused(url: &str) -> (ConnectError, usize) {
    let (oauth, asked) = approving();
    let oauth = oauth.client_id("preregistered");
    let refused = mount(url, oauth).await.unwrap_err();
    let asked = *asked.lock().unwrap();
    (refused, asked)
}

/// Mounts the weather server, whose issuer's tokens grant `profile` whatever is asked (saying so
/// when `honest`), and checks that mounting fails for `cause` (given the server's URL) once the
/// person was asked `asked` times.
async fn assert_refused(honest: bool, cause: impl Fn(&str) -> String, asked: usize) {
    let issuer = Issuer::start(Some(&["profile"]), honest).await;
    let (url, serving) = weather_server(&issuer).await;
    let (refused, asked_times) = mount_refused(&url).await;
    assert_eq!(
        chain(&refused),
        [
            format!("could not get authorization for the MCP server \"weather\" at {url}"),
            cause(&url),
        ]
    );
    assert_eq!(asked_times, asked);
    serving.abort();
}

#[tokio::test]
async fn a_server_that_refuses_a_scope_the_token_was_granted_is_not_authorized_again() {
    // The authorization server says it granted what was asked (weather:read), but its tokens
    // grant `profile`: the weather server answers 403 for weather:read, which the token holds.
    assert_refused(
        false,
        |url| {
            format!(
                "{url} refused the access token for lacking the scopes weather:read, which it holds already; check what the account may do on that server"
            )
        },
        1,
    )
    .await;
}

#[tokio::test]
async fn a_server_that_keeps_refusing_stops_at_the_limit_of_authorizations() {
    // The authorization server grants `profile` whatever is asked, and says so: each 403 asks
    // for weather:read on top, each step-up gets profile again.
    assert_refused(
        true,
        |url| {
            format!(
                "{url} still refused access after 3 authorizations for one request; check what the account may do on that server, or raise OAuth::max_authorizations"
            )
        },
        3,
    )
    .await;
}

#[tokio::test]
async fn a_call_after_the_token_was_revoked_asks_the_person_again_and_says_when_they_do_not() {
    let issuer = Issuer::start(None, true).await;
    let (url, serving) = weather_server(&issuer).await;
    let asked = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&asked);
    // The person approves the first time, and closes the window the second.
    let oauth = OAuth::authorization_code("http://127.0.0.1:9/callback", move |url: String| {
        let first = {
            let mut asked = counted.lock().unwrap();
            *asked += 1;
            *asked == 1
        };
        async move {
            match first {
                true => approve(url).await,
                false => Err("the person closed the browser window".into()),
            }
        }
    });
    let weather = mount(&url, oauth).await.unwrap();
    assert_eq!(get_weather(&weather).await, "27C and cloudy in Gulu");
    issuer.revoke();
    assert_eq!(
        get_weather(&weather).await,
        format!(
            "ERROR: weather_get_weather failed: the MCP server \"weather\" refused the call without authorization, and authorizing failed: the authorization for {url} was not completed; authorize again. Do not call its tools again; tell the user that access to the \"weather\" server needs their authorization."
        )
    );
    assert_eq!(*asked.lock().unwrap(), 2);
    weather.close().await;
    serving.abort();
}
