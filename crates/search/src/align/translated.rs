//! Cross-language alignment: the passages of a suspect that translate a passage of a
//! source written in another language.
//!
//! Written by hand because it is ours (the method of docs/quality.md, "Translated
//! borrowings"). The suspect comes with its [`Translations`]: for each token, the source
//! language's terms that may translate it (the lexicon's, its name's spellings, its own
//! term). Then:
//! 1. *Sentence pairs.* Each source sentence is a set of terms; a term found in more than
//!    `max_common_share` of the source's sentences is a common word, never looked up.
//!    A suspect token *matches* a source sentence when one of its translations is there,
//!    weighted by that term's idf over the source's sentences. A pair's score is the
//!    Dice (F1) of two coverages: the matched weight over the suspect sentence's
//!    translatable weight, and the weight of the source terms matched over the source
//!    sentence's; a pair where either coverage is under `seed_coverage` scores 0 (a
//!    short sentence is covered by chance). Each suspect sentence keeps its
//!    `candidates_per_sentence` best source sentences scoring at least `seed_score` with
//!    `seed_matches` matched tokens.
//! 2. *Chains.* A translation keeps the order of its source, though it may merge, split
//!    or drop sentences: pairs chain when the suspect goes forward by at most
//!    `max_sentence_gap` sentences and the source by at most `max_source_gap` (not
//!    backwards; two suspect sentences may pair with one source sentence, three may
//!    not). The best chain (by the sum of its scores, each link's gap costing
//!    `gap_cost`) is taken first, then the next best among the rest.
//! 3. *Passages.* Chains of two pairs or more that follow one another on both sides
//!    within `merge_sentence_gap` suspect and `merge_source_gap` source sentences merge
//!    (the freer middle of one translated passage breaks a chain). A merged chain of at
//!    least `min_pairs` pairs whose mean score reaches `min_mean_score` grows at each end
//!    by up to `extend_steps` sentences that pair, with a weaker score (`extend_score`,
//!    `extend_coverage`), with a source sentence at most `extend_source` beyond its
//!    source edge (a passage's first and last sentences are often its freest), and
//!    becomes a block from its first to its last sentence on both sides, with its
//!    sentence pairs; one under `min_passage_chars` suspect characters, or whose two
//!    sides' lengths differ by more than `max_length_ratio` times, or whose confidence
//!    ([`crate::Evidence::confidence`]) is under `min_confidence`, is dropped.
//!
//! Two works of one author share their words, names and style, but not the order of
//! whole sentences, which is what a chain asks for: on the dev set's negative pairs
//! (another work of the source's author translated into the suspect) nothing is found.

use foldhash::{HashMap, HashMapExt};
use tessera_fingerprint::Translations;
use tessera_normalize::Span;

use super::{Passage, to_block, to_u32};
use crate::{Block, Evidence, Query, TranslatedConfig};

/// A scored sentence pair: suspect sentence `i`, source sentence `j`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Pair {
    i: usize,
    j: usize,
    score: f64,
    matched: usize,
}

/// The blocks of `suspect` (its tokens translated by `translations`) that translate a
/// passage of `source`, in suspect order. Empty unless both sides have terms and
/// sentences and the translations are the suspect's.
pub fn align_translated(
    suspect: &Query,
    translations: &Translations,
    source: &Query,
    config: &TranslatedConfig,
) -> Vec<Block> {
    if !suspect.has_sentences() || !source.has_sentences() || translations.len() != suspect.token_bytes.len() {
        return Vec::new();
    }
    let sources = SourceSentences::new(source, config);
    let pairs = sentence_pairs(suspect, translations, &sources, config);
    let mut blocks: Vec<Block> = merge_chains(chains(&pairs, suspect.sentences.len(), config), config)
        .into_iter()
        .filter(|chain| {
            let mean = chain.iter().map(|p| p.score).sum::<f64>() / chain.len().max(1) as f64;
            chain.len() >= config.min_pairs && mean >= config.min_mean_score
        })
        .map(|chain| extend(chain, suspect, translations, source, &sources, config))
        .filter_map(|chain| passage(suspect, translations, source, &chain, config))
        .collect();
    blocks.sort_by_key(|b| (b.suspect.bytes.start, b.source.bytes.start));
    blocks
}

/// The source's sentences as term sets, with the terms' idf.
struct SourceSentences {
    /// Term (low 32 bits) -> its idf over the source's sentences and the sentences
    /// holding it (none kept for a common term).
    terms: HashMap<u32, (f64, Vec<u32>)>,
    /// Each sentence's distinct terms' idf summed.
    weight: Vec<f64>,
}

impl SourceSentences {
    fn new(source: &Query, config: &TranslatedConfig) -> Self {
        let n = source.sentences.len();
        let mut postings: HashMap<u32, Vec<u32>> = HashMap::with_capacity(source.terms.len() / 4);
        for (j, s) in source.sentences.iter().enumerate() {
            for &t in &source.terms[s.start..s.end] {
                let list = postings.entry(t as u32).or_default();
                if list.last() != Some(&(j as u32)) {
                    list.push(j as u32);
                }
            }
        }
        let common = (config.max_common_share * n as f64).max(config.min_common_sentences as f64);
        let mut weight = vec![0.0; n];
        let terms = postings
            .into_iter()
            .map(|(t, list)| {
                let idf = ((n as f64 + 1.0) / list.len() as f64).ln();
                for &j in &list {
                    weight[j as usize] += idf;
                }
                let kept = if list.len() as f64 > common { Vec::new() } else { list };
                (t, (idf, kept))
            })
            .collect();
        Self { terms, weight }
    }
}

/// The score of suspect sentence `i` with source sentence `j` (as [`sentence_pairs`]
/// scores them, with `coverage` asked of each side).
fn score_pair(
    suspect: &Query,
    translations: &Translations,
    source: &Query,
    sources: &SourceSentences,
    (i, j): (usize, usize),
    coverage: f64,
) -> Option<Pair> {
    let (s, t) = (suspect.sentences.get(i)?, source.sentences.get(j)?);
    let held: Vec<u32> = source.terms[t.start..t.end].iter().map(|&t| t as u32).collect();
    let (mut suspect_weight, mut matched_weight, mut matched) = (0.0, 0.0, 0);
    let mut matched_terms: Vec<u32> = Vec::new();
    for k in s.start..s.end {
        let mut best: Option<f64> = None;
        let mut hit: Option<f64> = None;
        for t in translations.of(k) {
            let Some((idf, _)) = sources.terms.get(t) else { continue };
            best = Some(best.map_or(*idf, |b: f64| b.max(*idf)));
            if held.contains(t) {
                hit = Some(hit.map_or(*idf, |h: f64| h.max(*idf)));
                if !matched_terms.contains(t) {
                    matched_terms.push(*t);
                }
            }
        }
        suspect_weight += best.unwrap_or(0.0);
        if let Some(h) = hit {
            matched_weight += h;
            matched += 1;
        }
    }
    if matched == 0 {
        return None;
    }
    let score = sources.dice(matched_weight, suspect_weight, &matched_terms, j, coverage)?;
    Some(Pair { i, j, score, matched })
}

/// A passage's chain grown at each end by up to `extend_steps` suspect sentences, each
/// paired with a source sentence at most `extend_source` sentences beyond the chain's
/// source edge with a weaker score (`extend_score`, `extend_coverage`): a translated
/// passage's first and last sentences are often its freest.
fn extend(
    mut chain: Vec<Pair>,
    suspect: &Query,
    translations: &Translations,
    source: &Query,
    sources: &SourceSentences,
    config: &TranslatedConfig,
) -> Vec<Pair> {
    let best_near = |i: usize, js: &mut dyn Iterator<Item = usize>| {
        js.filter_map(|j| score_pair(suspect, translations, source, sources, (i, j), config.extend_coverage))
            .filter(|p| p.score >= config.extend_score)
            .max_by(|a, b| a.score.total_cmp(&b.score).then(b.j.cmp(&a.j)))
    };
    for _ in 0..config.extend_steps {
        let Some(first) = chain.first().copied() else { break };
        let Some(i) = first.i.checked_sub(1) else { break };
        let lo = first.j.saturating_sub(config.extend_source);
        match best_near(i, &mut (lo..=first.j)) {
            Some(p) => chain.insert(0, p),
            None => break,
        }
    }
    for _ in 0..config.extend_steps {
        let Some(last) = chain.last().copied() else { break };
        let i = last.i + 1;
        if i >= suspect.sentences.len() {
            break;
        }
        let hi = (last.j + config.extend_source).min(source.sentences.len().saturating_sub(1));
        match best_near(i, &mut (last.j..=hi)) {
            Some(p) => chain.push(p),
            None => break,
        }
    }
    chain
}

impl SourceSentences {
    /// A sentence pair's score: the Dice of the suspect side's coverage (`matched` of its
    /// `total` weight) and source sentence `j`'s (the idf of the source terms `held` that
    /// were matched, over its weight); `None` when either coverage is under `coverage`.
    fn dice(&self, matched: f64, total: f64, held: &[u32], j: usize, coverage: f64) -> Option<f64> {
        let recall = (matched / total.max(f64::MIN_POSITIVE)).min(1.0);
        let source: f64 = held.iter().filter_map(|t| self.terms.get(t)).map(|(idf, _)| idf).sum();
        let precision = (source / self.weight[j].max(f64::MIN_POSITIVE)).min(1.0);
        (recall.min(precision) >= coverage && recall + precision > 0.0)
            .then(|| 2.0 * recall * precision / (recall + precision))
    }
}

/// Each suspect sentence's best source sentences.
fn sentence_pairs(
    suspect: &Query,
    translations: &Translations,
    sources: &SourceSentences,
    config: &TranslatedConfig,
) -> Vec<Pair> {
    let mut out = Vec::new();
    // Per source sentence touched: matched suspect weight, matched suspect tokens, the
    // last token counted, and the source terms matched (weight counted once each).
    let mut touched: HashMap<u32, (f64, usize, usize, Vec<u32>)> = HashMap::new();
    for (i, s) in suspect.sentences.iter().enumerate() {
        touched.clear();
        let mut suspect_weight = 0.0;
        for k in s.start..s.end {
            // A token weighs as its rarest translation present in the source.
            let mut best: Option<f64> = None;
            for t in translations.of(k) {
                let Some((idf, list)) = sources.terms.get(t) else { continue };
                best = Some(best.map_or(*idf, |b: f64| b.max(*idf)));
                for &j in list {
                    let e = touched.entry(j).or_insert((0.0, 0, usize::MAX, Vec::new()));
                    if e.2 != k {
                        e.2 = k;
                        e.1 += 1;
                        e.0 += idf;
                    }
                    if !e.3.contains(t) {
                        e.3.push(*t);
                    }
                }
            }
            suspect_weight += best.unwrap_or(0.0);
        }
        if suspect_weight <= 0.0 {
            continue;
        }
        let mut scored: Vec<Pair> = touched
            .iter()
            .filter(|(_, e)| e.1 >= config.seed_matches)
            .map(|(&j, (w, matched, _, terms))| {
                let score = sources.dice(*w, suspect_weight, terms, j as usize, config.seed_coverage).unwrap_or(0.0);
                Pair { i, j: j as usize, score, matched: *matched }
            })
            .filter(|p| p.score >= config.seed_score && p.score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.j.cmp(&b.j)));
        scored.truncate(config.candidates_per_sentence);
        out.extend(scored);
    }
    out
}

/// Chains of pairs in order on both sides, best first, no two sharing a suspect sentence.
fn chains(pairs: &[Pair], suspect_sentences: usize, config: &TranslatedConfig) -> Vec<Vec<Pair>> {
    let mut alive: Vec<Pair> = pairs.to_vec();
    alive.sort_by_key(|p| (p.i, p.j));
    let mut out = Vec::new();
    let mut used = vec![false; suspect_sentences];
    loop {
        alive.retain(|p| !used[p.i]);
        if alive.is_empty() {
            break;
        }
        // best[x]: the best chain ending at pair x, and its previous pair.
        let mut best: Vec<(f64, Option<usize>)> = Vec::with_capacity(alive.len());
        for (x, p) in alive.iter().enumerate() {
            let mut value = (p.score, None);
            for y in (0..x).rev() {
                let q = &alive[y];
                if q.i + config.max_sentence_gap < p.i {
                    break;
                }
                if q.i == p.i || q.j > p.j || q.j + config.max_source_gap < p.j {
                    continue;
                }
                // Two suspect sentences may translate one source sentence, not three.
                if q.j == p.j && best[y].1.is_some_and(|z| alive[z].j == q.j) {
                    continue;
                }
                let gaps = (p.i - q.i - 1) + (p.j - q.j).saturating_sub(1);
                let v = best[y].0 + p.score - config.gap_cost * gaps as f64;
                if v > value.0 {
                    value = (v, Some(y));
                }
            }
            best.push(value);
        }
        let Some(end) = (0..alive.len()).max_by(|&a, &b| best[a].0.total_cmp(&best[b].0).then(b.cmp(&a))) else {
            break;
        };
        let mut chain = vec![alive[end]];
        let mut at = best[end].1;
        while let Some(y) = at {
            chain.push(alive[y]);
            at = best[y].1;
        }
        chain.reverse();
        let (first, last) = (chain[0].i, chain[chain.len() - 1].i);
        used[first..=last].iter_mut().for_each(|u| *u = true);
        if chain.len() >= 2 {
            out.push(chain);
        }
    }
    out.sort_by_key(|c| c[0].i);
    out
}

/// Chains that follow one another on both sides, close enough (`merge_sentence_gap`,
/// `merge_source_gap`), are one passage whose middle translates more freely.
fn merge_chains(chains: Vec<Vec<Pair>>, config: &TranslatedConfig) -> Vec<Vec<Pair>> {
    let mut out: Vec<Vec<Pair>> = Vec::with_capacity(chains.len());
    for chain in chains {
        if let Some(last) = out.last_mut() {
            let (a, b) = (last[last.len() - 1], chain[0]);
            let j_max = last.iter().map(|p| p.j).max().unwrap_or(a.j);
            let j_min = chain.iter().map(|p| p.j).min().unwrap_or(b.j);
            if b.i > a.i
                && b.i - a.i <= config.merge_sentence_gap
                && j_min + 1 >= j_max
                && j_min <= j_max + config.merge_source_gap
            {
                last.extend(chain);
                continue;
            }
        }
        out.push(chain);
    }
    out
}

/// A chain as a block with its sentence pairs and evidence.
fn passage(
    suspect: &Query,
    translations: &Translations,
    source: &Query,
    chain: &[Pair],
    config: &TranslatedConfig,
) -> Option<Block> {
    let (first, last) = (chain.first()?, chain.last()?);
    let s = Span { start: suspect.sentences[first.i].start, end: suspect.sentences[last.i].end };
    let j_min = chain.iter().map(|p| p.j).min()?;
    let j_max = chain.iter().map(|p| p.j).max()?;
    let t = Span { start: source.sentences[j_min].start, end: source.sentences[j_max].end };
    let chars = suspect.token_chars.get(s.end - 1)?.end - suspect.token_chars.get(s.start)?.start;
    let source_chars = source.token_chars.get(t.end - 1)?.end - source.token_chars.get(t.start)?.start;
    let ratio = source_chars as f64 / chars.max(1) as f64;
    if chars < config.min_passage_chars || ratio * config.max_length_ratio < 1.0 || ratio > config.max_length_ratio {
        return None;
    }
    let mean = chain.iter().map(|p| p.score).sum::<f64>() / chain.len() as f64;
    let matched: usize = chain.iter().map(|p| p.matched).sum();
    let evidence = Evidence {
        suspect_terms: to_u32(s.end - s.start),
        source_terms: to_u32(t.end - t.start),
        shared_terms: to_u32(matched),
        order: 1.0,
        cosine: mean as f32,
        sentences: true,
        translated: true,
        ..Evidence::default()
    };
    let pairs: Vec<(Span, Span, f64)> =
        chain.iter().map(|p| (suspect.sentences[p.i], source.sentences[p.j], p.score)).collect();
    let words: Vec<Vec<(usize, usize)>> = chain
        .iter()
        .map(|p| matched_words(translations, source, suspect.sentences[p.i], source.sentences[p.j]))
        .collect();
    if evidence.confidence() < config.min_confidence {
        return None;
    }
    let passage = Passage { s, t, matched, score: mean, sentences: true };
    to_block(suspect, source, &passage, evidence, &pairs, &words)
}

/// The suspect tokens of sentence `s` one of whose translations a token of source
/// sentence `t` is, each with the first such source token: (suspect, source) indexes.
fn matched_words(translations: &Translations, source: &Query, s: Span, t: Span) -> Vec<(usize, usize)> {
    (s.start..s.end)
        .filter_map(|k| {
            let of = translations.of(k);
            (t.start..t.end).find(|&l| of.contains(&(source.terms[l] as u32))).map(|l| (k, l))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use tessera_fingerprint::translate::WordPair;
    use tessera_fingerprint::{Fingerprinter, Lexicon, ShingleConfig, names};
    use tessera_normalize::NormalizerConfig;

    use super::*;

    const PAIRS: &[(&str, &str)] = &[
        ("old", "старый"),
        ("doctor", "доктор"),
        ("lived", "жить"),
        ("live", "жить"),
        ("small", "маленький"),
        ("town", "город"),
        ("river", "река"),
        ("every", "каждый"),
        ("morning", "утро"),
        ("walked", "ходить"),
        ("garden", "сад"),
        ("wife", "жена"),
        ("loved", "любить"),
        ("flowers", "цветы"),
        ("roses", "розы"),
        ("winter", "зима"),
        ("snow", "снег"),
        ("covered", "покрывать"),
        ("roads", "дороги"),
        ("nobody", "никто"),
        ("came", "приходить"),
        ("visit", "гость"),
        ("evening", "вечер"),
        ("read", "читать"),
        ("books", "книги"),
        ("letters", "письма"),
        ("son", "сын"),
        ("wrote", "писать"),
        ("rarely", "редко"),
        ("long", "длинный"),
        ("sad", "грустный"),
        ("window", "окно"),
        ("sat", "сидеть"),
        ("silent", "молча"),
    ];

    const RUSSIAN: &str = "Глава первая. Была весна и шёл дождь. Все ждали лета. \
        Старый доктор Самойленко жил в маленьком городе у реки. Каждое утро он ходил в сад. \
        Его жена любила цветы и розы. Зимой снег покрывал дороги, и никто не приходил в гости. \
        Вечером доктор читал книги и письма сына. Сын писал редко, но длинные письма. \
        Грустный доктор сидел у окна молча. Потом пришла осень. Дети пошли в школу.";

    const ENGLISH: &str = "The committee met on Tuesday to discuss the budget of the museum. \
        Several members asked for more time. \
        The old doctor Samoylenko lived in a small town by the river. Every morning he walked in the garden. \
        His wife loved flowers and roses. In winter the snow covered the roads, and nobody came to visit. \
        In the evening the doctor read books and the letters of his son. His son wrote rarely, but long letters. \
        The sad doctor sat by the window, silent. \
        The chairman closed the meeting at noon and the members went home for lunch.";

    fn lexicon() -> Lexicon {
        let pairs = PAIRS.iter().map(|(a, b)| WordPair { from: (*a).into(), to: (*b).into(), rank: 0 }).collect();
        Lexicon::from_pairs(&[("en".into(), "ru".into(), pairs)], &NormalizerConfig::default()).unwrap()
    }

    fn align(suspect: &str, source: &str, from: &str, to: &str) -> Vec<Block> {
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let s = fp.suspect(suspect);
        let n = names(suspect, &s.fingerprint.token_bytes, &s.fingerprint.terms, None);
        let translations = lexicon().translate(suspect, &s.fingerprint, &n, from, to);
        let query = Query::from(s);
        let source = Query::from_fingerprint(fp.fingerprint(source), 3, None).with_short_terms();
        let config = TranslatedConfig { min_passage_chars: 100, ..TranslatedConfig::default() };
        align_translated(&query, &translations, &source, &config)
    }

    #[test]
    fn a_translated_passage_is_found_with_both_spans_in_either_direction() {
        let blocks = align(ENGLISH, RUSSIAN, "en", "ru");
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let b = &blocks[0];
        let found = &ENGLISH[b.suspect.bytes.start..b.suspect.bytes.end];
        assert!(found.starts_with("The old doctor") && found.ends_with("silent."), "{found}");
        let source = &RUSSIAN[b.source.bytes.start..b.source.bytes.end];
        assert!(source.starts_with("Старый доктор") && source.ends_with("молча."), "{source}");
        assert!(b.evidence.translated && b.evidence.sentences && b.evidence.longest_run == 0);
        assert!(b.pairs.len() >= 4);
        assert!(b.evidence.confidence() > 0.5, "{:?}", b.evidence);
        // Each pair names its matched words, a suspect word beside the source word.
        let words: Vec<(&str, &str)> = b
            .pairs
            .iter()
            .flat_map(|p| &p.words)
            .map(|w| {
                (
                    &ENGLISH[w.suspect.bytes.start..w.suspect.bytes.end],
                    &RUSSIAN[w.source.bytes.start..w.source.bytes.end],
                )
            })
            .collect();
        for pair in [("doctor", "доктор"), ("garden", "сад"), ("roses", "розы")] {
            assert!(words.contains(&pair), "{pair:?} not in {words:?}");
        }

        let blocks = align(RUSSIAN, ENGLISH, "ru", "en");
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let found = &RUSSIAN[blocks[0].suspect.bytes.start..blocks[0].suspect.bytes.end];
        assert!(found.starts_with("Старый доктор") && found.ends_with("молча."), "{found}");
    }

    #[test]
    fn the_same_words_in_another_order_are_no_translation() {
        // Every sentence of the translation, but in reverse order: the words match
        // sentence by sentence, the order of the passage does not.
        let passage: Vec<&str> = ENGLISH.split_inclusive(". ").collect();
        let reversed: String = passage.iter().rev().copied().collect();
        assert!(align(&reversed, RUSSIAN, "en", "ru").is_empty());
        // A text of none of these words.
        assert!(align("The committee met on Tuesday. It rained. They went home.", RUSSIAN, "en", "ru").is_empty());
    }

    #[test]
    fn translations_of_another_text_or_none_give_nothing() {
        let mut fp = Fingerprinter::new(NormalizerConfig::default(), ShingleConfig::default()).unwrap();
        let query = Query::from(fp.suspect(ENGLISH));
        let source = Query::from_fingerprint(fp.fingerprint(RUSSIAN), 3, None);
        assert!(align_translated(&query, &Translations::default(), &source, &TranslatedConfig::default()).is_empty());
    }
}
