//! Texts and queries the alignment tests share.

use tessera_normalize::Span;

use crate::Query;

/// A text fingerprinted as the engine does it (default settings), with terms and
/// sentences.
pub(super) fn text_query(text: &str) -> Query {
    let mut normalizer = tessera_normalize::Normalizer::new(tessera_normalize::NormalizerConfig::default()).unwrap();
    let shingler = tessera_fingerprint::Shingler::new(tessera_fingerprint::ShingleConfig::default()).unwrap();
    let tokens = normalizer.normalize(text).tokens;
    let terms: Vec<u64> = tokens.iter().map(|t| t.term).collect();
    let token_bytes: Vec<Span> = tokens.iter().map(|t| t.span).collect();
    let chars = |b: usize| text[..b].chars().count();
    let token_chars = token_bytes.iter().map(|s| Span { start: chars(s.start), end: chars(s.end) }).collect();
    let names = tessera_fingerprint::names(text, &token_bytes, &terms, Some("en"));
    let sentences = tessera_fingerprint::sentences(text, &token_bytes, tessera_fingerprint::MAX_SENTENCE_TERMS);
    Query {
        hashes: shingler.hashes(&terms),
        sentence_edges: tessera_fingerprint::sentence_edges(text, &token_bytes, &sentences),
        sentences,
        token_bytes,
        token_chars,
        shingle_size: 3,
        terms,
        synonyms: Some(
            tessera_fingerprint::Synonyms::english(&tessera_normalize::NormalizerConfig::default()).unwrap(),
        ),
        names,
        variant_shingles: Vec::new(),
        cross: None,
    }
}

/// Byte span of `needle` in `hay`.
pub(super) fn find(hay: &str, needle: &str) -> Span {
    let start = hay.find(needle).unwrap_or_else(|| panic!("{needle:?} not found"));
    Span { start, end: start + needle.len() }
}

pub(super) const EN_SOURCE_PASSAGE: &str = "The river freezes early in November and the ice stays until late April. \
    During these months trucks drive across the frozen surface to reach the northern villages. \
    Every spring the melting ice blocks the narrow channels and floods the low meadows. \
    Farmers move their cattle to the hills before the water rises.";
/// The same passage with words shuffled inside sentences and some replaced by synonyms
/// (random obfuscation as in PAN): hardly a 3-word shingle survives.
pub(super) const EN_OBFUSCATED: &str = "In November early the river freezes, and until late April ice stays there. \
    Lorries during these months drive to the northern villages, across the surface frozen. \
    Each spring narrow channels are blocked by melting ice, and low meadows are flooded. \
    Before the water rises cattle are moved by farmers to hills.";
pub(super) const EN_SOURCE_BEFORE: &str = "Fishing cooperatives were founded along the coast in the last century. \
    Their boats sold herring and cod to merchants in the southern ports. ";
pub(super) const EN_SOURCE_AFTER: &str = " A railway line was planned several times, but the marshes made construction too expensive. \
    Today a single airstrip connects the district with the regional capital.";
pub(super) const EN_SUSPECT_BEFORE: &str = "My essay begins with a personal note about a summer spent in the mountains, \
    where I learned to paint watercolours of old churches. ";
pub(super) const EN_SUSPECT_AFTER: &str = " Later chapters describe the computer games I enjoyed as a child \
    and the music of my favourite band.";
/// PAN-style random obfuscation: most content words swapped for WordNet neighbours
/// (synonyms, hypernyms, hyponyms), few left as they were.
pub(super) const EN_REWORDED_SOURCE: &str = "The committee approved the new budget after a long debate about taxes. \
    Several members argued that the city must repair its old bridges before winter arrives. \
    The mayor promised to publish a detailed report on the spending every month.";
pub(super) const EN_REWORDED: &str = "The commission sanctioned the fresh budget following a lengthy argument about revenue enhancement. \
    Several members contended that the metropolis must mend its aged span before wintertime comes. \
    The city manager pledged to print an elaborate account on the outlay every calendar month.";
