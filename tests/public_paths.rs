//! One public path per name, enforced: no item of `skyl` is reachable by two public paths.
//!
//! The test reads every `.rs` file under `skyl/src` (comments, strings and `#[cfg(test)]` modules
//! blanked, as `layers` reads them), finds which modules are public (`pub mod` all the way down
//! from `lib.rs`) and every `pub use`, follows each re-export to where its item is defined, and
//! counts the item's public paths: where it is defined, if that module is public, and each
//! re-export that sits in a public module. `#[doc(hidden)]` modules and re-exports are exempt:
//! they are macro support, not contract; so is where a name that begins with `__` is defined
//! (the `#[macro_export]` macros, hidden at the root and re-exported where the docs show them). A name alone (`pub use schemars;`) is read as another
//! crate's. ARCHITECTURE.md's "API boundary" says why one path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::layers::{code_only, read, rust_files, skyl_src, without_test_modules};

/// A module's path below the crate's root (`["agent", "hooks"]` is `skyl::agent::hooks`).
type Module = Vec<String>;

/// One name a `pub use` makes: `module::name` is `source::original`.
struct Reexport {
    module: Module,
    name: String,
    source: Module,
    original: String,
    /// Whether the `pub use` is `#[doc(hidden)]` or sits in a hidden module.
    hidden: bool,
    /// Where it is written, for the message.
    at: String,
}

#[test]
fn every_public_name_of_skyl_has_one_path() {
    let crate_ = read_crate();
    // The reading found the re-exports at all (a reader that found none would pass).
    let public_reexports = crate_.visible_reexports().count();
    assert!(
        public_reexports > 100,
        "only {public_reexports} public re-exports found"
    );
    let twice = crate_.names_with_two_paths();
    assert!(
        twice.is_empty(),
        "names of skyl reachable by two public paths; keep the one the docs use and make the \
         other private (a private `use`, or a private module whose items are re-exported):\n{}",
        twice.join("\n")
    );
}

#[test]
fn a_second_path_is_found_whichever_way_it_is_made() {
    let crate_ = parse(&[
        (
            "lib.rs",
            "pub mod a; mod b; pub use b::Thing; pub use a::inner::Other; pub use serde;",
        ),
        (
            "a/mod.rs",
            "pub mod inner; pub use crate::b::{Thing as Same, One};",
        ),
        ("a/inner.rs", "pub struct Other;"),
        (
            "b.rs",
            "#[doc(hidden)] pub mod hidden { pub use super::{Thing, One}; }\n\
             pub struct Thing; pub struct One;",
        ),
    ]);
    assert_eq!(
        crate_.names_with_two_paths(),
        [
            "Other (defined in skyl::a::inner):\n  \
             skyl::Other (pub use in skyl/src/lib.rs:1)\n  \
             skyl::a::inner::Other (where it is defined)",
            "Thing (defined in skyl::b):\n  \
             skyl::Thing (pub use in skyl/src/lib.rs:1)\n  \
             skyl::a::Same (pub use in skyl/src/a/mod.rs:1)",
        ]
    );
}

impl Crate {
    /// The re-exports that make a public path: in a public module, not hidden.
    fn visible_reexports(&self) -> impl Iterator<Item = &Reexport> {
        self.reexports
            .iter()
            .filter(|reexport| !reexport.hidden && self.public.contains(&reexport.module))
    }

    /// Each item of the crate with more than one public path, and its paths.
    fn names_with_two_paths(&self) -> Vec<String> {
        // An item's address: the module that defines it and its name there.
        let mut paths: BTreeMap<(Module, String), BTreeSet<String>> = BTreeMap::new();
        for reexport in self.visible_reexports() {
            let Some((home, name)) = self.definition(&reexport.source, &reexport.original) else {
                continue; // another crate's item (`pub use schemars`, `rmcp`, the macros)
            };
            let entry = paths.entry((home.clone(), name.clone())).or_default();
            entry.insert(format!(
                "skyl{} (pub use in {})",
                display(&reexport.module, &reexport.name),
                reexport.at
            ));
            // A name that begins with `__` is `#[doc(hidden)]` support where it is defined (a
            // `#[macro_export]` macro sits at the root whatever module re-exports it).
            if self.public.contains(&home) && !name.starts_with("__") {
                entry.insert(format!(
                    "skyl{} (where it is defined)",
                    display(&home, &name)
                ));
            }
        }
        paths
            .into_iter()
            .filter(|(_, paths)| paths.len() > 1)
            .map(|((home, name), paths)| {
                format!(
                    "{name} (defined in skyl{}):\n  {}",
                    display(&home, ""),
                    paths.into_iter().collect::<Vec<_>>().join("\n  ")
                )
            })
            .collect()
    }
}

fn display(module: &[String], name: &str) -> String {
    let mut out: String = module.iter().map(|part| format!("::{part}")).collect();
    if !name.is_empty() {
        out.push_str("::");
        out.push_str(name);
    }
    out
}

/// What the test knows of the crate: its public modules and its re-exports.
struct Crate {
    public: BTreeSet<Module>,
    reexports: Vec<Reexport>,
}

impl Crate {
    /// Where `source::name` is defined, following re-exports; `None` for another crate's item.
    fn definition(&self, source: &Module, name: &str) -> Option<(Module, String)> {
        let (mut module, mut name) = (source.clone(), name.to_owned());
        for _ in 0..16 {
            if module.first().is_some_and(|first| first == "::extern") {
                return None;
            }
            match self
                .reexports
                .iter()
                .find(|reexport| reexport.module == module && reexport.name == name)
            {
                Some(next) => (module, name) = (next.source.clone(), next.original.clone()),
                None => return Some((module, name)),
            }
        }
        panic!("re-exports of {name} go round in a circle")
    }
}

fn read_crate() -> Crate {
    let src = skyl_src();
    let files: Vec<(String, String)> = rust_files(&src)
        .into_iter()
        .map(|file| {
            let relative = file
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (relative, read(&file))
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, source)| (path.as_str(), source.as_str()))
        .collect();
    parse(&files)
}

/// Reads the crate from `(path below src, source)` pairs.
fn parse(files: &[(&str, &str)]) -> Crate {
    let mut modules = Modules::default();
    let mut reexports = Vec::new();
    for (path, source) in files {
        let code = without_test_modules(&code_only(source));
        read_file(path, &code, &mut modules, &mut reexports);
    }
    // A module is public when it is declared `pub` (not hidden) in a public parent.
    let mut public = BTreeSet::from([Module::new()]);
    let mut grew = true;
    while grew {
        grew = false;
        for module in &modules.public {
            if !public.contains(module) && public.contains(&module[..module.len() - 1]) {
                public.insert(module.clone());
                grew = true;
            }
        }
    }
    for reexport in &mut reexports {
        reexport.hidden |= modules
            .hidden
            .iter()
            .any(|hidden| reexport.module.starts_with(hidden));
    }
    Crate { public, reexports }
}

/// The modules declared `pub` and those declared `#[doc(hidden)]`, from the crate's root.
#[derive(Default)]
struct Modules {
    public: BTreeSet<Module>,
    hidden: BTreeSet<Module>,
}

/// The module a file is: `lib.rs` the root, `agent/mod.rs` and `agent.rs` `agent`.
fn module_of(path: &str) -> Module {
    let mut parts: Vec<String> = Path::new(path)
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    if last != "lib.rs" && last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// Reads one file's module declarations and `pub use`s, inline modules (`pub mod x { .. }`)
/// included. The file is cut into statements at `{`, `;` and `}`; a statement keeps its
/// attributes, since comments are blanked and attributes hold no braces.
fn read_file(path: &str, code: &str, modules: &mut Modules, reexports: &mut Vec<Reexport>) {
    let file_module = module_of(path);
    // The modules declared here, for telling `use child::x` from another crate's path.
    let children: BTreeSet<String> = code
        .split([';', '{'])
        .filter_map(
            |statement| match statement.split_whitespace().collect::<Vec<_>>()[..] {
                [.., "mod", name] => Some(name.to_owned()),
                _ => None,
            },
        )
        .collect();
    // The inline modules open here, with the brace depth each opened at.
    let mut open: Vec<(String, usize)> = Vec::new();
    let (mut depth, mut start, mut at) = (0, 0, 0);
    while let Some(offset) = code[at..].find(['{', ';', '}']) {
        let end = at + offset;
        let statement = code[start..end].trim();
        let mut here = file_module.clone();
        here.extend(open.iter().map(|(name, _)| name.clone()));
        let hidden = statement.contains("doc(hidden)");
        if let Some(tree) = pub_use(statement) {
            // A `pub use` holds braces of its own: read it to its `;`.
            let end = start + code[start..].find(';').unwrap();
            let tree = pub_use(code[start..end].trim()).unwrap_or(tree);
            let written = start + code[start..].find("pub use").unwrap();
            let line = code[..written].matches('\n').count() + 1;
            for (source, original, name) in use_tree(&tree) {
                reexports.push(Reexport {
                    module: here.clone(),
                    name,
                    source: resolve(&here, &source, &children),
                    original,
                    hidden,
                    at: format!("skyl/src/{path}:{line}"),
                });
            }
            (start, at) = (end + 1, end + 1);
            continue;
        }
        let words: Vec<&str> = statement.split_whitespace().collect();
        if let [.., "mod", name] = words[..] {
            let mut module = here.clone();
            module.push(name.to_owned());
            if hidden {
                modules.hidden.insert(module.clone());
            } else if words.contains(&"pub") {
                modules.public.insert(module.clone());
            }
            if code.as_bytes()[end] == b'{' {
                open.push((name.to_owned(), depth));
            }
        }
        match code.as_bytes()[end] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if open.last().is_some_and(|(_, opened)| *opened == depth) {
                    open.pop();
                }
            }
            _ => {}
        }
        (start, at) = (end + 1, end + 1);
    }
}

/// The use tree of a public `use` statement (`pub use a::{b, c as d}`), `None` for any other
/// statement, a restricted `pub(crate) use` included.
fn pub_use(statement: &str) -> Option<String> {
    let at = statement.find("pub use ")?;
    let before = &statement[..at];
    // Only attributes may come before it.
    if !(before.trim().is_empty() || before.trim_end().ends_with(']')) {
        return None;
    }
    Some(
        statement[at + "pub use ".len()..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The names a use tree brings in: `(path, original name, name)` each.
fn use_tree(tree: &str) -> Vec<(Vec<String>, String, String)> {
    let mut out = Vec::new();
    walk_tree(tree.trim(), &[], &mut out);
    out
}

fn walk_tree(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, String, String)>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    assert!(
        !tree.ends_with('*'),
        "a glob `pub use` hides which names it makes public: name them"
    );
    if let Some(open) = tree.find('{') {
        let mut path = prefix.to_vec();
        path.extend(segments(&tree[..open]));
        let inner = &tree[open + 1..tree.rfind('}').unwrap()];
        for part in split_top(inner) {
            walk_tree(part, &path, out);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((path, alias)) => (path, Some(alias.trim())),
        None => (tree, None),
    };
    let mut path: Vec<String> = prefix.iter().cloned().chain(segments(path)).collect();
    let original = path.pop().unwrap();
    let name = alias.unwrap_or(&original).to_owned();
    out.push((path, original, name));
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `inner` split at its commas outside braces.
fn split_top(inner: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[from..]);
    parts
}

/// A use path's module from the crate's root; another crate's path starts with `::extern`.
fn resolve(here: &Module, path: &[String], children: &BTreeSet<String>) -> Module {
    let mut module = here.clone();
    let mut parts = path.iter().peekable();
    match parts.peek().map(|part| part.as_str()) {
        Some("crate") => {
            module.clear();
            parts.next();
        }
        Some("self") => {
            parts.next();
        }
        Some("super") => {}
        Some(first) if children.contains(first) => {}
        // A crate outside skyl (`schemars`, `rmcp`, `skyl_macros`).
        Some(_) => return vec!["::extern".to_owned()],
        // A name alone (`pub use schemars;`) is another crate.
        None => return vec!["::extern".to_owned()],
    }
    for part in parts {
        if part == "super" {
            module.pop();
        } else {
            module.push(part.clone());
        }
    }
    module
}
