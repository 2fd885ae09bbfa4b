//! Settings for extraction, plain data.

use serde::{Deserialize, Serialize};

/// The default for [`ExtractConfig::max_bytes`]: 256 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// Settings for extraction. Plain data: build it with struct update syntax
/// or deserialize it; every field has a default.
///
/// ```
/// use tessera_extract::ExtractConfig;
///
/// let config = ExtractConfig { max_bytes: 1 << 20, ..ExtractConfig::default() };
/// assert!(config.main_content);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// Largest document accepted, in bytes. A larger one fails with
    /// [`Error::TooLarge`](crate::Error::TooLarge); for a file this is decided
    /// from its metadata, before anything is read.
    pub max_bytes: u64,
    /// HTML: keep only the main content (the article a Readability pass
    /// finds). When `false`, or when no article is found, the whole body is
    /// kept minus scripts, styles, navigation, header, footer and asides.
    pub main_content: bool,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        Self { max_bytes: DEFAULT_MAX_BYTES, main_content: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_take_defaults() {
        let config: ExtractConfig = serde_json::from_str(r#"{"max_bytes": 10}"#).unwrap();
        assert_eq!(config.max_bytes, 10);
        assert!(config.main_content);
        assert!(serde_json::from_str::<ExtractConfig>(r#"{"max_byte": 10}"#).is_err());
    }
}
