//! Snapshot comparison with a readable diff, and fixture loading.

use std::path::{Path, PathBuf};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A response body from `tests/fixtures/<provider>/<name>.json`.
pub(crate) fn fixture(provider: &str, name: &str) -> Value {
    let path = root()
        .join("fixtures")
        .join(provider)
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// Compares `actual` with the whole snapshot `tests/golden/<name>.json`; with `SKYL_BLESS=1`
/// writes the snapshot instead.
pub(crate) fn assert_golden(name: &str, actual: &Value) {
    let path: PathBuf = root().join("golden").join(format!("{name}.json"));
    let actual_text = format!("{}\n", serde_json::to_string_pretty(actual).unwrap());
    if std::env::var_os("SKYL_BLESS").is_some_and(|v| v != "0") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual_text).unwrap();
        return;
    }
    let expected_text = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}; run with SKYL_BLESS=1 to write it",
            path.display()
        )
    });
    let expected: Value = serde_json::from_str(&expected_text).unwrap();
    if &expected != actual {
        let expected_text = serde_json::to_string_pretty(&expected).unwrap();
        panic!(
            "{} differs from the snapshot {} (- snapshot, + actual); if the change is intended, rerun with SKYL_BLESS=1\n{}",
            name,
            path.display(),
            diff(&expected_text, actual_text.trim_end())
        );
    }
}

/// A line diff (longest common subsequence), with two lines of context around each change.
pub(crate) fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        lines[k.saturating_sub(2)..(k + 3).min(lines.len())]
            .iter()
            .any(|(mark, _)| *mark != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (mark, line)) in lines.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("  ...\n");
                skipped = false;
            }
            out.push_str(&format!("{mark} {line}\n"));
        } else {
            skipped = true;
        }
    }
    if skipped {
        out.push_str("  ...\n");
    }
    out
}

#[test]
fn the_diff_marks_changed_lines_with_context() {
    assert_eq!(
        diff("a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nD\ne\nf\ng"),
        "  ...\n  b\n  c\n- d\n+ D\n  e\n  f\n  ...\n"
    );
}
