//! What extraction produces: [`Extracted`], its [`Format`] and [`Warning`]s.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A document format this crate recognises and extracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// Plain text in any detected encoding.
    Text,
    /// An HTML page.
    Html,
}

impl Format {
    /// The format's media type, e.g. `text/html`.
    #[must_use]
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain",
            Format::Html => "text/html",
        }
    }

    /// A short lower-case name, e.g. `html`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Html => "html",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Something worth telling the user about a document that was extracted
/// anyway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Warning {
    /// Byte sequences invalid in `encoding` were each replaced by U+FFFD.
    InvalidBytes {
        /// The encoding the document was decoded with.
        encoding: String,
        /// How many invalid sequences were replaced.
        count: usize,
    },
    /// The document declared a charset (HTML `<meta charset>` or an XML
    /// declaration) that its bytes contradict; `used` was used instead.
    DeclaredCharsetIgnored {
        /// The charset label as declared.
        declared: String,
        /// The encoding actually used.
        used: String,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::InvalidBytes { encoding, count } => {
                write!(f, "{count} byte sequence(s) invalid in {encoding} replaced by U+FFFD")
            }
            Warning::DeclaredCharsetIgnored { declared, used } => {
                write!(f, "declared charset {declared:?} does not match the content; decoded as {used}")
            }
        }
    }
}

/// The text of one document and what is known about it.
///
/// Offsets in later stages (spans in reports) are byte offsets into
/// [`text`](Self::text), so extractors keep it as close to the source as the
/// format allows: plain text is returned exactly as decoded.
///
/// Non-exhaustive: later versions add fields (character positions in the
/// source, anomalies). Outside this crate, build one with
/// [`Extracted::from_text`] and set the public fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Extracted {
    /// The document's text. Never empty or whitespace-only.
    pub text: String,
    /// The document's title, when the format has one (HTML `<title>`).
    pub title: Option<String>,
    /// The format the document was recognised as.
    pub format: Format,
    /// The character encoding the document was decoded from (a WHATWG name
    /// such as `UTF-8`, `windows-1251`, `KOI8-R`, `IBM866`), for formats
    /// stored as bytes in a charset.
    pub encoding: Option<String>,
    /// Problems met on the way that did not stop extraction.
    pub warnings: Vec<Warning>,
}

impl Extracted {
    /// Wraps text that is already Unicode (a JSONL record, a database
    /// field): format [`Format::Text`], no source encoding, no warnings. The
    /// text is taken as it is, not checked for emptiness.
    #[must_use]
    pub fn from_text(text: String, title: Option<String>) -> Self {
        Self { text, title, format: Format::Text, encoding: None, warnings: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_and_serde() {
        assert_eq!(Format::Html.media_type(), "text/html");
        assert_eq!(Format::Text.to_string(), "text");
        assert_eq!(serde_json::to_string(&Format::Html).unwrap(), r#""html""#);
    }

    #[test]
    fn warning_serializes_with_a_kind_tag() {
        let w = Warning::InvalidBytes { encoding: "UTF-8".into(), count: 2 };
        assert_eq!(serde_json::to_string(&w).unwrap(), r#"{"kind":"invalid_bytes","encoding":"UTF-8","count":2}"#);
        assert!(w.to_string().contains("2 byte sequence(s)"));
    }

    #[test]
    fn from_text_wraps_unicode_text() {
        let doc = Extracted::from_text("тело".into(), Some("Заголовок".into()));
        assert_eq!((doc.text.as_str(), doc.title.as_deref()), ("тело", Some("Заголовок")));
        assert_eq!((doc.format, doc.encoding), (Format::Text, None));
    }
}
