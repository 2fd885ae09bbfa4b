//! Shingles: overlapping windows of terms hashed to 64 bits (the hash is an on-disk
//! contract, see the crate docs), and the cyclic shingles sketches take from short texts.

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::{Error, Synonyms};

/// The largest shingle size accepted.
pub const MAX_SHINGLE_SIZE: usize = 32;

/// Shingle settings. They change fingerprints, so the index stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ShingleConfig {
    /// Words per shingle (Antiplagiat uses 3).
    pub size: usize,
    /// Seed of the shingle hash.
    pub seed: u64,
}

impl Default for ShingleConfig {
    fn default() -> Self {
        Self { size: 3, seed: 0 }
    }
}

/// Computes shingle hashes from term hashes. Built once, reused.
#[derive(Debug, Clone, Copy)]
pub struct Shingler {
    config: ShingleConfig,
}

impl Shingler {
    /// Validates the settings.
    pub fn new(config: ShingleConfig) -> Result<Self, Error> {
        if config.size == 0 || config.size > MAX_SHINGLE_SIZE {
            return Err(Error::ShingleSize(config.size));
        }
        Ok(Self { config })
    }

    /// The settings.
    pub fn config(&self) -> ShingleConfig {
        self.config
    }

    /// Number of shingles a text of `tokens` tokens has.
    pub fn count(&self, tokens: usize) -> usize {
        match tokens {
            0 => 0,
            n if n < self.config.size => 1,
            n => n - self.config.size + 1,
        }
    }

    /// Token range `[first, end)` covered by shingle `i` of a text of `tokens` tokens.
    pub fn token_range(&self, i: usize, tokens: usize) -> (usize, usize) {
        (i, (i + self.config.size).min(tokens))
    }

    /// The shingle hashes of a sequence of term hashes, in text order.
    pub fn hashes(&self, terms: &[u64]) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.count(terms.len()));
        self.hashes_into(terms, &mut out);
        out
    }

    /// Like [`Shingler::hashes`], appending to `out` (reuses its allocation).
    pub fn hashes_into(&self, terms: &[u64], out: &mut Vec<u64>) {
        let size = self.config.size;
        let mut buf = [0u8; MAX_SHINGLE_SIZE * 8];
        if terms.is_empty() {
            return;
        }
        if terms.len() < size {
            out.push(self.hash_window(terms, &mut buf));
            return;
        }
        out.reserve(terms.len() - size + 1);
        if size == 3 {
            // The default size, without copying each window into a buffer for the
            // general `xxh3`: the same value, see `xxh3_three`.
            out.extend(terms.windows(3).map(|w| xxh3_three(w[0], w[1], w[2], self.config.seed)));
            return;
        }
        for window in terms.windows(size) {
            out.push(self.hash_window(window, &mut buf));
        }
    }

    /// The hash of one window of `size` terms, as [`Shingler::hashes`] gives it.
    fn window_hash(&self, window: &[u64]) -> u64 {
        if let [a, b, c] = *window {
            return xxh3_three(a, b, c, self.config.seed);
        }
        self.hash_window(window, &mut [0u8; MAX_SHINGLE_SIZE * 8])
    }

    fn hash_window(&self, window: &[u64], buf: &mut [u8; MAX_SHINGLE_SIZE * 8]) -> u64 {
        for (chunk, term) in buf.chunks_exact_mut(8).zip(window) {
            chunk.copy_from_slice(&term.to_le_bytes());
        }
        xxh3_64_with_seed(&buf[..window.len() * 8], self.config.seed)
    }
}

/// `xxh3_64_with_seed(le_bytes(a) ++ le_bytes(b) ++ le_bytes(c), seed)`: xxh3's path
/// for 17 to 128 bytes written out for 24 (two 16-byte mixes, at offsets 0 and 8, with
/// the first 32 bytes of xxh3's default secret, then its avalanche), with no buffer and
/// no branch on the length. A test compares it with `xxh3_64_with_seed`.
#[inline]
fn xxh3_three(a: u64, b: u64, c: u64, seed: u64) -> u64 {
    /// The first 32 bytes of xxh3's default secret, as little-endian words.
    const SECRET: [u64; 4] = [
        u64::from_le_bytes([0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe]),
        u64::from_le_bytes([0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c]),
        u64::from_le_bytes([0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb]),
        u64::from_le_bytes([0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f]),
    ];
    /// xxh64's first prime.
    const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
    let mix = |lo: u64, hi: u64, s_lo: u64, s_hi: u64| {
        let product = u128::from(lo ^ s_lo.wrapping_add(seed)) * u128::from(hi ^ s_hi.wrapping_sub(seed));
        (product as u64) ^ ((product >> 64) as u64)
    };
    let acc = 24u64
        .wrapping_mul(PRIME64_1)
        .wrapping_add(mix(a, b, SECRET[0], SECRET[1]))
        .wrapping_add(mix(b, c, SECRET[2], SECRET[3]));
    // xxh3's avalanche.
    let acc = acc ^ (acc >> 37);
    let acc = acc.wrapping_mul(0x1656_6791_9E37_79F9);
    acc ^ (acc >> 32)
}

/// The canonical hash of one term's text (`xxh3_64`, seed 0), as normalizers compute it.
pub fn term_hash(term: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(term.as_bytes())
}

/// [`synonym_shingles`] swaps no term with more synonyms than this. Such a word has many
/// senses ("run", "hold", "figure": 30 to 80 synonyms), so a swap back to it is a guess,
/// and its swaps would make most of the look-ups. PAN 2013 collection-wide (docs/quality.md):
/// no limit gains 0.0044 plagdet for 70 % more check time; 16 keeps 0.0039 of it for
/// 40 %, 8 keeps 0.0031 for 10 %.
pub const MAX_SYNONYMS_PER_TERM: usize = 16;

/// At most this many variant shingles per text ([`variant_shingles`]: about 32 MiB of
/// them; a PAN suspect of 50,000 characters has some 80,000, so a text of about 1.2 MB
/// reaches it). Edit variants take at most half of it, made for evenly spaced shingles
/// when they would pass; synonym shingles take the rest, a longer text swapping only terms
/// with fewer synonyms, the limit per term going down from [`MAX_SYNONYMS_PER_TERM`] until
/// they fit. Memory stays bounded whatever the text's length, and every part of the text
/// keeps its variants.
pub const MAX_VARIANT_SHINGLES: usize = 2 << 20;

/// A shingle of a text varied by one edit that a rewording makes ([`variant_shingles`]):
/// what stage 1 of search looks up beside the text's own shingles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VariantShingle {
    /// The hash of the varied window.
    pub hash: u64,
    /// The shingle of the text it varies (shingle `i` covers terms `i .. i + size`).
    pub shingle: u32,
}

/// The text's shingles, each varied by one edit that can be undone without the source,
/// sorted and distinct (within [`MAX_VARIANT_SHINGLES`]): with `synonyms`, one term
/// swapped for one of its WordNet synonyms ([`synonym_shingles`]); with `edits`, one term
/// dropped or two neighbours swapped ([`edit_shingles`]). A rewording that changes a word
/// in every three shares no shingle with its source; its shingles with that change undone
/// are the source's.
pub fn variant_shingles(
    shingler: &Shingler,
    terms: &[u64],
    synonyms: Option<&Synonyms>,
    edits: bool,
) -> Vec<VariantShingle> {
    let mut out = if edits {
        let budget = if synonyms.is_some() { MAX_VARIANT_SHINGLES / 2 } else { MAX_VARIANT_SHINGLES };
        edit_shingles_within(shingler, terms, budget)
    } else {
        Vec::new()
    };
    if let Some(synonyms) = synonyms {
        let budget = MAX_VARIANT_SHINGLES - out.len();
        out.extend(synonym_shingles_within(shingler, terms, synonyms, MAX_SYNONYMS_PER_TERM, budget));
        out.sort_unstable();
        out.dedup();
    }
    out
}

/// Every shingle of `terms` with one term swapped for one of its WordNet synonyms
/// ([`Synonyms::synonyms`]), sorted and distinct: the source's shingle when the rewording
/// swapped that word. A term with more than [`MAX_SYNONYMS_PER_TERM`] synonyms is not
/// swapped, nor, in a text that would have more than [`MAX_VARIANT_SHINGLES`] (what the
/// edits leave of it, in [`variant_shingles`]), one with more than the largest limit that
/// keeps them within it. A text shorter than one shingle has none.
pub fn synonym_shingles(shingler: &Shingler, terms: &[u64], synonyms: &Synonyms) -> Vec<VariantShingle> {
    synonym_shingles_within(shingler, terms, synonyms, MAX_SYNONYMS_PER_TERM, MAX_VARIANT_SHINGLES)
}

/// Every shingle of `terms` undoing one edit, sorted and distinct: with the term after
/// its first dropped (the shingle of terms `i, i + 2, i + 3` for size 3: the source's
/// when the rewording inserted term `i + 1`; and so for each term but the first and the
/// last), and with two neighbours swapped (`i + 1, i, i + 2` and `i, i + 2, i + 1`: the
/// source's when the rewording swapped them): `2 (size - 1)` per shingle (a variant may
/// be another of the text's own shingles: stage 1 counts a hash it holds as its own). At
/// most [`MAX_VARIANT_SHINGLES`] (half of it in [`variant_shingles`] beside synonyms),
/// made for evenly spaced shingles when there would be more.
pub fn edit_shingles(shingler: &Shingler, terms: &[u64]) -> Vec<VariantShingle> {
    edit_shingles_within(shingler, terms, MAX_VARIANT_SHINGLES)
}

/// [`edit_shingles`] with its budget as an argument.
fn edit_shingles_within(shingler: &Shingler, terms: &[u64], budget: usize) -> Vec<VariantShingle> {
    let size = shingler.config().size;
    if terms.len() < size || size < 2 {
        return Vec::new();
    }
    let windows = terms.len() - size + 1;
    let per_shingle = 2 * (size - 1);
    if budget < per_shingle {
        return Vec::new();
    }
    // Every `step`-th shingle when all of them would pass the budget.
    let step = (windows * per_shingle).div_ceil(budget).max(1);
    let mut out = Vec::with_capacity(windows.div_ceil(step) * per_shingle);
    let mut window = [0u64; MAX_SHINGLE_SIZE];
    for i in (0..windows).step_by(step) {
        let shingle = u32::try_from(i).unwrap_or(u32::MAX);
        let mut push = |window: &[u64]| out.push(VariantShingle { hash: shingler.window_hash(window), shingle });
        // One term dropped: the window reaches one term further.
        if let Some(longer) = terms.get(i..i + size + 1) {
            for drop in 1..size {
                window[..drop].copy_from_slice(&longer[..drop]);
                window[drop..size].copy_from_slice(&longer[drop + 1..]);
                push(&window[..size]);
            }
        }
        // Two neighbours swapped.
        for k in 0..size - 1 {
            window[..size].copy_from_slice(&terms[i..i + size]);
            window.swap(k, k + 1);
            push(&window[..size]);
        }
    }
    out.sort_unstable();
    out.dedup();
    out.truncate(budget);
    out
}

/// [`synonym_shingles`] with its two limits as arguments.
fn synonym_shingles_within(
    shingler: &Shingler,
    terms: &[u64],
    synonyms: &Synonyms,
    per_term: usize,
    budget: usize,
) -> Vec<VariantShingle> {
    let size = shingler.config().size;
    if terms.len() < size {
        return Vec::new();
    }
    let mut of_term: foldhash::HashMap<u64, Vec<u64>> = foldhash::HashMap::default();
    // How many swaps each limit would make: a term of `n` synonyms gives `n` in each of
    // the windows holding it (`size` of them, fewer at the text's ends).
    let windows = terms.len() - size + 1;
    let mut swaps_of_count = vec![0usize; per_term + 1];
    for (i, &term) in terms.iter().enumerate() {
        let n = of_term.entry(term).or_insert_with(|| synonyms.synonyms(term)).len();
        if (1..=per_term).contains(&n) {
            let holding = (i + 1).min(size).min(windows).min(terms.len() - i);
            swaps_of_count[n] += n * holding;
        }
    }
    let mut limit = per_term;
    while limit > 0 && swaps_of_count[..=limit].iter().sum::<usize>() > budget {
        limit -= 1;
    }
    let mut out = Vec::new();
    let mut window = [0u64; MAX_SHINGLE_SIZE];
    for (i, terms) in terms.windows(size).enumerate() {
        let shingle = u32::try_from(i).unwrap_or(u32::MAX);
        for (j, &term) in terms.iter().enumerate() {
            let swaps = &of_term[&term];
            if swaps.is_empty() || swaps.len() > limit {
                continue;
            }
            window[..size].copy_from_slice(terms);
            for &swap in swaps {
                window[j] = swap;
                out.push(VariantShingle { hash: shingler.window_hash(&window[..size]), shingle });
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Shingle hashes with cyclic extension (seed 004) for short documents: a text of `n`
/// terms, `n < min_terms`, is read as a ring, so it gives `n` shingles (windows wrap to the
/// start) instead of `n - size + 1` or one. One edited word then changes only `size`
/// shingles of a short text, as in a long one. Longer texts get the plain shingles.
/// Near-duplicate sketches (`tessera-near`) take these.
pub fn shingles_for_sketch(shingler: &Shingler, terms: &[u64], min_terms: usize) -> Vec<u64> {
    let size = shingler.config().size;
    let n = terms.len();
    if n == 0 || n >= min_terms || size == 1 {
        return shingler.hashes(terms);
    }
    let mut ring = Vec::with_capacity(n + size - 1);
    ring.extend_from_slice(terms);
    for i in 0..size - 1 {
        ring.push(terms[i % n]);
    }
    let mut out = shingler.hashes(&ring);
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shingler(size: usize, seed: u64) -> Shingler {
        Shingler::new(ShingleConfig { size, seed }).unwrap()
    }

    #[test]
    fn golden_values_never_change() {
        // Pinned: changing these silently would make every stored index unreadable.
        let terms: Vec<u64> = ["borrow", "text", "find", "sourc"].iter().map(|t| term_hash(t)).collect();
        // Values computed independently with Python's `xxhash` package (see the crate docs).
        assert_eq!(terms, [0xdefe_9997_10c6_5d05, 0x4769_fd1c_60e8_a611, 0x230b_6d4d_4498_1ab6, 0xc4c6_1ea1_7ebe_09cc]);
        assert_eq!(shingler(3, 0).hashes(&terms), [0x7d50_0118_3ce3_314c, 0x0d9c_3c19_32db_a307]);
    }

    #[test]
    fn short_texts_have_one_shingle() {
        let s = shingler(3, 7);
        assert_eq!(s.hashes(&[]).len(), 0);
        assert_eq!(s.hashes(&[5]).len(), 1);
        assert_eq!(s.hashes(&[5, 6]).len(), 1);
        assert_eq!(s.count(2), 1);
        assert_eq!(s.token_range(0, 2), (0, 2));
    }

    #[test]
    fn seed_changes_hashes() {
        let terms = [1, 2, 3];
        assert_ne!(shingler(3, 0).hashes(&terms), shingler(3, 1).hashes(&terms));
    }

    #[test]
    fn rejects_bad_size() {
        assert!(Shingler::new(ShingleConfig { size: 0, seed: 0 }).is_err());
        assert!(Shingler::new(ShingleConfig { size: 33, seed: 0 }).is_err());
    }

    #[test]
    fn synonym_shingles_swap_one_term_at_a_time() {
        // "big" (term 1) and "large" (term 2) share a synset; "huge" (term 3) is in
        // another one of "big"'s; terms 7, 8, 9 have none.
        let table = Synonyms::from_table("big a b\nlarge a\nhuge b\nseven c\n", |w| match w {
            "big" => Some(1),
            "large" => Some(2),
            "huge" => Some(3),
            _ => None,
        })
        .unwrap();
        let s = shingler(3, 5);
        let got = synonym_shingles(&s, &[7, 1, 8, 9], &table);
        let at = |window: [u64; 3], shingle| VariantShingle { hash: s.hashes(&window)[0], shingle };
        let mut want = vec![at([7, 2, 8], 0), at([7, 3, 8], 0), at([2, 8, 9], 1), at([3, 8, 9], 1)];
        want.sort_unstable();
        assert_eq!(got, want);
        // The text's own shingles are not among them.
        assert!(s.hashes(&[7, 1, 8, 9]).iter().all(|h| got.iter().all(|v| v.hash != *h)));
        // A word twice in one window gives each swap once per place.
        assert_eq!(synonym_shingles(&s, &[1, 1, 1], &table).len(), 6);
        assert!(synonym_shingles(&s, &[1, 2], &table).is_empty());
        assert!(synonym_shingles(&s, &[7, 8, 9, 7], &table).is_empty());
    }

    #[test]
    fn a_text_over_the_budget_swaps_only_its_least_ambiguous_words() {
        // Term 1 has two synonyms (2, 3), term 4 one (5).
        let table = Synonyms::from_table("big a b\nlarge a\nhuge b\nfast c\nquick c\n", |w| match w {
            "big" => Some(1),
            "large" => Some(2),
            "huge" => Some(3),
            "fast" => Some(4),
            "quick" => Some(5),
            _ => None,
        })
        .unwrap();
        let s = shingler(3, 0);
        let terms = [1, 7, 4, 8, 9];
        // Swaps: term 1 twice in its one window, term 4 once in each of its three.
        let all = synonym_shingles_within(&s, &terms, &table, 16, 100);
        assert_eq!(all.len(), 2 + 3);
        assert_eq!(all, synonym_shingles(&s, &terms, &table));
        // A budget of 4 drops the two-synonym term everywhere, not the text's end.
        let fit = synonym_shingles_within(&s, &terms, &table, 16, 4);
        let mut want: Vec<VariantShingle> = [[1, 7, 5], [7, 5, 8], [5, 8, 9]]
            .iter()
            .enumerate()
            .map(|(i, w)| VariantShingle { hash: s.hashes(w)[0], shingle: i as u32 })
            .collect();
        want.sort_unstable();
        assert_eq!(fit, want);
        assert!(synonym_shingles_within(&s, &terms, &table, 16, 2).is_empty());
        // The limit per term alone.
        assert_eq!(synonym_shingles_within(&s, &terms, &table, 1, 100), want);
    }

    #[test]
    fn edit_shingles_drop_one_term_or_swap_two_neighbours() {
        let s = shingler(3, 9);
        let at = |window: [u64; 3], shingle| VariantShingle { hash: s.hashes(&window)[0], shingle };
        let got = edit_shingles(&s, &[1, 2, 3, 4, 5]);
        let mut want = vec![
            // Shingle 0 (1 2 3): 2 or 3 dropped (its window reaches term 4), neighbours swapped.
            at([1, 3, 4], 0),
            at([1, 2, 4], 0),
            at([2, 1, 3], 0),
            at([1, 3, 2], 0),
            // Shingle 1 (2 3 4).
            at([2, 4, 5], 1),
            at([2, 3, 5], 1),
            at([3, 2, 4], 1),
            at([2, 4, 3], 1),
            // Shingle 2 (3 4 5), the last: no term after it to reach, so swaps only.
            at([4, 3, 5], 2),
            at([3, 5, 4], 2),
        ];
        want.sort_unstable();
        assert_eq!(got, want);
        // The source "1 3 4 6" (the suspect inserted 2, changed 6) shares none of the
        // suspect's own shingles, but its first is a variant of the suspect's first.
        let source = s.hashes(&[1, 3, 4, 6]);
        assert!(source.iter().all(|h| !s.hashes(&[1, 2, 3, 4, 5]).contains(h)));
        assert!(got.iter().any(|v| v.hash == source[0] && v.shingle == 0));
        // A text of one shingle has its swaps; a shorter one, and one-term shingles, none.
        assert_eq!(edit_shingles(&s, &[1, 2, 3]).len(), 2);
        assert!(edit_shingles(&s, &[1, 2]).is_empty());
        assert!(edit_shingles(&shingler(1, 0), &[1, 2, 3]).is_empty());
    }

    #[test]
    fn edit_shingles_over_the_budget_are_made_for_evenly_spaced_shingles() {
        let s = shingler(3, 1);
        let terms: Vec<u64> = (0..1000).collect();
        let all = edit_shingles_within(&s, &terms, usize::MAX / 4);
        assert_eq!(all.len(), 4 * 998 - 2);
        // 4 per shingle, 998 shingles: a budget of 1,000 takes every 4th shingle.
        let fit = edit_shingles_within(&s, &terms, 1000);
        assert!(fit.len() <= 1000 && fit.len() >= 990, "{}", fit.len());
        let mut shingles: Vec<u32> = fit.iter().map(|v| v.shingle).collect();
        shingles.sort_unstable();
        shingles.dedup();
        assert_eq!(shingles, (0..998).step_by(4).collect::<Vec<u32>>());
        assert!(edit_shingles_within(&s, &terms, 3).is_empty());
    }

    #[test]
    fn variant_shingles_are_the_synonym_and_edit_ones_together() {
        let table = Synonyms::from_table("big a\nlarge a\n", |w| match w {
            "big" => Some(1),
            "large" => Some(2),
            _ => None,
        })
        .unwrap();
        let s = shingler(3, 2);
        let terms = [7, 1, 8, 9];
        let mut both = synonym_shingles(&s, &terms, &table);
        both.extend(edit_shingles(&s, &terms));
        both.sort_unstable();
        both.dedup();
        assert_eq!(variant_shingles(&s, &terms, Some(&table), true), both);
        assert_eq!(variant_shingles(&s, &terms, Some(&table), false), synonym_shingles(&s, &terms, &table));
        assert_eq!(variant_shingles(&s, &terms, None, true), edit_shingles(&s, &terms));
        assert!(variant_shingles(&s, &terms, None, false).is_empty());
    }

    #[test]
    fn cyclic_extension_gives_one_shingle_per_term() {
        let s = shingler(3, 0);
        let short = shingles_for_sketch(&s, &[1, 2], 10);
        assert_eq!(short.len(), 2);
        assert_eq!(short[0], s.hashes(&[1, 2, 1])[0]);
        assert_eq!(shingles_for_sketch(&s, &[1, 2, 3, 4, 5], 10).len(), 5);
        assert_eq!(shingles_for_sketch(&s, &[1, 2, 3, 4, 5], 5), s.hashes(&[1, 2, 3, 4, 5]));
        assert!(shingles_for_sketch(&s, &[], 10).is_empty());
        // One changed word of a short text changes `size` shingles, not all of them.
        let a = shingles_for_sketch(&s, &[1, 2, 3, 4, 5, 6], 10);
        let b = shingles_for_sketch(&s, &[1, 2, 3, 9, 5, 6], 10);
        assert_eq!(a.iter().zip(&b).filter(|(x, y)| x != y).count(), 3);
    }

    proptest::proptest! {
        #[test]
        fn three_term_hash_is_xxh3(a in proptest::prelude::any::<u64>(), b in proptest::prelude::any::<u64>(), c in proptest::prelude::any::<u64>(), seed in proptest::prelude::any::<u64>()) {
            let mut bytes = Vec::new();
            for t in [a, b, c] {
                bytes.extend_from_slice(&t.to_le_bytes());
            }
            proptest::prop_assert_eq!(xxh3_three(a, b, c, seed), xxh3_64_with_seed(&bytes, seed));
            for seed in [0, 1, u64::MAX] {
                proptest::prop_assert_eq!(xxh3_three(a, b, c, seed), xxh3_64_with_seed(&bytes, seed));
            }
        }

        #[test]
        fn shingle_depends_only_on_its_window(terms in proptest::collection::vec(proptest::prelude::any::<u64>(), 3..40)) {
            let s = shingler(3, 42);
            let all = s.hashes(&terms);
            proptest::prop_assert_eq!(all.len(), terms.len() - 2);
            for (i, h) in all.iter().enumerate() {
                proptest::prop_assert_eq!(*h, s.hashes(&terms[i..i + 3])[0]);
            }
        }
    }
}
