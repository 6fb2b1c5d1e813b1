//! Tool names: the characters a name may hold under a rule, and the rule a toolbox keeps so that
//! each of its tools encodes for every provider. The providers' own rules, and what an adapter does
//! with a name that breaks one, are in [`provider`](crate::provider).

/// `[a-zA-Z0-9_-]`: the characters OpenAI and Anthropic accept in tool names, and Anthropic in
/// call ids.
pub(crate) fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A provider's rule for tool names: which characters may come first and after, and how many.
///
/// An [`Encoder`](crate::provider::author::Encoder) names its provider's rule, and the encode driver checks every
/// tool's name against it before any body is built.
///
/// ```
/// use skyl::provider::author::NameRule;
///
/// /// Letters and `_`, at most 32 of them.
/// const RULE: NameRule = NameRule::new(
///     "1 to 32 characters from a-z, A-Z and `_`",
///     |c| c.is_ascii_alphabetic() || c == '_',
///     |c| c.is_ascii_alphabetic() || c == '_',
///     32,
/// );
/// assert!(RULE.accepts("get_weather"));
/// assert!(!RULE.accepts("get-weather"));
/// assert_eq!(RULE.suggestion("get-weather"), "get_weather");
/// ```
#[derive(Debug)]
pub struct NameRule {
    /// The rule in words, for the error.
    pub(crate) text: &'static str,
    /// Characters allowed first.
    pub(crate) first: fn(char) -> bool,
    /// Characters allowed after the first.
    pub(crate) allowed: fn(char) -> bool,
    /// Longest name, in characters.
    pub(crate) max: usize,
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the rule of Anthropic and both OpenAI APIs.
///
/// OpenAI documents it on `function.name` ("Must be a-z, A-Z, 0-9, or contain underscores and
/// dashes, with a maximum length of 64"). Anthropic's API reference now allows 128 characters on
/// `tools[].name`, but the API has answered a longer name with the 400 `tools.7.custom.name:
/// String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`, so the stricter limit holds.
pub(crate) const WORD_64: NameRule = NameRule {
    text: "1 to 64 characters from a-z, A-Z, 0-9, `_` and `-`",
    first: word_char,
    allowed: word_char,
    max: 64,
};

fn letter_or_underscore(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`: the names every built-in adapter accepts, the rules of
/// `provider::TOOL_NAME_RULES` taken together (Gemini adds the first character to [`WORD_64`];
/// the others add the character set to Gemini's). A
/// [`Toolbox`](crate::Toolbox) takes only such names, and a mounted MCP server's tools are
/// renamed to them, so a tool in a toolbox encodes for every provider.
pub(crate) const PORTABLE: NameRule = NameRule {
    text: "a letter or `_` first, then a-z, A-Z, 0-9, `_` or `-`, at most 64 characters",
    first: letter_or_underscore,
    allowed: word_char,
    max: 64,
};

impl NameRule {
    /// `^[a-zA-Z0-9_-]{1,64}$`, the rule of Anthropic and both OpenAI APIs, and of many others.
    pub const WORD_64: NameRule = WORD_64;

    /// A rule: `text` says it in words (for the error), `first` and `allowed` say which
    /// characters may come first and after it, `max` is the longest name in characters.
    pub const fn new(
        text: &'static str,
        first: fn(char) -> bool,
        allowed: fn(char) -> bool,
        max: usize,
    ) -> NameRule {
        NameRule {
            text,
            first,
            allowed,
            max,
        }
    }

    /// The rule in words.
    pub fn text(&self) -> &'static str {
        self.text
    }

    /// Whether the provider takes `name` as a tool name.
    pub fn accepts(&self, name: &str) -> bool {
        let mut chars = name.chars();
        match chars.next() {
            None => false,
            Some(first) => {
                (self.first)(first) && chars.all(self.allowed) && name.chars().count() <= self.max
            }
        }
    }

    /// `name` with every character the provider refuses made `_`, cut to its length.
    pub fn suggestion(&self, name: &str) -> String {
        let mut suggestion = self.sanitized(name);
        let end = suggestion
            .char_indices()
            .nth(self.max)
            .map_or(suggestion.len(), |(end, _)| end);
        suggestion.truncate(end);
        suggestion
    }

    /// `name` with every character the provider refuses made `_`, and a `_` in front when it
    /// would start with a character the provider refuses first; not cut to length.
    pub(crate) fn sanitized(&self, name: &str) -> String {
        let mut sanitized: String = name
            .chars()
            .map(|c| if (self.allowed)(c) { c } else { '_' })
            .collect();
        if !sanitized.chars().next().is_some_and(self.first) {
            sanitized.insert(0, '_');
        }
        sanitized
    }
}
