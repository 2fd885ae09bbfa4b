//! How an add treats documents a collection already holds, and the one rule that turns
//! the surfaces' flags (`--if-new`/`--force`, the API's `if_new`/`force`, Python's
//! `if_new=`/`force=`) into a mode.

use serde::Serialize;

/// The share of a document's distinct shingle hashes that one indexed document must
/// contain for the document not to be new (seed 000: "90 % of its shingles").
pub const DEFAULT_MIN_CONTAINMENT: f64 = 0.9;

/// How an add treats documents the collection already holds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum AddMode {
    /// Every document is added, even one the collection already holds from the same
    /// origin with the same text (`tessera index --force`).
    All,
    /// Every document is added except a repeat: one the collection already holds (or
    /// this session added) from the same origin with the same shingle hashes, as when a
    /// folder is indexed again. A repeat is left as it is and reported as already
    /// indexed. A changed file is added as a new document.
    #[default]
    SkipRepeats,
    /// Only new documents are added: a document whose distinct shingle hashes are at
    /// least `min_containment` contained in one live document of the collection (or one
    /// added earlier in the same session) is not added, and its origin is attached to
    /// that document (the one containing the most, then the lowest id). Containment is
    /// exact: postings name the candidates, snapshots confirm them.
    IfNew {
        /// The containment that makes a document not new, in `(0, 1]`.
        min_containment: f64,
    },
}

/// Flags that make no add mode.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AddModeError {
    /// The if-new containment is outside `(0, 1]`.
    #[error("the if-new containment must be in (0, 1], got {0}")]
    Containment(f64),
    /// Both "only what is new" and "everything, repeats too" were asked for.
    #[error("if_new and force cannot be used together")]
    IfNewAndForce,
}

impl AddMode {
    /// The add-only-if-new mode with `min_containment` (default
    /// [`DEFAULT_MIN_CONTAINMENT`]), which must lie in `(0, 1]`.
    pub fn if_new(min_containment: Option<f64>) -> Result<Self, AddModeError> {
        let min = min_containment.unwrap_or(DEFAULT_MIN_CONTAINMENT);
        if !(min > 0.0 && min <= 1.0) {
            return Err(AddModeError::Containment(min));
        }
        Ok(Self::IfNew { min_containment: min })
    }

    /// The mode a surface's flags ask for: `if_new` (with its containment, default
    /// [`DEFAULT_MIN_CONTAINMENT`]; the containment is ignored without `if_new`),
    /// else `force` ([`AddMode::All`]), else [`AddMode::SkipRepeats`]. `if_new` and
    /// `force` together are an error.
    pub fn from_flags(if_new: bool, min_containment: Option<f64>, force: bool) -> Result<Self, AddModeError> {
        match (if_new, force) {
            (true, true) => Err(AddModeError::IfNewAndForce),
            (true, false) => Self::if_new(min_containment),
            (false, true) => Ok(Self::All),
            (false, false) => Ok(Self::SkipRepeats),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_make_one_mode_each() {
        assert_eq!(AddMode::from_flags(false, None, false), Ok(AddMode::SkipRepeats));
        assert_eq!(AddMode::from_flags(false, Some(0.5), false), Ok(AddMode::SkipRepeats));
        assert_eq!(AddMode::from_flags(false, None, true), Ok(AddMode::All));
        assert_eq!(
            AddMode::from_flags(true, None, false),
            Ok(AddMode::IfNew { min_containment: DEFAULT_MIN_CONTAINMENT })
        );
        assert_eq!(AddMode::from_flags(true, Some(1.0), false), Ok(AddMode::IfNew { min_containment: 1.0 }));
        assert_eq!(AddMode::from_flags(true, None, true), Err(AddModeError::IfNewAndForce));
    }

    #[test]
    fn containment_outside_zero_one_is_refused() {
        for bad in [0.0, -0.1, 1.01, f64::NAN] {
            let err = AddMode::if_new(Some(bad)).unwrap_err();
            assert!(err.to_string().starts_with("the if-new containment must be in (0, 1], got"), "{err}");
        }
    }

    #[test]
    fn modes_serialize_tagged() {
        let json = serde_json::to_string(&AddMode::IfNew { min_containment: 0.9 }).unwrap();
        assert_eq!(json, r#"{"mode":"if_new","min_containment":0.9}"#);
        assert_eq!(serde_json::to_string(&AddMode::All).unwrap(), r#"{"mode":"all"}"#);
    }
}
