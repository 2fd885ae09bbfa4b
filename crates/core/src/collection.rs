//! Collections: what their matches mean and how they are set up.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a collection's matches mean in a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollectionKind {
    /// Matches are borrowings.
    #[default]
    Source,
    /// Matches are citations (common expressions, legal and normative texts).
    Citation,
}

impl CollectionKind {
    /// Every kind, in the order surfaces list them.
    pub const ALL: [CollectionKind; 2] = [CollectionKind::Source, CollectionKind::Citation];

    /// The kind's name: `"source"` or `"citation"` (as in JSON, flags and the manifest).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Source => "source",
            Self::Citation => "citation",
        }
    }
}

impl fmt::Display for CollectionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A collection kind's name that is neither `source` nor `citation`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown collection kind {0:?}: source or citation")]
pub struct UnknownCollectionKind(pub String);

impl FromStr for CollectionKind {
    type Err = UnknownCollectionKind;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL.into_iter().find(|k| k.as_str() == name).ok_or_else(|| UnknownCollectionKind(name.to_owned()))
    }
}

/// Settings of one collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionConfig {
    /// Name, unique within the index (`[A-Za-z0-9_.-]{1,64}`, [`valid_collection_name`]).
    pub name: String,
    /// What its matches mean.
    pub kind: CollectionKind,
    /// Keep each document's original text, so reports show source passages (an add that
    /// does not say keeps them in a new collection: the engine's `DEFAULT_KEEP_TEXTS`);
    /// off, the collection keeps digital snapshots only.
    pub keep_texts: bool,
}

/// Checks a collection name: `[A-Za-z0-9_.-]{1,64}`.
#[must_use]
pub fn valid_collection_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_what_they_print_and_nothing_else() {
        for kind in CollectionKind::ALL {
            assert_eq!(kind.to_string().parse::<CollectionKind>(), Ok(kind));
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{kind}\""));
        }
        let err = "Citation".parse::<CollectionKind>().unwrap_err();
        assert_eq!(err.to_string(), "unknown collection kind \"Citation\": source or citation");
        assert!("".parse::<CollectionKind>().is_err());
    }

    #[test]
    fn collection_names() {
        assert!(valid_collection_name("web-2026.v1_x"));
        assert!(valid_collection_name(&"a".repeat(64)));
        assert!(!valid_collection_name(&"a".repeat(65)));
        assert!(!valid_collection_name(""));
        assert!(!valid_collection_name("a/b"));
        assert!(!valid_collection_name("тест"));
    }
}
