//! The methods that hash the text itself: [`DedupMethod::Exact`] (identical texts) and
//! [`DedupMethod::Lines`] (lines an earlier document had). Their keys, the text a
//! document keeps and the verdict on it are here, for the [`Deduplicator`] and for the
//! surfaces that run the same rules elsewhere (the Python package, the Spark job).

use tessera_near::Clustering;

#[cfg(doc)]
use super::{DedupMethod, Deduplicator};
use super::{Sketch, round_similarity};

/// The key under which [`DedupMethod::Exact`] compares a text: the xxh3-128 hash of the
/// text with every run of whitespace made one space and the ends trimmed (so copies that
/// differ only in line endings, indentation or a final newline are one text; case,
/// punctuation and every other character count). 128 bits: at a billion documents the
/// chance that two different texts share a key is about 10^-21.
pub fn exact_key(text: &str) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            h.update(b" ");
        }
        h.update(word.as_bytes());
    }
    h.digest128()
}

/// The key of each line of a text for [`DedupMethod::Lines`], one per line as
/// [`remove_lines`] counts them (the text split at `\n`): the xxh3-64 hash of the line
/// with runs of whitespace made one space and the ends trimmed, or `None` for a blank line
/// (blank lines are never removed). 64 bits: a line is wrongly taken for an earlier one
/// with odds of about one in 18 billion for a billion distinct lines seen before.
pub fn line_keys(text: &str) -> Vec<Option<u64>> {
    text.split('\n')
        .map(|line| {
            let mut words = line.split_whitespace().peekable();
            words.peek()?;
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            for (i, word) in words.enumerate() {
                if i > 0 {
                    h.update(b" ");
                }
                h.update(word.as_bytes());
            }
            Some(h.digest())
        })
        .collect()
}

/// What [`DedupMethod::Lines`] says of a document whose lines `removed` (0-based,
/// ascending) were seen earlier: whether it is kept (some non-blank line is left, or it
/// had none) and the share of its characters in removed lines (rounded as similarities
/// are). A distributed job that found `removed` itself asks this of each text.
pub fn lines_outcome(text: &str, removed: &[u32]) -> (bool, f64) {
    lines_verdict(&line_keys(text), &line_chars(text), removed)
}

pub(super) fn lines_verdict(keys: &[Option<u64>], chars: &[u32], removed: &[u32]) -> (bool, f64) {
    let non_blank = keys.iter().filter(|k| k.is_some()).count();
    let total: u64 = chars.iter().map(|&c| u64::from(c)).sum();
    let gone: u64 = removed.iter().map(|&l| u64::from(chars.get(l as usize).copied().unwrap_or(0))).sum();
    let kept = non_blank == 0 || removed.len() < non_blank;
    (kept, if total == 0 { 0.0 } else { round_similarity(gone as f64 / total as f64) })
}

/// The characters of each line as [`line_keys`] counts lines (with its line break).
pub(super) fn line_chars(text: &str) -> Vec<u32> {
    text.split_inclusive('\n')
        .map(|l| u32::try_from(l.chars().count()).unwrap_or(u32::MAX))
        .chain(text.ends_with('\n').then_some(0))
        .chain(text.is_empty().then_some(0))
        .collect()
}

/// `text` without the lines numbered in `removed` (0-based, ascending, as
/// [`line_keys`] counts them), each with its line break; the other lines as they were.
pub fn remove_lines(text: &str, removed: &[u32]) -> String {
    if removed.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut next = removed.iter().copied().peekable();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if next.peek() == Some(&(i as u32)) {
            next.next();
            continue;
        }
        out.push_str(line);
    }
    out
}

/// [`DedupMethod::Exact`]: each document joins the first one with its key (similarity 1).
pub(super) fn cluster_exact_keys(sketches: &[Sketch]) -> Clustering {
    let mut first: std::collections::HashMap<u128, u32> = std::collections::HashMap::with_capacity(sketches.len());
    let kept = sketches
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            Sketch::Exact { key } => *first.entry(*key).or_insert(i as u32),
            _ => i as u32,
        })
        .collect::<Vec<u32>>();
    let similarity = vec![1.0; kept.len()];
    Clustering { kept, similarity }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DedupConfig, DedupMethod, DedupResult, Deduplicator};
    use tessera_extract::ExtractConfig;

    fn run(method: DedupMethod, texts: &[&str]) -> DedupResult {
        let config = DedupConfig { method, ..DedupConfig::default() };
        let mut d = Deduplicator::new(config, ExtractConfig::default()).unwrap();
        let batch: Vec<(String, String)> =
            texts.iter().enumerate().map(|(i, t)| (i.to_string(), t.to_string())).collect();
        d.add_texts(&batch);
        d.finish().unwrap()
    }

    #[test]
    fn exact_keeps_the_first_of_texts_equal_but_for_whitespace() {
        let result = run(
            DedupMethod::Exact,
            &["One text.\r\nTwo lines.\n", "one text. two lines.", "  One text.   Two lines.", "One text. Two lines!"],
        );
        let got: Vec<(&str, bool, f64)> =
            result.lines.iter().map(|l| (l.cluster.as_str(), l.kept, l.similarity)).collect();
        assert_eq!(got, [("0", true, 1.0), ("1", true, 1.0), ("0", false, 1.0), ("3", true, 1.0)]);
        assert_eq!((result.summary.clusters, result.summary.duplicates_removed), (3, 1));
        assert_eq!(exact_key("a  b\n"), exact_key("a b"));
        assert_ne!(exact_key("a b"), exact_key("ab"));
    }

    #[test]
    fn lines_seen_in_an_earlier_document_are_removed_from_later_ones() {
        let texts = [
            "Home | News | About\nFirst story.\n\nCopyright 2026 Example.\n",
            "Home  |  News | About\nSecond story.\nSecond story.\n\nCopyright 2026 Example.",
            "Home | News | About\nCopyright 2026 Example.\n",
            "",
        ];
        let result = run(DedupMethod::Lines, &texts);
        let removed: Vec<&[u32]> = result.lines.iter().map(|l| l.removed_lines.as_slice()).collect();
        assert_eq!(removed, [&[][..], &[0, 4], &[0, 1], &[]]);
        let kept: Vec<bool> = result.lines.iter().map(|l| l.kept).collect();
        assert_eq!(kept, [true, true, false, true], "a document with nothing left is removed; an empty one stays");
        assert!(result.lines.iter().all(|l| l.cluster == l.id));
        assert_eq!(remove_lines(texts[1], &result.lines[1].removed_lines), "Second story.\nSecond story.\n\n");
        assert_eq!(remove_lines(texts[0], &[]), texts[0]);
        let share = result.lines[1].similarity;
        assert!(share > 0.5 && share < 0.7, "{share}");
        assert_eq!(result.summary.lines_removed, Some(4));
        for (text, line) in texts.iter().zip(&result.lines) {
            assert_eq!(lines_outcome(text, &line.removed_lines), (line.kept, line.similarity));
        }
        assert_eq!((result.summary.clusters, result.summary.duplicates_removed), (3, 1));
        assert_eq!(line_keys("a\n\n  \nb").iter().map(Option::is_some).collect::<Vec<_>>(), [true, false, false, true]);
    }
}
