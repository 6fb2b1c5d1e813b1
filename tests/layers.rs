//! The layer picture of ARCHITECTURE.md, enforced: a module of `skyl/src` imports only modules of
//! its own layer or a lower one.
//!
//! The test reads every `.rs` file under `skyl/src`, finds its paths to other top-level modules
//! (`crate::x`, `crate::{x, y}`, `$crate::x`, a name `lib.rs` re-exports, and `super::` climbing to
//! the crate's root), and compares each with [`LAYERS`]. Comments, strings and `#[cfg(test)]`
//! modules are not read: only test modules may import upward (the agent's tests drive a
//! `testing::ScriptedModel`). A test module in a file of its own (`#[cfg(test)] mod tests;`) would
//! be read as code; skyl keeps its unit tests inline.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The layers of `skyl/src`, highest first, as ARCHITECTURE.md's picture draws them (one row a
/// layer; `the_picture_in_architecture_md_is_this_one` holds the two together).
const LAYERS: &[&[&str]] = &[
    &["durable", "http", "mcp", "testing"],
    &["agent"],
    &["toolbox", "macro_support", "model", "dynamic_tool"],
    &["provider", "arguments"],
    &["transcript", "prose"],
    &["message", "tool", "registration", "blocking"],
    &["content", "schema"],
    &["base64", "executor", "name_index", "random", "text", "tls"],
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub(crate) fn skyl_src() -> PathBuf {
    repository().join("skyl/src")
}

/// The layer of a top-level module: its row in [`LAYERS`], 0 the highest.
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn no_module_of_skyl_imports_a_higher_layer() {
    let src = skyl_src();
    let mut reexports = root_reexports(&code_only(&read(&src.join("lib.rs"))));
    reexports.extend(exported_macros(&src));
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).unwrap();
        // `lib.rs` is the crate's root: it declares every module and re-exports the API.
        let Some(module) = top_module(relative) else {
            continue;
        };
        let own = layer_of(&module).unwrap_or_else(|| {
            panic!(
                "{}: the module `{module}` is in no layer; put it in LAYERS and in ARCHITECTURE.md's picture",
                relative.display()
            )
        });
        let code = without_test_modules(&code_only(&read(&file)));
        for reference in references(&code, depth(relative)) {
            checked += 1;
            let target = match resolve(&reference.name, &reexports) {
                Target::Module(target) => target,
                Target::Outside => continue,
                Target::Unknown => {
                    broken.push(format!(
                        "skyl/src/{}:{}: `crate::{}` names neither a top-level module nor a name lib.rs re-exports from one",
                        relative.display(),
                        reference.line,
                        reference.name
                    ));
                    continue;
                }
            };
            let Some(theirs) = layer_of(&target) else {
                panic!(
                    "the module `{target}` is in no layer; put it in LAYERS and in ARCHITECTURE.md's picture"
                )
            };
            if theirs < own {
                broken.push(format!(
                    "skyl/src/{}:{}: `{module}` (layer {}: {}) imports `{target}` (layer {}: {}), a higher layer; a module imports only its own layer or lower",
                    relative.display(),
                    reference.line,
                    own + 1,
                    LAYERS[own].join(" · "),
                    theirs + 1,
                    LAYERS[theirs].join(" · "),
                ));
            }
        }
    }
    // The reading found the paths at all (a lexer that blanked everything would pass).
    assert!(checked > 100, "only {checked} paths to modules found");
    assert!(
        broken.is_empty(),
        "imports that break ARCHITECTURE.md's layers (layer 1 is the highest):\n{}",
        broken.join("\n")
    );
}

#[test]
fn every_module_of_skyl_has_a_layer() {
    let in_layers: BTreeSet<String> = LAYERS
        .iter()
        .flat_map(|layer| layer.iter().map(|module| module.to_string()))
        .collect();
    let in_src: BTreeSet<String> = fs::read_dir(skyl_src())
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            if path.is_dir() {
                Some(path.file_name()?.to_str()?.to_owned())
            } else if path.extension()? == "rs" && path.file_stem()? != "lib" {
                Some(path.file_stem()?.to_str()?.to_owned())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(in_layers, in_src);
}

#[test]
fn the_picture_in_architecture_md_is_this_one() {
    let page = read(&repository().join("ARCHITECTURE.md"));
    let section = page
        .split_once("## Layers of `skyl/src`")
        .expect("ARCHITECTURE.md has a section \"Layers of `skyl/src`\"")
        .1;
    let picture = section
        .split("```")
        .nth(1)
        .expect("the section draws its layers in a code block");
    let drawn: Vec<Vec<&str>> = picture
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            // A row is the layer's modules, then at least two spaces and what the layer is for.
            let modules = line.split("  ").next().unwrap();
            modules.split('·').map(str::trim).collect()
        })
        .collect();
    let layers: Vec<Vec<&str>> = LAYERS.iter().map(|layer| layer.to_vec()).collect();
    assert_eq!(drawn, layers);
}

/// The reading, on a small source: what it finds and what it leaves.
#[test]
fn the_reading_finds_paths_and_skips_comments_strings_and_tests() {
    let source = r##"
use crate::message::Message; // crate::agent in a comment
use crate::{prose, tool::{Tool, ToolSet}};
/* crate::mcp /* nested */ crate::http */
const S: &str = "crate::durable";
const R: &str = r#"crate::testing "quoted""#;
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { $crate::schema::x(); super::text::y(); x }
mod inner {
    fn g() { super::super::executor::run(); super::sibling(); }
}
#[cfg(all(test, feature = "mcp"))]
#[allow(dead_code)]
mod tests {
    use crate::testing::ScriptedModel;
    fn h() { let _ = { 1 }; }
}
use crate::Toolbox;
"##;
    let code = without_test_modules(&code_only(source));
    let found: Vec<(usize, String)> = references(&code, 1)
        .into_iter()
        .map(|reference| (reference.line, reference.name))
        .collect();
    let expected = [
        (2, "message"),
        (3, "prose"),
        (3, "tool"),
        (8, "schema"),
        (8, "text"),
        (10, "executor"),
        (18, "Toolbox"),
    ];
    let expected: Vec<(usize, String)> = expected
        .iter()
        .map(|(line, name)| (*line, name.to_string()))
        .collect();
    assert_eq!(found, expected);
}

pub(crate) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
    files
}

fn names(relative: &Path) -> Vec<String> {
    relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// The top-level module a file belongs to (`agent/driver.rs`: `agent`), `None` for `lib.rs`.
fn top_module(relative: &Path) -> Option<String> {
    let first = names(relative).into_iter().next()?;
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(stem) => Some(stem.to_owned()),
        None => Some(first),
    }
}

/// How deep a file's module is below the crate's root: `lib.rs` 0, `agent.rs` and
/// `agent/mod.rs` 1, `agent/driver.rs` 2.
fn depth(relative: &Path) -> usize {
    let names = names(relative);
    match names.last().map(String::as_str) {
        Some("lib.rs") if names.len() == 1 => 0,
        Some("mod.rs") => names.len() - 1,
        _ => names.len(),
    }
}

/// What a path from the root names.
enum Target {
    Module(String),
    /// A crate outside skyl that `lib.rs` re-exports (`crate::schemars`), or `lib.rs` itself.
    Outside,
    Unknown,
}

fn resolve(name: &str, reexports: &[(String, Option<String>)]) -> Target {
    if layer_of(name).is_some() {
        return Target::Module(name.to_owned());
    }
    if name == "__private" {
        return Target::Outside;
    }
    match reexports.iter().find(|(reexported, _)| reexported == name) {
        Some((_, Some(module))) => Target::Module(module.clone()),
        Some((_, None)) => Target::Outside,
        None => Target::Unknown,
    }
}

/// The `#[macro_export]` macros, which sit at the crate's root wherever they are written, each
/// with the top-level module that writes it: naming one is importing that module.
fn exported_macros(src: &Path) -> Vec<(String, Option<String>)> {
    let mut macros = Vec::new();
    for file in rust_files(src) {
        let Some(module) = top_module(file.strip_prefix(src).unwrap()) else {
            continue;
        };
        let code = without_test_modules(&code_only(&read(&file)));
        for piece in code.split("#[macro_export]").skip(1) {
            // Other attributes may stand between the attribute and the macro.
            let mut rest = piece.trim_start();
            while rest.starts_with("#[") {
                rest = rest
                    .split_once(']')
                    .map_or("", |(_, after)| after)
                    .trim_start();
            }
            let name = rest.strip_prefix("macro_rules!").map(|rest| {
                rest.trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect::<String>()
            });
            if let Some(name) = name {
                macros.push((name, Some(module.clone())));
            }
        }
    }
    macros
}

/// The names `lib.rs` re-exports at the crate's root (`pub use content::{Image, ..}`), each with
/// the top-level module it comes from, or `None` for another crate (`pub use schemars`).
fn root_reexports(code: &str) -> Vec<(String, Option<String>)> {
    let mut reexports = Vec::new();
    for statement in code.split(';') {
        let Some((_, path)) = statement.split_once("pub use ") else {
            continue;
        };
        let path: String = path.chars().filter(|c| !c.is_whitespace()).collect();
        let path = path.strip_prefix("crate::").unwrap_or(&path);
        let (first, rest) = path.split_once("::").unwrap_or((path, ""));
        let module = layer_of(first).map(|_| first.to_owned());
        let last = rest.rsplit("::").next().unwrap_or(rest);
        let names: Vec<&str> = match last.strip_prefix('{') {
            Some(group) => group.trim_end_matches('}').split(',').collect(),
            None if rest.is_empty() => vec![first],
            None => vec![last],
        };
        for name in names.into_iter().filter(|name| !name.is_empty()) {
            reexports.push((name.to_owned(), module.clone()));
        }
    }
    reexports
}

/// `source` with its comments, string literals and character literals blanked to spaces, lines
/// kept, so that only code is left to read and every byte keeps its line.
pub(crate) fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |out: &mut String, text: &[char]| {
        for &c in text {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let at = |offset: usize| chars.get(i + offset).copied();
        let c = chars[i];
        if c == '/' && at(1) == Some('/') {
            let end = (i..chars.len())
                .find(|&j| chars[j] == '\n')
                .unwrap_or(chars.len());
            blank(&mut out, &chars[i..end]);
            i = end;
        } else if c == '/' && at(1) == Some('*') {
            let (mut j, mut open) = (i, 0);
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    open += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    open -= 1;
                    j += 2;
                    if open == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &chars[i..j]);
            i = j;
        } else if c == 'r' && (i == 0 || !is_ident(chars[i - 1]) || raw_prefix(&chars, i)) && {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            chars.get(i + 1 + hashes) == Some(&'"')
        } {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            let mut j = i + 2 + hashes;
            while j < chars.len()
                && !(chars[j] == '"'
                    && chars[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&c| c == '#')
                        .count()
                        == hashes)
            {
                j += 1;
            }
            let end = (j + 1 + hashes).min(chars.len());
            blank(&mut out, &chars[i..end]);
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            blank(&mut out, &chars[i..end]);
            i = end;
        } else if c == '\'' && at(1) == Some('\\') {
            let end = (i + 3..chars.len())
                .find(|&j| chars[j] == '\'')
                .map_or(chars.len(), |j| j + 1);
            blank(&mut out, &chars[i..end]);
            i = end;
        } else if c == '\'' && at(2) == Some('\'') {
            blank(&mut out, &chars[i..i + 3]);
            i += 3;
        } else {
            // A lifetime (`'a`) stays: it is not a literal.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the `r` at `i` ends a raw string's prefix (`br"…"`, `cr"…"`).
fn raw_prefix(chars: &[char], i: usize) -> bool {
    i >= 1
        && matches!(chars[i - 1], 'b' | 'c')
        && (i == 1 || !(chars[i - 2].is_alphanumeric() || chars[i - 2] == '_'))
}

/// `code` with each module under a `#[cfg(test)]` (or `#[cfg(all(test, …))]`) blanked.
pub(crate) fn without_test_modules(code: &str) -> String {
    let mut out: Vec<char> = code.chars().collect();
    let mut from = 0;
    while let Some(found) = find(&out, "#[cfg(", from) {
        from = found + 1;
        let open = found + "#[cfg".len();
        let Some(close) = matching(&out, open, '(', ')') else {
            break;
        };
        let predicate: String = out[open + 1..close]
            .iter()
            .filter(|c| !c.is_whitespace())
            .collect();
        let for_tests = predicate == "test"
            || predicate
                .strip_prefix("all(")
                .and_then(|all| all.strip_suffix(')'))
                .is_some_and(|all| all.split(',').any(|part| part == "test"));
        if !for_tests {
            continue;
        }
        // Past this attribute and any others, to the item.
        let mut at = close + 2;
        loop {
            while at < out.len() && out[at].is_whitespace() {
                at += 1;
            }
            if out
                .get(at..)
                .is_some_and(|rest| rest.starts_with(&['#', '[']))
            {
                match matching(&out, at + 1, '[', ']') {
                    Some(end) => at = end + 1,
                    None => break,
                }
            } else {
                break;
            }
        }
        let item: String = out.get(at..).unwrap_or_default().iter().take(200).collect();
        let item = item
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        let Some(module) = item.strip_prefix("mod ") else {
            continue;
        };
        let name_len = module
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(0);
        if !module[name_len..].trim_start().starts_with('{') {
            continue;
        }
        let Some(open) = (at..out.len()).find(|&j| out[j] == '{') else {
            break;
        };
        let Some(end) = matching(&out, open, '{', '}') else {
            break;
        };
        for c in &mut out[found..=end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        from = end;
    }
    out.into_iter().collect()
}

fn find(chars: &[char], needle: &str, from: usize) -> Option<usize> {
    let needle: Vec<char> = needle.chars().collect();
    (from..chars.len()).find(|&i| chars[i..].starts_with(&needle))
}

/// The position of the bracket closing the one at `open`.
fn matching(chars: &[char], open: usize, left: char, right: char) -> Option<usize> {
    let mut depth = 0usize;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

fn tokens(code: &str) -> Vec<(usize, Token)> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if !c.is_ascii_digit() {
                tokens.push((line, Token::Ident(word)));
            }
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push((line, Token::PathSep));
            i += 2;
        } else {
            tokens.push((line, Token::Punct(c)));
            i += 1;
        }
    }
    tokens
}

/// A path's first name after the crate's root, and its line.
struct Reference {
    line: usize,
    name: String,
}

/// Every path in `code` that starts at the crate's root, for a file whose module is `depth` deep.
fn references(code: &str, depth: usize) -> Vec<Reference> {
    let tokens = tokens(code);
    let ident = |i: usize| match tokens.get(i) {
        Some((_, Token::Ident(word))) => Some(word.as_str()),
        _ => None,
    };
    let sep = |i: usize| matches!(tokens.get(i), Some((_, Token::PathSep)));
    let mut found = Vec::new();
    // The braces that open inline modules (`mod inner { … }`): `super` climbs out of them first.
    let (mut braces, mut modules) = (0usize, Vec::new());
    let mut i = 0;
    while i < tokens.len() {
        let starts_path = i == 0 || !sep(i - 1);
        let root = match (&tokens[i].1, ident(i)) {
            (Token::Punct('{'), _) => {
                braces += 1;
                if i >= 2 && ident(i - 2) == Some("mod") && ident(i - 1).is_some() {
                    modules.push(braces);
                }
                None
            }
            (Token::Punct('}'), _) => {
                if modules.last() == Some(&braces) {
                    modules.pop();
                }
                braces = braces.saturating_sub(1);
                None
            }
            (_, Some("crate")) if starts_path && sep(i + 1) => Some(i + 2),
            (_, Some("super")) if starts_path => {
                let mut climbed = 1;
                while sep(i + 2 * climbed - 1) && ident(i + 2 * climbed) == Some("super") {
                    climbed += 1;
                }
                let after = i + 2 * climbed;
                let at_root = climbed == depth + modules.len() && sep(after - 1);
                let skip = after - 1;
                if at_root {
                    Some(after)
                } else {
                    i = skip;
                    None
                }
            }
            _ => None,
        };
        if let Some(at) = root {
            match &tokens.get(at) {
                Some((line, Token::Ident(name))) => found.push(Reference {
                    line: *line,
                    name: name.clone(),
                }),
                Some((_, Token::Punct('{'))) => {
                    // `crate::{a::X, b}`: the first name of each path in the group.
                    let mut nested = 0;
                    let mut j = at;
                    while let Some((line, token)) = tokens.get(j) {
                        match token {
                            Token::Punct('{') => nested += 1,
                            Token::Punct('}') => {
                                nested -= 1;
                                if nested == 0 {
                                    break;
                                }
                            }
                            Token::Ident(name)
                                if nested == 1
                                    && matches!(tokens[j - 1].1, Token::Punct('{' | ','))
                                    && name != "self" =>
                            {
                                found.push(Reference {
                                    line: *line,
                                    name: name.clone(),
                                })
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    i = j;
                }
                _ => {}
            }
        }
        i += 1;
    }
    found
}
