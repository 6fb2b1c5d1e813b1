//! What an adapter does with a tool name its provider does not take; the rules themselves live
//! with the tools (`tool/names.rs`), since a toolbox keeps to one of them too.

pub(crate) use crate::tool::names::{NameRule, PORTABLE, WORD_64, word_char};

use super::{EncodeError, Provider};

impl NameRule {
    /// `Ok` when `name` follows the rule; otherwise the error for `provider`, with a name that
    /// does.
    pub fn check(&self, provider: Provider, name: &str) -> Result<(), EncodeError> {
        if self.accepts(name) {
            return Ok(());
        }
        Err(EncodeError::ToolName {
            provider,
            tool: name.to_owned(),
            rule: self.text,
            // Renamed once for every provider, not for this one alone.
            suggestion: PORTABLE.suggestion(name),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::TOOL_NAME_RULES;
    use super::*;

    /// Names made of every character class each rule treats apart, in every position, and at
    /// the lengths around the limit.
    fn names() -> Vec<String> {
        let pieces = ["a", "Z", "_", "-", "7", ".", ":", " ", "é", "/"];
        let mut names = vec![String::new()];
        for first in pieces {
            names.push(first.to_owned());
            for second in pieces {
                names.push(format!("{first}{second}"));
                names.push(format!("{first}x{second}"));
            }
        }
        for length in [63, 64, 65] {
            names.push("a".repeat(length));
            names.push(format!("_{}", "9".repeat(length - 1)));
        }
        names
    }

    #[test]
    fn the_portable_rule_is_every_providers_rule_at_once() {
        for name in names() {
            let everyone = TOOL_NAME_RULES.iter().all(|(_, rule)| rule.accepts(&name));
            assert_eq!(PORTABLE.accepts(&name), everyone, "{name:?}");
        }
    }

    #[test]
    fn a_suggestion_follows_the_rule_it_is_made_for() {
        for name in names() {
            for rule in TOOL_NAME_RULES
                .iter()
                .map(|(_, rule)| *rule)
                .chain([&PORTABLE])
            {
                let suggestion = rule.suggestion(&name);
                assert!(rule.accepts(&suggestion), "{name:?} gave {suggestion:?}");
                if rule.accepts(&name) {
                    assert_eq!(suggestion, name);
                }
            }
        }
        assert_eq!(PORTABLE.suggestion("files.read"), "files_read");
        assert_eq!(PORTABLE.suggestion("2fa"), "_2fa");
    }
}
