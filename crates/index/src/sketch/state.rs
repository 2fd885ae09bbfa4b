//! The sketch store's state: its settings, the segments it names and its tombstones. From
//! format 4 on it is a section of the index directory's `MANIFEST` ([`SketchSection`]);
//! stores of formats 2 and 3 kept it in a binary manifest of their own (`NEAR`), which is
//! still read ([`State::decode_legacy`]) and replaced by the section at the first write.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tessera_near::{LshParams, MAX_DISTANCE, MinHashConfig};

use super::segment::{u32_at, u64_at};
use super::{STORE_MAGIC, STORE_VERSION, StoreSettings, corrupt};
use crate::{Result, durable};

/// Header bytes of a version-2 `NEAR` manifest (and of a version-1 store's header).
pub(super) const HEADER: usize = 64;
/// Header bytes of a version-3 `NEAR` manifest (version 2's, then u32 flags, u32 reserved).
const HEADER_V3: usize = 72;
/// `NEAR` manifest flag (version 3): the segments hold the signatures.
const FLAG_SIGNATURES: u32 = 1;
/// Bytes of one segment entry of a `NEAR` manifest.
const SEGMENT_REF: usize = 24;

/// The sketch component's section of the index directory's `MANIFEST` (manifest format
/// 2, store format 4): what a store's own `NEAR` manifest held up to store format 3, as
/// JSON. The byte-by-byte description is in `docs/design.md`, section 12.5.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SketchSection {
    /// MinHash functions `P`.
    pub num_perm: u32,
    /// MinHash seed.
    pub seed: u64,
    /// LSH bands.
    pub bands: u32,
    /// Rows per band.
    pub rows: u32,
    /// The Hamming distance the SimHash tables serve.
    pub simhash_distance: u32,
    /// xxh3_64 of the index's fingerprint settings JSON (0 for a standalone store).
    pub settings_hash: u64,
    /// Whether the segments hold the signatures.
    pub signatures: bool,
    /// The highest segment number ever written into the directory.
    pub generation: u64,
    /// The segment files `NEAR-<number>.seg`, in query order.
    pub segments: Vec<SketchSegment>,
    /// Deleted documents still held by a segment, strictly ascending (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tombstones: Vec<u64>,
}

/// One segment named by the [`SketchSection`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SketchSegment {
    /// Its number: the file is `NEAR-<number, 6 digits at least>.seg`.
    pub number: u64,
    /// Documents it holds (deleted ones included).
    pub docs: u64,
    /// Its file length, checked on open.
    pub file_len: u64,
}

impl SketchSection {
    /// The settings, after checking everything a reader relies on (also run by the
    /// index's manifest validation); `Err` holds the reason.
    pub(crate) fn check(&self) -> std::result::Result<StoreSettings, String> {
        let p = self.num_perm as usize;
        let lsh = LshParams { bands: self.bands as usize, rows: self.rows as usize };
        lsh.validate(p).map_err(|e| format!("sketch section: {e}"))?;
        if self.simhash_distance > MAX_DISTANCE {
            return Err(format!("sketch section: SimHash distance {} above {MAX_DISTANCE}", self.simhash_distance));
        }
        let mut numbers: Vec<u64> = self.segments.iter().map(|s| s.number).collect();
        numbers.sort_unstable();
        numbers.dedup();
        if numbers.len() != self.segments.len() || numbers.last().is_some_and(|&n| n > self.generation) {
            return Err("sketch section: segment numbers repeat or pass the generation".into());
        }
        if self.tombstones.windows(2).any(|w| w[0] >= w[1]) {
            return Err("sketch section: tombstones out of order".into());
        }
        Ok(StoreSettings {
            minhash: MinHashConfig { num_perm: p, seed: self.seed },
            lsh,
            simhash_distance: self.simhash_distance,
            settings_hash: self.settings_hash,
            signatures: self.signatures,
        })
    }
}

/// A store's state, read from the manifest section or a `NEAR` manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct State {
    /// The store format version: [`STORE_VERSION`] for a section, 2 or 3 for a `NEAR`
    /// manifest.
    pub version: u32,
    pub settings: StoreSettings,
    /// The highest segment number ever written into this store's directory.
    pub generation: u64,
    pub segments: Vec<SketchSegment>,
    /// Deleted documents still held by a segment, ascending.
    pub tombstones: Vec<u64>,
}

impl State {
    /// The state a manifest section holds (`file` names the `MANIFEST` in errors).
    pub(super) fn from_section(file: &Path, section: &SketchSection) -> Result<State> {
        let settings = section.check().map_err(|r| corrupt(file, r))?;
        Ok(State {
            version: STORE_VERSION,
            settings,
            generation: section.generation,
            segments: section.segments.clone(),
            tombstones: section.tombstones.clone(),
        })
    }

    /// The manifest section of this state (always of the current format).
    pub(super) fn to_section(&self) -> SketchSection {
        let s = &self.settings;
        SketchSection {
            num_perm: s.minhash.num_perm as u32,
            seed: s.minhash.seed,
            bands: s.lsh.bands as u32,
            rows: s.lsh.rows as u32,
            simhash_distance: s.simhash_distance,
            settings_hash: s.settings_hash,
            signatures: s.signatures,
            generation: self.generation,
            segments: self.segments.clone(),
            tombstones: self.tombstones.clone(),
        }
    }

    /// Reads a `NEAR` manifest of format 2 or 3 (stores written before format 4).
    pub(super) fn decode_legacy(path: &Path, b: &[u8]) -> Result<State> {
        if b.len() < HEADER + 4 || b[..8] != STORE_MAGIC {
            return Err(corrupt(path, "not a sketch store"));
        }
        let version = u32_at(b, 8);
        let header = match version {
            2 => HEADER,
            3 if b.len() >= HEADER_V3 + 4 => HEADER_V3,
            3 => return Err(corrupt(path, "not a sketch store")),
            _ => {
                return Err(corrupt(
                    path,
                    format!("store format version {version} in a NEAR manifest, this build reads 1 to 3 there"),
                ));
            }
        };
        // Version 2 always holds the signatures.
        let flags = if version == 2 { FLAG_SIGNATURES } else { u32_at(b, 64) };
        if flags & !FLAG_SIGNATURES != 0 {
            return Err(corrupt(path, format!("unknown store flags {flags:#x}")));
        }
        let (segments, tombstones) = (u32_at(b, 36) as u128, u128::from(u64_at(b, 40)));
        let expected = header as u128 + SEGMENT_REF as u128 * segments + 8 * tombstones + 4;
        if expected != b.len() as u128 {
            return Err(corrupt(path, format!("{} bytes, the header implies {expected}", b.len())));
        }
        if durable::unseal(b).is_none() {
            return Err(corrupt(path, "checksum mismatch"));
        }
        let refs: Vec<SketchSegment> = (0..segments as usize)
            .map(|i| {
                let at = header + SEGMENT_REF * i;
                SketchSegment { number: u64_at(b, at), docs: u64_at(b, at + 8), file_len: u64_at(b, at + 16) }
            })
            .collect();
        let start = header + SEGMENT_REF * refs.len();
        let section = SketchSection {
            num_perm: u32_at(b, 12),
            seed: u64_at(b, 16),
            bands: u32_at(b, 24),
            rows: u32_at(b, 28),
            simhash_distance: u32_at(b, 32),
            settings_hash: u64_at(b, 48),
            signatures: flags & FLAG_SIGNATURES != 0,
            generation: u64_at(b, 56),
            segments: refs,
            tombstones: (0..tombstones as usize).map(|i| u64_at(b, start + 8 * i)).collect(),
        };
        Ok(State { version, ..State::from_section(path, &section)? })
    }
}
