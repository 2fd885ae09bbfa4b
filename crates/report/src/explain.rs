//! What a notice means, in words a reviewer understands.
//!
//! Extraction's messages are technical (`look-alike letters of another script inside
//! words: 12 (first at byte 470)`). A reviewer needs to know what was found, why it
//! matters and what Tessera did about it; the renderers show [`Notice::explain`] and
//! mark each [`Notice::locations`] in the text. The web page words them the same way
//! (`crates/server/static/app.js`, `explainNotice`).

use crate::model::Notice;

/// Which alphabet borrowed letters from which, in the words a homoglyph notice points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// Latin letters inside Cyrillic words (`пpивeт`).
    LatinInCyrillic,
    /// Cyrillic letters inside Latin words (`hеllо`).
    CyrillicInLatin,
    /// Mixed or other scripts.
    Unknown,
}

fn is_cyrillic(c: char) -> bool {
    matches!(c, '\u{0400}'..='\u{04FF}' | '\u{0500}'..='\u{052F}')
}

/// Counts, over the located words, which script is the minority inside each word.
fn homoglyph_direction(notice: &Notice, text: &str) -> Direction {
    let (mut latin_in_cyrillic, mut cyrillic_in_latin) = (0usize, 0usize);
    for location in &notice.locations {
        let Some(word) = text.get(location.span.bytes.start..location.span.bytes.end) else { continue };
        let latin = word.chars().filter(char::is_ascii_alphabetic).count();
        let cyrillic = word.chars().filter(|&c| is_cyrillic(c)).count();
        if latin == 0 || cyrillic == 0 {
            continue;
        }
        if latin < cyrillic {
            latin_in_cyrillic += 1;
        } else if cyrillic < latin {
            cyrillic_in_latin += 1;
        }
    }
    match (latin_in_cyrillic, cyrillic_in_latin) {
        (0, 0) => Direction::Unknown,
        (_, 0) => Direction::LatinInCyrillic,
        (0, _) => Direction::CyrillicInLatin,
        _ => Direction::Unknown,
    }
}

/// `1 word`, `12 words`.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

impl Notice {
    /// What the notice means for a reviewer: what was found, why it matters and what
    /// Tessera did, in one or two sentences. `text` is the suspect's text the notice's
    /// locations point into (it tells which alphabet look-alike letters came from).
    /// Kinds it does not know keep their [`message`](Notice::message).
    #[must_use]
    pub fn explain(&self, text: &str) -> String {
        let n = self.count;
        match self.kind.as_str() {
            "homoglyphs" => {
                let letters = match homoglyph_direction(self, text) {
                    Direction::LatinInCyrillic => "Latin letters that look like Cyrillic ones",
                    Direction::CyrillicInLatin => "Cyrillic letters that look like Latin ones",
                    Direction::Unknown => "letters of another alphabet that look the same",
                };
                format!(
                    "{} {letters} (a common trick to hide copied text from a checker). Tessera read them as the letters they imitate.",
                    plural(n, "word uses", "words use")
                )
            }
            "invisible_characters" => format!(
                "{} invisible characters (such as zero-width spaces) that cut words apart for a checker but not for a reader. Tessera ignored them.",
                plural(n, "word contains", "words contain")
            ),
            "white_text" => format!(
                "{} of white text, invisible on the page, were found (a trick to add words only a checker sees). Tessera left them out of the checked text.",
                plural(n, "character", "characters")
            ),
            "tiny_text" => format!(
                "{} of text too small to read (2 pt or less) were found (a trick to add words only a checker sees). Tessera left them out of the checked text.",
                plural(n, "character", "characters")
            ),
            "hidden_text" => format!(
                "{} of text marked hidden were found (a trick to add words only a checker sees). Tessera left them out of the checked text.",
                plural(n, "character", "characters")
            ),
            "spaced_letters" => format!(
                "{} spelled with spaces or other characters between the letters (\u{201c}p l a g i a r i s m\u{201d}), a trick to hide words from a checker. Tessera read them as whole words.",
                plural(n, "word is", "words are")
            ),
            "space_substitutes" => format!(
                "{} between words replaced by other characters (a trick to glue words together for a checker). Tessera read them as spaces.",
                plural(n, "space was", "spaces were")
            ),
            _ => self.message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use tessera_normalize::Span;
    use tessera_search::TextSpan;

    use super::*;
    use crate::model::NoticeLocation;

    fn at(text: &str, word: &str) -> NoticeLocation {
        let start = text.find(word).unwrap();
        let end = start + word.len();
        let chars = |b: usize| text[..b].chars().count();
        NoticeLocation {
            span: TextSpan { bytes: Span { start, end }, chars: Span { start: chars(start), end: chars(end) } },
            page: None,
            paragraph: None,
        }
    }

    fn homoglyphs(text: &str, words: &[&str]) -> Notice {
        Notice {
            kind: "homoglyphs".into(),
            bypass: true,
            message: "look-alike letters of another script inside words".into(),
            count: words.len() as u64,
            locations: words.iter().map(|w| at(text, w)).collect(),
        }
    }

    #[test]
    fn homoglyphs_name_the_alphabets() {
        // "пpивeт" with Latin p and e; "hеllо" with Cyrillic е and о.
        let text = "пpивeт мир, hеllо world";
        assert_eq!(
            homoglyphs(text, &["пpивeт"]).explain(text),
            "1 word uses Latin letters that look like Cyrillic ones (a common trick to hide copied text from a checker). Tessera read them as the letters they imitate."
        );
        assert!(
            homoglyphs(text, &["hеllо"]).explain(text).starts_with("1 word uses Cyrillic letters that look like Latin")
        );
        assert!(
            homoglyphs(text, &["пpивeт", "hеllо"]).explain(text).starts_with("2 words use letters of another alphabet")
        );
    }

    #[test]
    fn hidden_text_counts_characters() {
        let notice =
            Notice { kind: "white_text".into(), bypass: true, message: String::new(), count: 120, locations: vec![] };
        assert!(notice.explain("").starts_with("120 characters of white text"));
    }

    #[test]
    fn unknown_kinds_keep_their_message() {
        let notice = Notice { kind: "damaged".into(), message: "damaged document".into(), ..Notice::default() };
        assert_eq!(notice.explain(""), "damaged document");
    }

    #[test]
    fn locations_outside_the_text_are_ignored() {
        let mut notice = homoglyphs("пpивeт", &["пpивeт"]);
        notice.locations[0].span.bytes = Span { start: 3, end: 999 };
        assert!(notice.explain("пpивeт").contains("another alphabet"));
    }
}
