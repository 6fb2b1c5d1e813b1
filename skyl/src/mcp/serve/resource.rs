//! Resources a server offers: what one is ([`ServedResource`]), its definition, what reading it
//! gives, and resources made at run time ([`DynamicResource`]). `#[skyl::resource]` makes one of
//! a function.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::content::{Resource, ResourceBody};
use crate::mcp::serve::failure::Failure;
use crate::mcp::serve::prompt::{Completer, failure};

/// A resource as `resources/list` shows it (a fixed URI) or as `resources/templates/list` does
/// (a URI template, RFC 6570: `{name}` stands for one segment of the URI, `{+name}` for any
/// text, slashes included).
///
/// A `uri` with a `{` is a template.
///
/// Non-exhaustive: MCP adds fields to its definitions, so one is built with its constructors and
/// `with_*` methods (or [`Default`]) and its fields are set by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceDefinition {
    /// The URI, or the URI template.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A name for people, when it differs from `name`.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its media type, when all it gives is of one.
    pub mime_type: Option<String>,
}

impl ResourceDefinition {
    /// The resource at `uri` (or the template `uri`) named `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceDefinition {
            uri: uri.into(),
            name: name.into(),
            ..ResourceDefinition::default()
        }
    }

    /// The definition with a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The definition with a media type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The definition with a title for people.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// What a resource function may return: text, bytes (`Vec<u8>`, a blob), a [`Resource`] or
/// several, or a `Result` of one of them whose error is the read's failure. Text and bytes are
/// the contents of the URI read, of the definition's media type (bytes without one are
/// `application/octet-stream`).
#[diagnostic::on_unimplemented(
    message = "a resource cannot return `{Self}`",
    label = "not a resource's contents",
    note = "return text (`String`), bytes (`Vec<u8>`), a `skyl::content::Resource`, a `Vec<Resource>`, or a `Result` of one of them whose error implements `Display`"
)]
pub trait IntoResourceContents {
    /// The contents of `uri`, or why there are none.
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure>;
}

impl IntoResourceContents for String {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure> {
        Ok(vec![Resource {
            uri: uri.to_owned(),
            media_type: mime_type.map(str::to_owned),
            body: ResourceBody::Text(self),
        }])
    }
}

impl IntoResourceContents for &str {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure> {
        self.to_owned().into_resource_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Vec<u8> {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure> {
        self.as_slice().into_resource_contents(uri, mime_type)
    }
}

impl IntoResourceContents for &[u8] {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure> {
        let mime_type = mime_type.unwrap_or("application/octet-stream");
        Ok(vec![Resource::blob(uri, mime_type, self)])
    }
}

impl IntoResourceContents for Resource {
    fn into_resource_contents(self, _: &str, _: Option<&str>) -> Result<Vec<Resource>, Failure> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<Resource> {
    fn into_resource_contents(self, _: &str, _: Option<&str>) -> Result<Vec<Resource>, Failure> {
        Ok(self)
    }
}

impl<T: IntoResourceContents, E: fmt::Display + 'static> IntoResourceContents for Result<T, E> {
    fn into_resource_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<Resource>, Failure> {
        self.map_err(failure)?
            .into_resource_contents(uri, mime_type)
    }
}

/// A `resources/read`: the URI read and, for a template, its variables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceRead {
    uri: String,
    variables: Map<String, Value>,
}

impl ResourceRead {
    /// The read of `uri`, whose template's variables are `variables` (text values).
    pub fn new(uri: impl Into<String>, variables: Map<String, Value>) -> Self {
        ResourceRead {
            uri: uri.into(),
            variables,
        }
    }

    /// The URI read.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The template's variables, as text.
    pub fn variables(&self) -> &Map<String, Value> {
        &self.variables
    }

    /// The template's variable `name`, read as `T` (as a prompt's argument is: text as JSON
    /// would hold it as a string, else as the JSON it says).
    pub fn variable<T: DeserializeOwned>(&self, name: &str) -> Result<T, Failure> {
        crate::mcp::reading::argument(&self.variables, name)
    }
}

/// The future of a resource's contents.
pub type ResourceFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<Resource>, Failure>> + Send + 'a>>;

/// A resource (or a template of resources) a [`Server`](crate::mcp::Server) offers
/// ([`Server::with_resource`](crate::mcp::Server::with_resource)): a function with
/// `#[skyl::resource]`, a [`DynamicResource`], or a type of your own.
///
/// Every `resources/read` gets one answer: a URI the server has no resource at, a template's
/// variable that does not read, the resource's failure and a panic of its function become the
/// protocol's errors, with a message naming the URI, the cause and what to do next.
pub trait ServedResource: Send + Sync + 'static {
    /// What `resources/list` (or `resources/templates/list`) shows.
    fn definition(&self) -> &ResourceDefinition;

    /// The contents of `read`'s URI.
    fn read(&self, read: ResourceRead) -> ResourceFuture<'_>;

    /// The values the template's variable `variable` may take that begin with `typed`, for
    /// `completion/complete`; none unless the resource says.
    fn complete(&self, variable: &str, typed: &str) -> Vec<String> {
        let _ = (variable, typed);
        Vec::new()
    }
}

/// What a [`DynamicResource`] runs.
type Read = dyn Fn(ResourceRead) -> ResourceFuture<'static> + Send + Sync;

/// A resource made at run time from a [`ResourceDefinition`] and a closure.
///
/// ```
/// use skyl::mcp::{DynamicResource, ResourceDefinition, Server};
///
/// let readme = DynamicResource::from_fn(
///     ResourceDefinition::new("docs://readme", "readme").with_mime_type("text/markdown"),
///     |_| "# Hello",
/// );
/// let chapter = DynamicResource::from_fn(
///     ResourceDefinition::new("docs://chapters/{number}", "chapter"),
///     |read| -> Result<String, skyl::mcp::Failure> {
///         let number: u32 = read.variable("number")?;
///         Ok(format!("Chapter {number}"))
///     },
/// );
/// let server = Server::new(skyl::Toolbox::new()).with_resource(readme).with_resource(chapter);
/// # let _ = server;
/// ```
pub struct DynamicResource {
    definition: ResourceDefinition,
    read: Box<Read>,
    completers: HashMap<String, Completer>,
}

impl DynamicResource {
    /// A resource whose contents `read` gives, on the thread that polls it.
    pub fn from_fn<R, F>(definition: ResourceDefinition, read: F) -> Self
    where
        R: IntoResourceContents,
        F: Fn(ResourceRead) -> R + Send + Sync + 'static,
    {
        let mime_type = definition.mime_type.clone();
        DynamicResource {
            definition,
            read: Box::new(move |request| {
                let uri = request.uri.clone();
                let contents = read(request).into_resource_contents(&uri, mime_type.as_deref());
                Box::pin(std::future::ready(contents))
            }),
            completers: HashMap::new(),
        }
    }

    /// A resource whose contents the future `read` returns gives.
    pub fn from_async_fn<R, Fut, F>(definition: ResourceDefinition, read: F) -> Self
    where
        R: IntoResourceContents,
        Fut: Future<Output = R> + Send + 'static,
        F: Fn(ResourceRead) -> Fut + Send + Sync + 'static,
    {
        let mime_type = definition.mime_type.clone();
        DynamicResource {
            definition,
            read: Box::new(move |request| {
                let uri = request.uri.clone();
                let future = read(request);
                let mime_type = mime_type.clone();
                Box::pin(async move {
                    future
                        .await
                        .into_resource_contents(&uri, mime_type.as_deref())
                })
            }),
            completers: HashMap::new(),
        }
    }

    /// The resource with `complete` giving the values the template's variable `variable` may
    /// take that begin with what the client typed.
    pub fn with_completion(
        mut self,
        variable: impl Into<String>,
        complete: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completers
            .insert(variable.into(), std::sync::Arc::new(complete));
        self
    }
}

impl ServedResource for DynamicResource {
    fn definition(&self) -> &ResourceDefinition {
        &self.definition
    }

    fn read(&self, read: ResourceRead) -> ResourceFuture<'_> {
        (self.read)(read)
    }

    fn complete(&self, variable: &str, typed: &str) -> Vec<String> {
        self.completers
            .get(variable)
            .map(|complete| complete(typed))
            .unwrap_or_default()
    }
}

impl fmt::Debug for DynamicResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicResource")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
