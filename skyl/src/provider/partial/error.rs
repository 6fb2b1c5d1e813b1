//! Where a tool call's streamed arguments stopped being JSON.

use std::fmt;

/// The streamed arguments of a tool call stopped being JSON: at which byte of the joined text,
/// what JSON needed there, and what came instead.
///
/// The arguments read before that point stay readable; the deltas after it are not read. When
/// the call completes, it goes the usual way: a call whose arguments are not JSON gets a tool
/// error that tells the model what was wrong, from [`Toolbox::dispatch`](crate::Toolbox::dispatch).
///
/// ```
/// use skyl::provider::partial::PartialArguments;
///
/// let mut arguments = PartialArguments::new();
/// arguments.push(r#"{"path": "a.txt", "mode": wr"#);
/// let broken = arguments.error().unwrap();
/// assert_eq!(broken.at(), 26);
/// assert_eq!(
///     broken.to_string(),
///     "the tool call's arguments are not JSON from byte 26 on: expected a value, found `w`"
/// );
/// // What came before still reads.
/// assert_eq!(arguments.get::<String>("path").as_deref(), Some("a.txt"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenArguments {
    at: usize,
    expected: &'static str,
    found: Found,
}

/// What came where JSON needed something else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// A character (an ASCII one, or the first of a multi-byte one).
    Char(char),
    /// A control character inside a string, which JSON wants escaped.
    Control(u8),
    /// The text of a number that is not one.
    Number(String),
    /// A character outside ASCII where JSON needs punctuation, a digit or a letter of a literal.
    NonAscii,
    /// A surrogate escape without its other half, which no string holds.
    LoneSurrogate(u16),
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// The arguments ended.
    End,
    /// One more nested object or array than `serde_json` reads.
    TooDeep,
}

impl BrokenArguments {
    pub(super) fn new(at: usize, expected: &'static str, found: Found) -> BrokenArguments {
        BrokenArguments {
            at,
            expected,
            found,
        }
    }

    /// The byte of the joined deltas where the arguments stopped being JSON (0 is the first).
    pub fn at(&self) -> usize {
        self.at
    }

    /// What JSON needed there, in words ("a value", "`,` or `}`", ...).
    pub fn expected(&self) -> &'static str {
        self.expected
    }

    /// Whether the arguments only ended too soon: everything read was JSON, but not all of it.
    pub fn is_cut_short(&self) -> bool {
        self.found == Found::End
    }
}

impl fmt::Display for BrokenArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the tool call's arguments are not JSON from byte {} on: expected {}, found ",
            self.at, self.expected
        )?;
        match &self.found {
            Found::Char(c) => write!(f, "`{c}`"),
            Found::Control(byte) => write!(f, "the control character 0x{byte:02x} unescaped"),
            Found::Number(text) => write!(f, "`{text}`"),
            Found::NonAscii => f.write_str("a character outside ASCII"),
            Found::LoneSurrogate(unit) => write!(f, "the lone surrogate \\u{unit:04X}"),
            Found::NotUtf8 => f.write_str("bytes that are not UTF-8"),
            Found::End => f.write_str("the end of the arguments"),
            Found::TooDeep => f.write_str("a 128th nested object or array"),
        }
    }
}

impl std::error::Error for BrokenArguments {}
