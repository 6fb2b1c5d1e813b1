//! The expansion in a strict crate: every warning denied, `unsafe` forbidden, docs required, and
//! user names that the generated code must not capture or be captured by.
#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    unused_qualifications,
    unused_results,
    unused_lifetimes,
    single_use_lifetimes,
    trivial_casts,
    rust_2018_idioms
)]
#![forbid(unsafe_code)]

use serde_json::json;
use skyl::{ToolCall, Toolbox};

/// Tools whose module shadows the names a careless expansion would use.
pub mod tools {
    /// A parameter type named like the prelude's `Result`.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    pub struct Result {
        /// A number.
        pub x: i64,
    }

    /// Shadows `Option`.
    #[derive(Debug)]
    pub struct Option;
    /// Shadows `String`.
    #[derive(Debug)]
    pub struct String;
    /// Shadows `Send`.
    #[derive(Debug)]
    pub struct Send;
    /// Shadows `Box`.
    #[derive(Debug)]
    pub struct Box;
    /// Shadows `Vec`.
    #[derive(Debug)]
    pub struct Vec;
    /// Shadows `Default`.
    #[derive(Debug)]
    pub struct Default;
    /// Shadows `From`.
    #[derive(Debug)]
    pub struct From;

    /// Adds its arguments, whose names are the generated code's own.
    #[skyl::tool]
    pub fn add(
        /// a
        state: i64,
        /// b
        arguments: i64,
        /// c
        __args: i64,
        /// d
        __json: i64,
        /// e
        __output: i64,
        /// f
        __state: i64,
        /// g
        value: Result,
        /// The raw identifier's wire name is `type`.
        r#type: std::string::String,
        /// A `mut` parameter is an ordinary argument.
        mut count: u8,
    ) -> i64 {
        count += 1;
        drop(r#type);
        state + arguments + __args + __json + __output + __state + value.x + i64::from(count)
    }

    /// Echoes the text with the state, asynchronously.
    #[skyl::tool]
    pub async fn r#async(
        /// The text.
        text: &str,
        #[state] __state: &std::string::String,
    ) -> core::result::Result<std::string::String, std::io::Error> {
        Ok(format!("{text}{__state}"))
    }

    /// Every option at once.
    #[skyl::tool(name = "list-notes", description = "Lists the notes, newest first.")]
    pub fn list_notes(
        /// How many.
        #[schemars(range(min = 1, max = 10))]
        #[serde(default = "three")]
        limit: u8,
        /// Words to look for.
        #[serde(rename = "q", alias = "query")]
        words: core::option::Option<std::vec::Vec<std::string::String>>,
        #[serde(skip)] page: u32,
        #[state] notes: &std::vec::Vec<std::string::String>,
    ) -> core::result::Result<skyl::Json<std::vec::Vec<std::string::String>>, skyl::ToolFailure>
    {
        if words.is_some_and(|words| words.is_empty()) {
            return Err(skyl::ToolFailure::retry_with_other_arguments("no words"));
        }
        let _ = page;
        Ok(skyl::Json(notes.iter().take(usize::from(limit)).cloned().collect()))
    }

    fn three() -> u8 {
        3
    }

    /// A deprecated tool: the generated code does not warn, registering it does.
    #[skyl::tool]
    #[deprecated = "use `add`"]
    pub fn old() -> u8 {
        1
    }

    /// A tool compiled out with its function.
    #[skyl::tool]
    #[cfg(any())]
    pub fn gone() -> u8 {
        1
    }

    /// Tools that share an instance; the names the expansion uses are the parameters'.
    #[derive(Debug)]
    pub struct Shelf {
        /// The books.
        pub books: std::vec::Vec<std::string::String>,
    }

    #[skyl::tools]
    impl Shelf {
        /// Counts the books, and says the state.
        #[skyl::tool(read_only, title = "Count the books")]
        pub fn count_books(
            &self,
            /// Added to the count.
            __this: u8,
            #[state] __visitor: &std::string::String,
        ) -> std::string::String {
            format!("{}{__visitor}", self.books.len() + usize::from(__this))
        }

        /// Finds a book, on another thread.
        #[tool(blocking, timeout = "5s", idempotent = true)]
        pub fn find_book(&self, title: &str) -> core::option::Option<std::string::String> {
            self.books.iter().find(|book| *book == title).cloned()
        }

        /// Lists the books later.
        #[tool]
        async fn list_books(&self) -> std::vec::Vec<std::string::String> {
            self.books.clone()
        }

        /// A tool of the set that does not need the instance.
        #[tool]
        fn shelf_version() -> u8 {
            1
        }

        /// A method compiled out with its tool.
        #[tool]
        #[cfg(any())]
        fn gone(&self) -> u8 {
            1
        }

        /// Not a tool: an ordinary method of the block.
        pub fn first(&self) -> core::option::Option<&std::string::String> {
            self.books.first()
        }
    }

    /// A `const fn` tool with an unused parameter.
    #[skyl::tool]
    pub const fn constant(
        /// Ignored.
        _unused: u8,
    ) -> u8 {
        7
    }
}

fn main() {
    let toolbox = Toolbox::with_state(String::from("!"))
        .with(tools::Add)
        .with(tools::Async)
        .with(tools::Constant);
    #[allow(deprecated)]
    let toolbox = toolbox.with(tools::Old);
    let notes = Toolbox::with_state(vec![String::from("a"), String::from("b")])
        .with(tools::ListNotes)
        .dispatch_blocking(&ToolCall::new("4", "list-notes", json!({"limit": 1})));
    assert_eq!(notes.content, r#"["a"]"#);
    let add = toolbox.dispatch_blocking(&ToolCall::new(
        "1",
        "add",
        json!({
            "state": 1, "arguments": 1, "__args": 1, "__json": 1, "__output": 1, "__state": 1,
            "value": {"x": 1}, "type": "t", "count": 1
        }),
    ));
    assert_eq!(add.content, "9");
    let echo = toolbox.dispatch_blocking(&ToolCall::new("2", "async", json!({"text": "hi"})));
    assert_eq!(echo.content, "hi!");
    let constant = toolbox.dispatch_blocking(&ToolCall::new("3", "constant", json!({"_unused": 0})));
    assert_eq!(constant.content, "7");
    let shelf = tools::Shelf {
        books: vec![String::from("Emma")],
    };
    assert_eq!(shelf.first().map(String::as_str), Some("Emma"));
    let shelf = Toolbox::with_state(String::from("!")).with_set(shelf);
    let count = shelf.dispatch_blocking(&ToolCall::new("5", "count_books", json!({"__this": 1})));
    assert_eq!(count.content, "2!");
    let found = shelf.dispatch_blocking(&ToolCall::new("6", "find_book", json!({"title": "Emma"})));
    assert_eq!(found.content, "Emma");
    let listed = shelf.dispatch_blocking(&ToolCall::new("7", "list_books", json!({})));
    assert_eq!(listed.content, r#"["Emma"]"#);
    let version = shelf.dispatch_blocking(&ToolCall::new("8", "shelf_version", json!({})));
    assert_eq!(version.content, "1");
}
