//! Doc comments to descriptions.
//!
//! A model reads the description as plain text, so the doc comment is turned into the text a
//! reader of the rendered rustdoc sees, with its paragraphs:
//!
//! - the indentation every line shares (the single space after `///`, or a block comment's
//!   margin) is removed; a `#[doc = "..."]` line among `///` lines counts as having that space,
//!   as in rustdoc, so mixing the two does not leave every `///` line indented;
//! - the lines of one paragraph are joined with a space, as Markdown renders them, so the
//!   description does not carry the source's hard wrapping;
//! - a line that starts a Markdown block (a list item, a heading, a quote, a table row, an
//!   indented code line) keeps its own line, and fenced code blocks are kept verbatim;
//! - paragraphs are separated by one blank line; leading and trailing blank lines are dropped.

use syn::{Attribute, Expr, Lit, Meta};

/// The doc text written on an item or a parameter, or `None` when it has no doc comment.
///
/// Fails on `#[doc = some_macro!(...)]`, whose text a macro cannot read.
pub(crate) fn collect(attrs: &[Attribute]) -> syn::Result<Option<String>> {
    // Each doc attribute's lines, and whether it was written as a doc comment.
    let mut fragments = Vec::new();
    for attr in attrs {
        let Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        if !meta.path.is_ident("doc") {
            continue;
        }
        match &meta.value {
            Expr::Lit(expr) => match &expr.lit {
                Lit::Str(text) => fragments.push((text.value(), is_sugared(attr))),
                _ => return Err(unreadable(attr)),
            },
            _ => return Err(unreadable(attr)),
        }
    }
    if fragments.is_empty() {
        return Ok(None);
    }
    // A `///` line carries the space after the slashes and `#[doc = "..."]` does not. When both
    // are mixed, the attribute's lines are given that space, as rustdoc does, so that the
    // common indentation removed below is the doc comments' margin.
    let mixed = fragments.iter().any(|(_, sugared)| *sugared)
        && fragments.iter().any(|(_, sugared)| !*sugared);
    let mut lines = Vec::new();
    for (text, sugared) in &fragments {
        for line in text.split('\n') {
            lines.push(if mixed && !sugared && !line.trim().is_empty() {
                format!(" {line}")
            } else {
                line.to_owned()
            });
        }
    }
    let text = render(&lines);
    Ok(if text.is_empty() { None } else { Some(text) })
}

/// Whether a doc attribute was written as a doc comment (`///` or `/** */`) rather than as
/// `#[doc = "..."]`: the compiler hands both to macros as the same tokens, so this reads the
/// source. When the source cannot be read, it counts as a doc comment, the common case.
fn is_sugared(attr: &Attribute) -> bool {
    attr.pound_token
        .span
        .source_text()
        .is_none_or(|source| source.starts_with('/'))
}

fn unreadable(attr: &Attribute) -> syn::Error {
    syn::Error::new_spanned(
        attr,
        "`#[tool]` cannot read a doc attribute whose text comes from a macro; \
         write the description in `#[tool(description = \"...\")]` instead",
    )
}

/// The first doc comment or `#[doc = ...]` attribute (not `#[doc(hidden)]`, which holds no text).
pub(crate) fn first(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs
        .iter()
        .find(|attr| matches!(&attr.meta, Meta::NameValue(meta) if meta.path.is_ident("doc")))
}

/// Whether `attr` is a doc comment or `#[doc ...]`.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// Renders doc lines as described in the module docs.
pub(crate) fn render(lines: &[String]) -> String {
    let lines: Vec<&str> = lines.iter().map(|line| line.trim_end()).collect();
    let indent = lines
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines = lines
        .iter()
        .map(|line| if line.is_empty() { "" } else { &line[indent..] });

    let mut out = String::new();
    // Whether the last thing written was a blank line break between paragraphs (or nothing).
    let mut paragraph_start = true;
    let mut pending_blank = false;
    // Whether the next line must start on a line of its own (after a heading, a code line...).
    let mut block_ended = false;
    let mut fence: Option<&str> = None;
    for line in lines {
        if let Some(marker) = fence {
            out.push('\n');
            out.push_str(line);
            if line.trim_start().starts_with(marker) {
                fence = None;
                paragraph_start = false;
                block_ended = true;
            }
            continue;
        }
        if line.is_empty() {
            pending_blank = !out.is_empty();
            paragraph_start = true;
            continue;
        }
        if pending_blank {
            out.push_str("\n\n");
            pending_blank = false;
        }
        let trimmed = line.trim_start();
        let opens_fence = ["```", "~~~"]
            .into_iter()
            .find(|marker| trimmed.starts_with(marker));
        if paragraph_start {
            out.push_str(line);
        } else if block_ended || opens_fence.is_some() || starts_block(line) {
            out.push('\n');
            out.push_str(line);
        } else {
            out.push(' ');
            out.push_str(trimmed);
        }
        paragraph_start = false;
        fence = opens_fence;
        block_ended = ends_block(line);
    }
    out
}

/// Whether a Markdown line is a block by itself, so the next line cannot continue it.
fn ends_block(line: &str) -> bool {
    let trimmed = line.trim_start();
    line.starts_with("    ")
        || line.starts_with('\t')
        || trimmed.starts_with('#')
        || trimmed.starts_with('|')
}

/// Whether a Markdown line starts a block of its own instead of continuing a paragraph.
fn starts_block(line: &str) -> bool {
    if line.starts_with("    ") || line.starts_with('\t') {
        return true;
    }
    let line = line.trim_start();
    if ["- ", "* ", "+ ", "#", "> ", "|"]
        .iter()
        .any(|marker| line.starts_with(marker))
    {
        return true;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

#[cfg(test)]
mod tests {
    use super::render;

    fn doc(lines: &[&str]) -> String {
        render(
            &lines
                .iter()
                .map(|line| (*line).to_owned())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn lines_of_a_paragraph_are_joined_and_paragraphs_kept() {
        assert_eq!(
            doc(&[
                "",
                " Gets the weather",
                " for a city.",
                "",
                "",
                " Use it for today.",
                ""
            ]),
            "Gets the weather for a city.\n\nUse it for today."
        );
    }

    #[test]
    fn lists_headings_and_code_keep_their_lines() {
        assert_eq!(
            doc(&[
                " Units:",
                " - metric",
                " - imperial",
                "   (US)",
                " # Example",
                " ```",
                " let a = 1;",
                "",
                " let b = 2;",
                " ```",
                " after the code",
                " 1. first",
                " 2) second",
            ]),
            "Units:\n- metric\n- imperial (US)\n# Example\n```\nlet a = 1;\n\nlet b = 2;\n```\nafter the code\n1. first\n2) second"
        );
    }

    #[test]
    fn a_block_comment_margin_is_removed() {
        assert_eq!(
            doc(&[
                "",
                "    Deletes a file.",
                "",
                "    Cannot be undone.",
                "    "
            ]),
            "Deletes a file.\n\nCannot be undone."
        );
    }

    #[test]
    fn only_blank_lines_is_empty() {
        assert_eq!(doc(&["", "   ", ""]), "");
    }
}
