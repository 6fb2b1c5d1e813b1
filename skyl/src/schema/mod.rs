//! The JSON schema a model sees for a tool's arguments.
//!
//! skyl generates one canonical schema per tool with schemars (JSON Schema draft 2020-12), once,
//! and keeps it lean, because every byte of it is sent with every request:
//!
//! - no `$schema` and no root `title` (the tool's name and description already say it);
//! - the root is always `{"type": "object", "properties": {...}, "required": [...]}`, even for a
//!   tool without parameters, since several providers reject a parameters schema without them;
//! - schemars' integer `format`s (`uint8`, `int32`, ...) are not standard JSON Schema and most
//!   providers ignore or reject them: they become `minimum`/`maximum` bounds where the type has
//!   bounds a model can respect, and are dropped otherwise; the float formats are dropped.
//!
//! Provider adapters lower this canonical form to each provider's dialect.
//!
//! ```
//! use serde_json::json;
//!
//! #[derive(schemars::JsonSchema)]
//! struct Args { city: String, days: Option<u8> }
//!
//! assert_eq!(
//!     skyl::schema::canonical_schema_for::<Args>(),
//!     json!({
//!         "type": "object",
//!         "properties": {
//!             "city": {"type": "string"},
//!             "days": {"type": ["integer", "null"], "minimum": 0, "maximum": 255}
//!         },
//!         "required": ["city"]
//!     })
//! );
//! ```
//!
//! Everything skyl does with a schema lives in this folder, one idea a file: the canonical form
//! (`canonical.rs`), local `$ref`s (`references.rs`, the one resolver every other part uses),
//! validation of a model's arguments with its wording apart (`validate.rs`,
//! `validate/wording.rs`), the nulls a lowering adds for absent arguments (`absent.rs`), lowering
//! per provider [`Dialect`](crate::testing::Dialect) (`dialect.rs`, public as
//! [`provider::dialect`](crate::provider::dialect)), and values a schema allows
//! (`instances.rs`, public as [`testing::Instances`](crate::testing::Instances)).

pub(crate) mod absent;
mod canonical;
pub(crate) mod dialect;
#[cfg(any(test, feature = "testing"))]
pub(crate) mod instances;
pub(crate) mod parameter;
pub(crate) mod references;
pub(crate) mod validate;

pub use canonical::{canonical_schema_for, canonicalize, output_schema_for};

// The traits a `#[tool]` parameter's type needs are named in the compiler's diagnostics, which
// write a trait by its name alone (`ToolParameterSchema`) when a path to it lies outside a hidden
// module, and by its whole path through `skyl::__private` otherwise. Not public API.
#[doc(hidden)]
pub use parameter::{ToolParameter, ToolParameterDeserialize, ToolParameterSchema};
