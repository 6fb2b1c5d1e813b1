//! The names a mounted server's tools go by: acceptable to every provider, and unique.

use std::collections::HashSet;

use crate::provider::PORTABLE_NAMES;

/// `text` with every character a provider would refuse replaced by `_`, and a `_` in front when
/// it would start with a character a provider refuses first: the rule a toolbox holds every
/// name to. Not yet cut to length.
fn sanitize(text: &str) -> String {
    PORTABLE_NAMES.sanitized(text)
}

/// The local names of a server's tools, in the server's order: `{prefix}_{name}` (or the name
/// alone when the prefix is empty), sanitized, at most 64 characters, and unique among
/// themselves. A name that comes out equal to an earlier one gets `_2`, `_3`, ...
pub(crate) fn local_names<'a>(
    prefix: &str,
    remote: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut taken = HashSet::new();
    remote
        .into_iter()
        .map(|name| {
            let joined = if prefix.is_empty() {
                sanitize(name)
            } else {
                sanitize(&format!("{prefix}_{name}"))
            };
            let max = PORTABLE_NAMES.max;
            let base = cut(&joined, max);
            let mut candidate = base.to_owned();
            let mut n = 2_usize;
            while !taken.insert(candidate.clone()) {
                let suffix = format!("_{n}");
                candidate = format!("{}{suffix}", cut(&joined, max - suffix.len()));
                n += 1;
            }
            candidate
        })
        .collect()
}

/// The first `max` characters (all ASCII after [`sanitize`]).
fn cut(name: &str, max: usize) -> &str {
    &name[..name.len().min(max)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_get_the_prefix_and_lose_what_providers_refuse() {
        assert_eq!(
            local_names(
                "github",
                ["create_issue", "repos.list", "search/code", "über-tool"]
            ),
            [
                "github_create_issue",
                "github_repos_list",
                "github_search_code",
                "github__ber-tool"
            ]
        );
        assert_eq!(
            local_names("", ["9lives", "-dash", "ok"]),
            ["_9lives", "_-dash", "ok"]
        );
        assert_eq!(local_names("my server", ["x"]), ["my_server_x"]);
    }

    #[test]
    fn names_that_collide_get_a_number() {
        assert_eq!(
            local_names("s", ["a.b", "a_b", "a/b", "a_b_2"]),
            ["s_a_b", "s_a_b_2", "s_a_b_3", "s_a_b_2_2"]
        );
    }

    #[test]
    fn long_names_are_cut_to_64_and_stay_unique() {
        let long = "x".repeat(100);
        let names = local_names("srv", [long.as_str(), long.as_str()]);
        assert_eq!(
            names,
            [
                format!("srv_{}", "x".repeat(60)),
                format!("srv_{}_2", "x".repeat(58)),
            ]
        );
        assert!(names.iter().all(|name| name.len() == 64));
    }
}
