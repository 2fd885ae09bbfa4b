//! The error type: every variant names the file it is about.

use std::path::PathBuf;

/// Why a document could not be extracted.
///
/// Every variant names the file (a path, or the name given to
/// [`extract_bytes`](crate::extract_bytes)), so a message read in a batch log
/// says which document failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be opened or read. The message gives the
    /// system's reason (not as a `source`, so a chain of causes does not
    /// repeat it).
    #[error("cannot read {}: {reason}", path.display())]
    Io {
        /// The file that was being read.
        path: PathBuf,
        /// The underlying I/O error.
        reason: std::io::Error,
    },
    /// The document is empty or holds only whitespace.
    #[error("{name}: the document has no text")]
    Empty {
        /// The document's name.
        name: String,
    },
    /// The document is binary data (an image, an executable, random bytes),
    /// not text in any supported format.
    #[error("{name}: binary data, not a text document")]
    Binary {
        /// The document's name.
        name: String,
    },
    /// The document is larger than
    /// [`ExtractConfig::max_bytes`](crate::ExtractConfig::max_bytes).
    #[error("{name}: {size} bytes is over the limit of {limit} bytes")]
    TooLarge {
        /// The document's name.
        name: String,
        /// The document's size in bytes (for a file, as its metadata reports).
        size: u64,
        /// The configured limit in bytes.
        limit: u64,
    },
    /// The document's text is longer than
    /// [`ExtractConfig::max_text_bytes`](crate::ExtractConfig::max_text_bytes) (or its
    /// bytes, without a magic number, could only give such a text).
    #[error("{name}: its text is over the limit of {limit} bytes")]
    TextTooLarge {
        /// The document's name.
        name: String,
        /// The configured limit in bytes of text.
        limit: u64,
    },
    /// The document is in a recognised format this build cannot extract yet
    /// (for example a PDF or a ZIP archive).
    #[error("{name}: unsupported format {media_type}")]
    Unsupported {
        /// The document's name.
        name: String,
        /// The media type recognised from the content, e.g. `application/pdf`.
        media_type: String,
    },
    /// The document is encrypted or password-protected.
    #[error("{name}: the document is encrypted")]
    Encrypted {
        /// The document's name.
        name: String,
    },
    /// The document is damaged or not what its format says: nothing could be
    /// extracted.
    #[error("{name}: damaged {format} document: {reason}")]
    Malformed {
        /// The document's name.
        name: String,
        /// The format it was recognised as.
        format: &'static str,
        /// What is wrong, e.g. `"no end of central directory"`.
        reason: String,
    },
    /// A limit that guards against decompression bombs and runaway inputs
    /// was reached (unpacked size, compression ratio, nesting depth, member
    /// count, time).
    #[error("{name}: {limit}")]
    Limit {
        /// The document's name.
        name: String,
        /// Which limit, with the figures, e.g. `"unpacks to over 1 GiB"`.
        limit: String,
    },
    /// The document is an archive: its members are documents of their own.
    /// Extract them with
    /// [`Extractor::extract_documents`](crate::Extractor::extract_documents).
    #[error("{name}: an archive ({media_type}); its members are separate documents")]
    Archive {
        /// The document's name.
        name: String,
        /// The archive's media type.
        media_type: String,
    },
    /// An external helper (a PDF worker process, OCR) failed or crashed, or an archive
    /// member could not be reached (it follows a refused member in a solid block).
    #[error("{name}: {reason}")]
    Failed {
        /// The document's name.
        name: String,
        /// What failed.
        reason: String,
    },
}

/// A `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file() {
        let e = Error::TooLarge { name: "big.txt".into(), size: 10, limit: 5 };
        assert_eq!(e.to_string(), "big.txt: 10 bytes is over the limit of 5 bytes");
        let e =
            Error::Io { path: PathBuf::from("/no/such"), reason: std::io::Error::from(std::io::ErrorKind::NotFound) };
        assert_eq!(e.to_string(), "cannot read /no/such: entity not found");
    }
}
