//! What extraction produces: [`Extracted`], its [`Format`] and [`Warning`]s.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::origin::{Location, Origin, origin_at};

/// A document format this crate recognises and extracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// Plain text in any detected encoding.
    Text,
    /// An HTML page.
    Html,
    /// Markdown (CommonMark) text.
    Markdown,
    /// A PDF document.
    Pdf,
    /// A Word 2007+ document (Office Open XML).
    Docx,
    /// A Word 97-2003 document (OLE compound file).
    Doc,
    /// An OpenDocument text document.
    Odt,
    /// A PowerPoint 2007+ presentation (Office Open XML).
    Pptx,
    /// Rich Text Format.
    Rtf,
    /// An EPUB electronic book.
    Epub,
}

impl Format {
    /// The format's media type, e.g. `text/html`.
    #[must_use]
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain",
            Format::Html => "text/html",
            Format::Markdown => "text/markdown",
            Format::Pdf => "application/pdf",
            Format::Docx => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            Format::Doc => "application/msword",
            Format::Odt => "application/vnd.oasis.opendocument.text",
            Format::Pptx => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            Format::Rtf => "application/rtf",
            Format::Epub => "application/epub+zip",
        }
    }

    /// A short lower-case name, e.g. `html`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Html => "html",
            Format::Markdown => "markdown",
            Format::Pdf => "pdf",
            Format::Docx => "docx",
            Format::Doc => "doc",
            Format::Odt => "odt",
            Format::Pptx => "pptx",
            Format::Rtf => "rtf",
            Format::Epub => "epub",
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
    /// A trick that hides borrowing was found (and neutralised: hidden text
    /// is left out of the text, look-alike letters and invisible characters
    /// are folded by normalization, spaced letters are joined).
    Bypass {
        /// Which trick.
        trick: Trick,
        /// How many times (characters for hidden text, words otherwise).
        count: usize,
        /// Where, at most [`MAX_LOCATIONS`](crate::MAX_LOCATIONS) of them.
        locations: Vec<Location>,
    },
    /// Pages without a text layer (scanned images).
    NoTextLayer {
        /// The pages (1-based).
        pages: Vec<u32>,
        /// Whether their text was recognised by OCR (and is in the text);
        /// when `false` those pages contribute no text.
        ocr: bool,
    },
    /// Parts of the document that were not extracted (embedded objects,
    /// images, unreadable streams), with how many.
    Skipped {
        /// What was skipped, e.g. `"embedded object"`.
        what: String,
        /// How many.
        count: usize,
    },
    /// The document is damaged; what could be read was extracted.
    Damaged {
        /// What was wrong.
        problem: String,
    },
}

/// A technical trick used to hide borrowed text from a checker (seed 000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Trick {
    /// Letters of another script that look the same (Latin `a`, `e`, `o`,
    /// `p`, `c` inside Cyrillic words and the reverse), or other confusables.
    Homoglyphs,
    /// Zero-width and other invisible characters inside words.
    InvisibleCharacters,
    /// Text coloured white (or the colour of its background).
    WhiteText,
    /// Text too small to read (2 pt or less).
    TinyText,
    /// Text marked hidden (`w:vanish`, `display:none`, PDF render mode 3).
    HiddenText,
    /// Letters separated by spaces or other characters ("p l a g i a r i s m").
    SpacedLetters,
    /// Spaces between words replaced by other characters.
    SpaceSubstitutes,
}

impl Trick {
    /// A short human description.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Trick::Homoglyphs => "look-alike letters of another script inside words",
            Trick::InvisibleCharacters => "invisible characters inside words",
            Trick::WhiteText => "white text",
            Trick::TinyText => "tiny text",
            Trick::HiddenText => "hidden text",
            Trick::SpacedLetters => "letters separated by spaces",
            Trick::SpaceSubstitutes => "spaces replaced by other characters",
        }
    }

    /// Whether text with this trick is left out of the extracted text.
    #[must_use]
    pub fn removes_text(self) -> bool {
        matches!(self, Trick::WhiteText | Trick::TinyText | Trick::HiddenText)
    }
}

impl fmt::Display for Trick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
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
            Warning::Bypass { trick, count, locations } => {
                write!(f, "{trick}: {count}")?;
                if trick.removes_text() {
                    f.write_str(" character(s), left out of the text")?;
                }
                if let Some(first) = locations.first() {
                    write!(f, " (first at byte {}", first.start)?;
                    if let Some(page) = first.place.page {
                        write!(f, ", page {page}")?;
                    }
                    if let Some(paragraph) = first.place.paragraph {
                        write!(f, ", paragraph {paragraph}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            Warning::NoTextLayer { pages, ocr } => {
                let list: Vec<String> = pages.iter().map(u32::to_string).collect();
                let how = if *ocr { "text recognised by OCR" } else { "no text extracted (OCR not available)" };
                write!(f, "{} page(s) without a text layer ({}): {how}", pages.len(), list.join(", "))
            }
            Warning::Skipped { what, count } => write!(f, "{count} {what}(s) skipped"),
            Warning::Damaged { problem } => write!(f, "damaged document, extracted what could be read: {problem}"),
        }
    }
}

/// What a document says about itself: author, dates and the like, as the
/// format stores them (dates as written there, usually ISO 8601).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// Authors or creators, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// When the document was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When the document was last modified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// The language the document declares (e.g. `ru-RU`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Pages (PDF) or slides (presentations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<u32>,
    /// The program that made the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
}

/// The text of one document and what is known about it.
///
/// Offsets in later stages (spans in reports) are byte offsets into
/// [`text`](Self::text), so extractors keep it as close to the source as the
/// format allows: plain text is returned exactly as decoded.
///
/// Non-exhaustive: later versions add fields. Outside this crate, build one
/// with [`Extracted::from_text`] and set the public fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// Problems met on the way that did not stop extraction, and tricks
    /// that hide borrowing.
    pub warnings: Vec<Warning>,
    /// Author, dates, pages.
    #[serde(default)]
    pub metadata: Metadata,
    /// Where the characters of the text came from: sorted runs of byte
    /// ranges with their place in the original (empty for plain text, where
    /// the text is the original).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<Origin>,
}

impl Extracted {
    /// Wraps text that is already Unicode (a JSONL record, a database
    /// field): format [`Format::Text`], no source encoding, no warnings. The
    /// text is taken as it is, not checked for emptiness.
    #[must_use]
    pub fn from_text(text: String, title: Option<String>) -> Self {
        Self {
            text,
            title,
            format: Format::Text,
            encoding: None,
            warnings: Vec::new(),
            metadata: Metadata::default(),
            origins: Vec::new(),
        }
    }

    /// Where the character at byte `offset` of the text came from, if the
    /// format tells.
    #[must_use]
    pub fn origin_at(&self, offset: usize) -> Option<&Origin> {
        origin_at(&self.origins, offset)
    }

    /// The bypass warnings (tricks that hide borrowing).
    pub fn bypasses(&self) -> impl Iterator<Item = (Trick, usize, &[Location])> {
        self.warnings.iter().filter_map(|w| match w {
            Warning::Bypass { trick, count, locations } => Some((*trick, *count, locations.as_slice())),
            _ => None,
        })
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
