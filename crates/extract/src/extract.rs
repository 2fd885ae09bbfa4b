//! The extension point: one [`Extract`] implementation per format.

use crate::{ExtractConfig, Extracted, Format, Result};

/// An extractor for one document format.
///
/// [`Extractor`](crate::Extractor) asks each registered extractor in turn
/// whether it recognises a document ([`sniff`](Self::sniff)) and hands the
/// bytes to the first that does. Recognition is by content; the name (and its
/// extension) only breaks ties, because uploaded files are often misnamed.
///
/// Contract for implementations: never panic on any input; return
/// [`Error::Empty`](crate::Error::Empty) rather than an empty text; name the
/// document in every error.
pub trait Extract: Send + Sync {
    /// The format this extractor produces.
    fn format(&self) -> Format;

    /// Whether this extractor recognises a document from its name and its
    /// first bytes (at most [`HEAD_LEN`](crate::HEAD_LEN) of them).
    fn sniff(&self, name: &str, head: &[u8]) -> bool;

    /// Extracts the text of a whole document.
    ///
    /// # Errors
    ///
    /// [`Error::Empty`](crate::Error::Empty) when there is no text,
    /// [`Error::Binary`](crate::Error::Binary) when the bytes are not text,
    /// and any other [`Error`](crate::Error) the format can meet.
    fn extract(&self, name: &str, bytes: &[u8], config: &ExtractConfig) -> Result<Extracted>;
}

/// The lower-cased extension of a document name, if it has one.
pub(crate) fn extension(name: &str) -> Option<String> {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let (stem, ext) = file.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions() {
        assert_eq!(extension("a/b/Page.HTML").as_deref(), Some("html"));
        assert_eq!(extension("dir.d/readme"), None);
        assert_eq!(extension(".bashrc"), None);
        assert_eq!(extension("C:\\x\\notes.txt").as_deref(), Some("txt"));
        assert_eq!(extension(""), None);
    }
}
