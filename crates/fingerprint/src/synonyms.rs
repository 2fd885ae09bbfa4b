//! English word neighbours from WordNet 3.0, as terms: two terms are *neighbours* when
//! they share a *concept*. Alignment (in `tessera-search`) lets a source term stand for a
//! neighbour in the suspect: reworders swap words for synonyms, more general or
//! more specific words and opposites ("write" -> "compose", "poem" -> "verse",
//! "easy" -> "difficult"), which exact terms cannot see.
//!
//! The table (`data/wordnet-en.txt.gz`, made by `scripts/wordnet_concepts.py` from
//! Debian's `wordnet-base`; licence in `data/WORDNET-LICENSE`) holds one line per
//! one-word WordNet lemma: the word, the hexadecimal ids of its *own* concepts (every
//! synset holding the word), `;`, then its *related* concepts: each own synset's
//! hypernyms (`@`, `@i`), antonyms (`!`) and, for adjectives, similar synsets (`&`). Two
//! terms are neighbours when an own concept of one is an own or related concept of the
//! other; two hyponyms of one word ("dog", "wolf") share only a related concept and are
//! not neighbours. Words are kept as written, not as terms, so the
//! table does not depend on the normalizer: [`Synonyms::english`] makes each word's term
//! with the normalizer settings of the index, and the table follows any change in them.

use std::fmt;
use std::io::Read;
use std::sync::{Arc, Mutex, OnceLock};

use foldhash::{HashMap, HashMapExt};
use tessera_normalize::{Normalizer, NormalizerConfig};

use crate::Error;

/// The WordNet table, gzip-compressed (1.2 MB; 2.7 MB as text).
const WORDNET_EN: &[u8] = include_bytes!("../data/wordnet-en.txt.gz");

/// The tables built so far in this process, by the normalizer settings they were made with.
type Built = Vec<(NormalizerConfig, Arc<Synonyms>)>;

/// Concepts of terms (keyed by a term's low 32 bits, as snapshots store terms).
pub struct Synonyms {
    /// Low 32 bits of a term -> where its concepts start in `concepts`, how many are its
    /// own, how many in all (own first, then related).
    index: HashMap<u32, (u32, u32, u32)>,
    /// Concept ids: each term's own ones sorted, then its related ones sorted.
    concepts: Vec<u32>,
    /// Low 32 bits of a term -> the full term (the first one seen, should two share them).
    full: HashMap<u32, u64>,
    /// Concept -> the terms owning it (low 32 bits, sorted): its synset's words.
    members: HashMap<u32, Vec<u32>>,
}

impl fmt::Debug for Synonyms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Synonyms").field("terms", &self.index.len()).field("concepts", &self.concepts.len()).finish()
    }
}

impl Synonyms {
    /// The English WordNet table with terms made by a normalizer of `config` (its
    /// language forced to English unless `config` forces another: then words are
    /// stemmed as that language's documents are). Built once per process and settings
    /// (about 0.2 s), then shared.
    pub fn english(config: &NormalizerConfig) -> Result<Arc<Self>, Error> {
        static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
        let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
        // A poisoned lock only means another thread panicked while building: the list
        // itself is always whole (one push).
        let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = built.iter().find(|(c, _)| c == config) {
            return Ok(Arc::clone(s));
        }
        let mut text = String::new();
        flate2::read::GzDecoder::new(WORDNET_EN)
            .read_to_string(&mut text)
            .map_err(|e| Error::Synonyms(format!("the built-in WordNet table is damaged: {e}")))?;
        let mut forced = config.clone();
        forced.language.get_or_insert_with(|| "en".to_owned());
        let mut normalizer = Normalizer::new(forced)
            .map_err(|e| Error::Synonyms(format!("no normalizer for the WordNet table: {e}")))?;
        let synonyms = Arc::new(Self::from_table(&text, |word| {
            let normalized = normalizer.normalize(word);
            match normalized.tokens.as_slice() {
                [token] => Some(token.term),
                _ => None,
            }
        })?);
        built.push((config.clone(), Arc::clone(&synonyms)));
        Ok(synonyms)
    }

    /// A table from lines `word own own ... ; related related ...`, each word's term
    /// given by `term_of` (`None` drops the word: a stop word, or not one word). Words
    /// with the same term (inflections of one stem) pool their concepts; a concept own to
    /// one of them is own to the term.
    pub fn from_table(table: &str, mut term_of: impl FnMut(&str) -> Option<u64>) -> Result<Self, Error> {
        let mut pooled: HashMap<u32, (Vec<u32>, Vec<u32>)> = HashMap::new();
        let mut full: HashMap<u32, u64> = HashMap::new();
        for (number, line) in table.lines().enumerate() {
            let mut fields = line.split_ascii_whitespace();
            let Some(word) = fields.next() else { continue };
            let (mut own, mut related) = (Vec::new(), Vec::new());
            let mut in_related = false;
            for field in fields {
                if field == ";" {
                    in_related = true;
                    continue;
                }
                let id = u32::from_str_radix(field, 16)
                    .map_err(|e| Error::Synonyms(format!("line {} of the WordNet table: {e}", number + 1)))?;
                if in_related { related.push(id) } else { own.push(id) }
            }
            if let Some(term) = term_of(word) {
                full.entry(term as u32).or_insert(term);
                let entry = pooled.entry(term as u32).or_default();
                entry.0.extend(own);
                entry.1.extend(related);
            }
        }
        let mut keys: Vec<u32> = pooled.keys().copied().collect();
        keys.sort_unstable();
        let mut index = HashMap::with_capacity(keys.len());
        let mut concepts = Vec::new();
        let mut members: HashMap<u32, Vec<u32>> = HashMap::new();
        for key in keys {
            let (mut own, mut related) = pooled.remove(&key).unwrap_or_default();
            own.sort_unstable();
            own.dedup();
            related.sort_unstable();
            related.dedup();
            related.retain(|c| own.binary_search(c).is_err());
            index.insert(key, (concepts.len() as u32, own.len() as u32, (own.len() + related.len()) as u32));
            // Keys come in ascending order, so each concept's members are sorted.
            for &c in &own {
                members.entry(c).or_default().push(key);
            }
            concepts.extend(own);
            concepts.extend(related);
        }
        Ok(Self { index, concepts, full, members })
    }

    /// A term's own and related concepts ([`Self::own`], [`Self::related`]) in one look-up.
    pub fn senses(&self, term: u64) -> (&[u32], &[u32]) {
        match self.index.get(&(term as u32)) {
            Some(&(start, own, all)) => {
                let (start, own, all) = (start as usize, own as usize, all as usize);
                (&self.concepts[start..start + own], &self.concepts[start + own..start + all])
            }
            None => (&[], &[]),
        }
    }

    /// A term's own concepts (the synsets holding its words), sorted; empty for a term
    /// WordNet lacks.
    pub fn own(&self, term: u64) -> &[u32] {
        self.senses(term).0
    }

    /// A term's related concepts (hypernyms, opposites, similar adjectives of its own
    /// ones, not its own), sorted.
    pub fn related(&self, term: u64) -> &[u32] {
        self.senses(term).1
    }

    /// A term's synonyms: the other terms owning one of its own concepts (the words of
    /// its synsets), as full terms, sorted and distinct; empty for a term WordNet lacks.
    /// Narrower than [`Self::neighbours`], which also pairs a word with its hypernyms and
    /// opposites.
    pub fn synonyms(&self, term: u64) -> Vec<u64> {
        let key = term as u32;
        let mut out: Vec<u64> = self
            .own(term)
            .iter()
            .filter_map(|c| self.members.get(c))
            .flatten()
            .filter(|&&k| k != key)
            .filter_map(|k| self.full.get(k).copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether two terms are neighbours: an own concept of one is an own or related
    /// concept of the other.
    pub fn neighbours(&self, a: u64, b: u64) -> bool {
        let ((own_a, related_a), (own_b, related_b)) = (self.senses(a), self.senses(b));
        meet(own_a, own_b) || meet(own_a, related_b) || meet(related_a, own_b)
    }
}

/// Whether two sorted lists share an element.
fn meet(x: &[u32], y: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small table: "big" and "large" share synset 10; "animal" is synset 20, the
    /// hypernym of "dog" (30) and "cat" (40); "small" (50) is the opposite of "big".
    const TABLE: &str = "big a ; 32\nlarge a\nanimal 14\ndog 1e ; 14\ncat 28 ; 14\nsmall 32 ; a\nbigger a ; 32\n";

    fn table() -> Synonyms {
        // Terms: the word's length in letters times 1000 plus its first letter, with
        // "bigger" sharing the stem of "big" as inflections do.
        Synonyms::from_table(TABLE, |w| {
            let w = if w == "bigger" { "big" } else { w };
            Some(w.len() as u64 * 1000 + u64::from(w.as_bytes()[0]))
        })
        .unwrap()
    }

    fn term(w: &str) -> u64 {
        w.len() as u64 * 1000 + u64::from(w.as_bytes()[0])
    }

    #[test]
    fn synonyms_are_the_other_words_of_a_terms_synsets() {
        let t = table();
        assert_eq!(t.synonyms(term("big")), vec![term("large")]);
        assert_eq!(t.synonyms(term("large")), vec![term("big")]);
        // A hypernym or an opposite is a neighbour, not a synonym.
        assert!(t.neighbours(term("dog"), term("animal")));
        assert!(t.synonyms(term("dog")).is_empty());
        assert!(t.synonyms(term("small")).is_empty());
        assert!(t.synonyms(term("unknown")).is_empty());
    }

    #[test]
    fn table_lines_give_own_and_related_concepts() {
        let t = table();
        assert_eq!(t.own(term("big")), &[0xa]);
        assert_eq!(t.related(term("big")), &[0x32]);
        assert_eq!(t.senses(term("dog")), (&[0x1e][..], &[0x14][..]));
        assert_eq!(t.own(term("large")), &[0xa]);
        assert!(t.related(term("large")).is_empty());
        assert!(t.own(term("unknown")).is_empty());
    }

    #[test]
    fn neighbours_are_synonyms_hypernyms_and_opposites_not_siblings() {
        let t = table();
        assert!(t.neighbours(term("big"), term("large")), "synonyms");
        assert!(t.neighbours(term("dog"), term("animal")), "a word and its hypernym");
        assert!(t.neighbours(term("animal"), term("cat")), "both ways");
        assert!(t.neighbours(term("big"), term("small")), "opposites");
        assert!(!t.neighbours(term("dog"), term("cat")), "two hyponyms of one word");
        assert!(!t.neighbours(term("dog"), term("unknown")));
    }

    #[test]
    fn inflections_pool_and_own_wins_over_related() {
        // A concept own to one word of a term and related to another is own to the term.
        let t = Synonyms::from_table("big a ; 32\nbigger 32 ; a\n", |_| Some(7)).unwrap();
        assert_eq!(t.own(7), &[0xa, 0x32]);
        assert!(t.related(7).is_empty());
    }

    #[test]
    fn a_damaged_table_line_is_named() {
        let err = Synonyms::from_table("big a\nlarge zz\n", |_| Some(1)).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn the_built_in_english_table_relates_real_words() {
        let config = NormalizerConfig::default();
        let t = Synonyms::english(&config).unwrap();
        assert!(Arc::ptr_eq(&t, &Synonyms::english(&config).unwrap()), "built once per settings");
        let mut normalizer = Normalizer::new(NormalizerConfig { language: Some("en".into()), ..config }).unwrap();
        let mut term = |w: &str| normalizer.normalize(w).tokens[0].term;
        let (write, compose, poem, verse) = (term("write"), term("compose"), term("poem"), term("verse"));
        assert!(t.neighbours(write, compose));
        assert!(t.neighbours(poem, verse), "a word and its hypernym");
        assert!(t.neighbours(term("easy"), term("difficult")), "opposites");
        assert!(t.neighbours(term("writes"), term("composing")), "inflections stem to the same terms");
        assert!(!t.neighbours(term("dog"), term("wolf")), "two hyponyms of canine");
        assert!(!t.neighbours(write, term("river")));
    }
}
