//! Adding tools to a toolbox, one or a set at a time, and replacing or removing them. What a tool
//! must be to join is checked in `crate::registration`; here a toolbox keeps its names unique and
//! a set joins whole or not at all.

use std::sync::Arc;

use super::Toolbox;
use crate::registration::{self, RegistrationError};
use crate::tool::names::PORTABLE as PORTABLE_NAMES;
use crate::tool::set::Prefixed;
use crate::tool::{Tool, ToolSet, ToolVisitor};

impl<S: 'static> Toolbox<S> {
    /// Adds a tool, or says why it cannot join: a [`RegistrationError`].
    ///
    /// Use it for tools whose definitions are data (a [`DynamicTool`](crate::DynamicTool) from a
    /// configuration file or another server), where a bad definition is an error to report
    /// rather than a bug. The checks are the ones providers make, done once here instead of on
    /// every request: the name must be one that some provider accepts and not already taken, the
    /// description must not be empty, and the parameters schema must describe an object whose
    /// `$ref`s resolve.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, ToolDefinition, Toolbox, tool::RegistrationError};
    ///
    /// let undescribed = DynamicTool::from_fn(
    ///     ToolDefinition::new("ping", String::new(), json!({"type": "object"})),
    ///     |_: serde_json::Value| "pong",
    /// );
    /// assert_eq!(
    ///     Toolbox::new().try_with(undescribed).unwrap_err(),
    ///     RegistrationError::EmptyDescription { name: "ping".into() }
    /// );
    /// ```
    pub fn try_with<T: Tool<S>>(mut self, tool: T) -> Result<Self, RegistrationError> {
        self.add(tool)?;
        Ok(self)
    }

    /// [`try_with`](Self::try_with) on a toolbox in place: on an error the toolbox is unchanged
    /// and still yours, so a loader can report a bad definition and go on.
    pub fn add<T: Tool<S>>(&mut self, tool: T) -> Result<(), RegistrationError> {
        let definition = tool.definition();
        registration::check(definition)?;
        if !self.index.insert(&definition.name) {
            return Err(RegistrationError::DuplicateName {
                name: definition.name.clone(),
            });
        }
        self.definitions.push(definition.clone());
        self.tools.push(Box::new(tool));
        Ok(())
    }

    /// Puts `tool` in place of the tool of the same name, keeping its position; adds it at the
    /// end when there is none. Fails, leaving the toolbox unchanged, if the tool cannot join (see
    /// [`try_with`](Self::try_with)).
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let version = |answer: &'static str| {
    ///     DynamicTool::from_fn(
    ///         ToolDefinition::new("version", "Says the version.", json!({"type": "object"})),
    ///         move |_: serde_json::Value| answer,
    ///     )
    /// };
    /// let mut toolbox = Toolbox::new().with(version("1.0"));
    /// toolbox.replace(version("1.1")).unwrap();
    /// let call = ToolCall::new("c1", "version", json!({}));
    /// assert_eq!(toolbox.dispatch_blocking(&call).content, "1.1");
    /// assert_eq!(toolbox.len(), 1);
    /// ```
    pub fn replace<T: Tool<S>>(&mut self, tool: T) -> Result<(), RegistrationError> {
        let definition = tool.definition();
        registration::check(definition)?;
        match self.index.get(&definition.name) {
            Some(position) => {
                self.definitions[position] = definition.clone();
                self.tools[position] = Box::new(tool);
                Ok(())
            }
            None => self.add(tool),
        }
    }

    /// Removes the tool called `name`; returns whether there was one. The tools after it keep
    /// their order.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(position) = self.index.get(name) else {
            return false;
        };
        self.index.remove(position);
        self.definitions.remove(position);
        self.tools.remove(position);
        true
    }

    /// Whether the toolbox has a tool called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.index.get(name).is_some()
    }

    /// Adds every tool of a [`ToolSet`], or says why one of them cannot join (see
    /// [`try_with`](Self::try_with)); then none of the set's tools is added.
    pub fn try_with_set<T: ToolSet<S>>(mut self, set: T) -> Result<Self, RegistrationError> {
        self.add_set("", set)?;
        Ok(self)
    }

    /// Adds every tool of a [`ToolSet`] under its name with `prefix` in front, so that two
    /// instances of one type (two databases, two accounts) fit in one toolbox.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{ToolCall, Toolbox};
    ///
    /// struct Shelf { books: Vec<&'static str> }
    ///
    /// #[skyl::tools]
    /// impl Shelf {
    ///     /// Counts the books on the shelf.
    ///     #[tool]
    ///     fn count_books(&self) -> usize {
    ///         self.books.len()
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with_set(Shelf { books: vec!["Emma"] })
    ///     .with_set_prefixed("attic_", Shelf { books: vec!["Ulysses", "Dubliners"] });
    /// assert_eq!(toolbox.names().collect::<Vec<_>>(), ["count_books", "attic_count_books"]);
    /// let call = ToolCall::new("c1", "attic_count_books", json!({}));
    /// assert_eq!(toolbox.dispatch_blocking(&call).content, "2");
    /// ```
    ///
    /// # Panics
    ///
    /// As [`with`](Self::with), when one of the prefixed names is already in the toolbox.
    #[track_caller]
    pub fn with_set_prefixed<T: ToolSet<S>>(mut self, prefix: &str, set: T) -> Self {
        match self.add_set(prefix, set) {
            Ok(()) => self,
            Err(error @ RegistrationError::DuplicateName { .. }) => panic!(
                "Toolbox::with_set: {error}; a second instance of one type needs its own prefix, \
                 with Toolbox::with_set_prefixed"
            ),
            Err(error) => panic!("Toolbox::with_set: {error}"),
        }
    }

    /// Adds every tool of a [`ToolSet`] in place, each name with `prefix` in front. All or
    /// nothing: when one tool cannot join, the ones added before it are taken out again and the
    /// toolbox is as it was.
    pub fn add_set<T: ToolSet<S>>(
        &mut self,
        prefix: &str,
        set: T,
    ) -> Result<(), RegistrationError> {
        let before = self.len();
        let mut register = Register {
            toolbox: self,
            prefix,
            error: None,
        };
        Arc::new(set).visit_tools(&mut register);
        match register.error {
            None => Ok(()),
            Some(error) => {
                while self.len() > before {
                    let last = self.definitions[self.len() - 1].name.clone();
                    self.remove(&last);
                }
                Err(error)
            }
        }
    }
}

/// Adds the tools of a set to a toolbox, one at a time.
struct Register<'t, S> {
    toolbox: &'t mut Toolbox<S>,
    prefix: &'t str,
    /// The first tool that could not join; the ones after it are not tried.
    error: Option<RegistrationError>,
}

impl<S: 'static> ToolVisitor<S> for Register<'_, S> {
    fn visit<T: Tool<S>>(&mut self, tool: T) {
        if self.error.is_some() {
            return;
        }
        let added = if self.prefix.is_empty() {
            self.toolbox.add(tool)
        } else {
            self.toolbox.add(Prefixed::new(self.prefix, tool))
        };
        // A set's own names are checked as they compile: a character the rule refuses in a
        // prefixed name is the prefix's.
        let error = match added {
            Ok(()) => return,
            Err(RegistrationError::InvalidName { name, .. })
                if !self.prefix.is_empty()
                    && PORTABLE_NAMES.sanitized(self.prefix) != self.prefix =>
            {
                RegistrationError::InvalidPrefix {
                    prefix: self.prefix.to_owned(),
                    name,
                    suggestion: PORTABLE_NAMES.sanitized(self.prefix),
                }
            }
            Err(error) => error,
        };
        self.error = Some(error);
    }
}
