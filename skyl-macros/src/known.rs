//! Parameter types whose traits are known from their name alone.
//!
//! Most parameters are strings, numbers, booleans, and options and lists of them. Their
//! `Deserialize` and `JsonSchema` cannot be missing, so `expand` writes no deferred bound and no
//! assertion for them: every bound on a parameter type is copied into the items of the expansion
//! (serde's impl, its visitor and the visitor's impl, schemars' impl; before the `Tool` impl gave
//! them up, it and the arguments struct too), and proving those bounds was most of the extra time `cargo check` spent on
//! `#[tool]` functions against the same code written by hand.
//!
//! The names are matched as written, so a type of the crate's own that shadows one of them (a
//! `struct String` in scope) is taken for the standard one. If it lacks one of the traits the
//! derives report it, at the field, rather than the one assertion a deferred bound would give:
//! a worse message for a rare case, never wrong code.

use syn::{GenericArgument, PathArguments, Type};

/// Whether `ty` is, by its name, a type serde and schemars both implement their traits for.
pub(crate) fn reads_and_describes(ty: &Type) -> bool {
    match ty {
        Type::Paren(inner) => reads_and_describes(&inner.elem),
        Type::Group(inner) => reads_and_describes(&inner.elem),
        Type::Path(path) if path.qself.is_none() => {
            let segments = &path.path.segments;
            let Some(last) = segments.last() else {
                return false;
            };
            // `String`, or its full path; a path to anything else may be a type of the crate's.
            let prefix: Vec<String> = segments
                .iter()
                .take(segments.len() - 1)
                .map(|segment| segment.ident.to_string())
                .collect();
            let standard = match &prefix[..] {
                [] => path.path.leading_colon.is_none(),
                [root, _] => ["std", "alloc", "core"].contains(&root.as_str()),
                _ => false,
            };
            if !standard {
                return false;
            }
            let name = last.ident.to_string();
            match &last.arguments {
                PathArguments::None => SCALARS.contains(&name.as_str()),
                PathArguments::AngleBracketed(arguments)
                    if CONTAINERS.contains(&name.as_str()) && arguments.args.len() == 1 =>
                {
                    match &arguments.args[0] {
                        GenericArgument::Type(inner) => reads_and_describes(inner),
                        _ => false,
                    }
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Types without parameters that implement `DeserializeOwned` and `JsonSchema`.
const SCALARS: &[&str] = &[
    "String", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
    "i64", "i128", "isize", "f32", "f64",
];

/// Types of one type parameter that implement both when their parameter does.
const CONTAINERS: &[&str] = &["Option", "Vec", "Box"];

#[cfg(test)]
mod tests {
    use super::*;

    fn known(text: &str) -> bool {
        reads_and_describes(&syn::parse_str(text).unwrap())
    }

    #[test]
    fn standard_scalars_and_their_options_and_lists_are_known() {
        for text in [
            "String",
            "u8",
            "f64",
            "bool",
            "Option<u8>",
            "Vec<String>",
            "Option<Vec<Option<i64>>>",
            "Box<f32>",
            "std::string::String",
            "::std::string::String",
            "std::option::Option<bool>",
            "alloc::vec::Vec<u32>",
        ] {
            assert!(known(text), "{text}");
        }
    }

    #[test]
    fn other_types_are_not() {
        for text in [
            "Filter",
            "Option<Filter>",
            "Vec<Filter>",
            "crate::String",
            "my::Option<u8>",
            "std::collections::HashMap<String, u8>",
            "[u8; 4]",
            "(u8, u8)",
            "&str",
            "Option<&'a str>",
            "<T as Trait>::Assoc",
            "T",
            "Cow<'static, str>",
        ] {
            assert!(!known(text), "{text}");
        }
    }
}
