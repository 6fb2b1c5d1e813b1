//! What you run in your own tests.
//!
//! - [`Instances`]: values a JSON schema allows, from a seed, to check that your tools accept
//!   everything the schemas your adapters send allow.

mod instances;

pub use instances::Instances;
