//! The front pages a user reads first: the repository's README and each published crate's own
//! (its registry page). The crate README's example is a doctest of skyl (so it compiles and runs
//! from the package); the repository's README must show that same example, and each package must
//! carry the repository's license texts unchanged.

use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The Rust code blocks of a Markdown text, in order (the fence's info string starts `rust`).
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(info)) if info.starts_with("rust") => current = Some(String::new()),
            (Some(block), Some(_)) => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), None) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn the_repository_readme_shows_the_tested_example_of_the_crate_readme() {
    let repository = rust_blocks(&read("README.md"));
    let crate_page = rust_blocks(&read("skyl/README.md"));
    assert_eq!(
        repository.first(),
        crate_page.first(),
        "README.md's example differs from skyl/README.md's, which is the one skyl's doctests run: edit both alike"
    );
    assert_eq!(
        repository.len(),
        1,
        "README.md has Rust examples no test runs"
    );
}

#[test]
fn every_published_crate_carries_the_license_texts_unchanged() {
    for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = read(license);
        for krate in ["skyl", "skyl-macros", "skyl-restate"] {
            assert!(
                read(&format!("{krate}/{license}")) == text,
                "{krate}/{license} differs from the repository's {license}: copy it again"
            );
        }
    }
}

#[test]
fn every_published_crate_has_a_readme_its_manifest_names() {
    for krate in ["skyl", "skyl-macros", "skyl-restate"] {
        let manifest = read(&format!("{krate}/Cargo.toml"));
        assert!(
            manifest.contains("readme = \"README.md\""),
            "{krate}/Cargo.toml names no README"
        );
        assert!(
            read(&format!("{krate}/README.md")).starts_with(&format!("# {krate}\n")),
            "{krate}/README.md does not open with the crate's name"
        );
    }
}
