//! Fixtures shared by the integration tests: real passages and hand-made revisions.
#![allow(dead_code, clippy::unwrap_used)]

use tessera_core::{CollectionKind, DocId};
use tessera_normalize::Span;
use tessera_report::{Report, ReportOptions, SourceInfo, SuspectInfo};
use tessera_search::{Block, Evidence, Revision, SourceMatch, TextSpan};

/// Tolstoy, "Anna Karenina", opening (257 chars, 464 bytes).
pub const RU: &str = "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских. Жена узнала, что муж был в связи с бывшею в их доме француженкою-гувернанткой, и объявила мужу, что не может жить с ним в одном доме.";

/// Dickens, "A Tale of Two Cities", opening, quoted in an essay (228 chars, ASCII).
pub const EN: &str = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness. As Dickens wrote, \"it was the epoch of belief, it was the epoch of incredulity\" [1]. The rest of this essay is my own.";

/// A prefix the first Russian source has before the shared text (29 chars).
pub const RU_SOURCE_PREFIX: &str = "Анна Каренина. Часть первая. ";

/// The span of chars `[start, end)` of `text`, with its byte range.
pub fn span(text: &str, start: usize, end: usize) -> TextSpan {
    let byte = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(b, _)| b);
    TextSpan { bytes: Span { start: byte(start), end: byte(end) }, chars: Span { start, end } }
}

/// A block matching suspect chars `[start, end)` to source chars `src`.
pub fn block(suspect: &str, start: usize, end: usize, source: TextSpan) -> Block {
    Block {
        suspect: span(suspect, start, end),
        source,
        suspect_tokens: Span { start: 0, end: 0 },
        source_tokens: Span { start: 0, end: 0 },
        matched_shingles: 1,
        evidence: Evidence { longest_run: 8, ..Evidence::default() },
        pairs: Vec::new(),
    }
}

/// A block whose source span mirrors the suspect span (the source has the same text).
pub fn same(suspect: &str, start: usize, end: usize) -> Block {
    block(suspect, start, end, span(suspect, start, end))
}

pub fn source_match(doc: u64, blocks: Vec<Block>) -> SourceMatch {
    SourceMatch { doc: DocId(doc), shared_hashes: 1, blocks, copy_of: None }
}

pub fn revision(collection: &str, kind: CollectionKind, sources: Vec<SourceMatch>) -> Revision {
    Revision { collection: collection.to_owned(), kind, sources }
}

pub fn info(doc: u64, collection: &str, kind: CollectionKind, title: &str, origin: &str) -> SourceInfo {
    SourceInfo {
        doc: DocId(doc),
        collection: collection.to_owned(),
        kind,
        title: title.to_owned(),
        origin: origin.to_owned(),
        seen_at: Vec::new(),
        text: None,
    }
}

/// The Russian case. Blocks (suspect chars):
/// - source 1 (web, rank 1): `[0, 41)` "Все счастливые семьи похожи друг на друга" and
///   `[92, 122)` "Всё смешалось в доме Облонских"; its text is kept, 29 chars longer at the start;
/// - source 2 (web, rank 2): `[0, 90)`, the whole first sentence without its full stop;
/// - source 3 (theses, rank 3): `[92, 201)`, "Всё смешалось ... гувернанткой".
pub fn russian() -> Report {
    russian_with(&ReportOptions::default())
}

/// [`russian`] built with `options`.
pub fn russian_with(options: &ReportOptions) -> Report {
    let source_text = format!("{RU_SOURCE_PREFIX}{RU}");
    let p = RU_SOURCE_PREFIX.chars().count();
    let revisions = vec![
        revision(
            "web",
            CollectionKind::Source,
            vec![
                source_match(
                    1,
                    vec![
                        block(RU, 0, 41, span(&source_text, p, p + 41)),
                        block(RU, 92, 122, span(&source_text, p + 92, p + 122)),
                    ],
                ),
                source_match(2, vec![same(RU, 0, 90)]),
            ],
        ),
        revision("theses", CollectionKind::Source, vec![source_match(3, vec![same(RU, 92, 201)])]),
    ];
    let mut first = info(
        1,
        "web",
        CollectionKind::Source,
        "Анна Каренина — Лев Толстой",
        "https://ru.wikisource.org/wiki/Анна_Каренина",
    );
    first.text = Some(source_text);
    let sources = vec![
        first,
        info(2, "web", CollectionKind::Source, "Цитаты о семье", "https://example.org/quotes/family"),
        info(
            3,
            "theses",
            CollectionKind::Source,
            "Курсовая работа по русской литературе, 2019",
            "/archive/theses/2019/kursovaya-17.docx",
        ),
    ];
    Report::build(SuspectInfo::new("sochinenie.docx", "Сочинение о семье", RU), &revisions, &sources, options)
}

/// [`russian`] with two copies found by the search: source 4 holds the second sentence
/// that source 3 was aligned on (its block starts 12 characters earlier, in text source
/// 3's block does not cover), and source 5, ranked first, holds the first sentence that
/// source 1 was aligned on.
pub fn russian_with_copies() -> Report {
    let report = russian();
    let mut copy_of_3 = source_match(4, vec![same(RU, 80, 201)]);
    copy_of_3.copy_of = Some(DocId(3));
    let mut copy_of_1 = source_match(5, vec![same(RU, 0, 90)]);
    copy_of_1.copy_of = Some(DocId(1));
    let web = revision(
        "web",
        CollectionKind::Source,
        vec![
            copy_of_1,
            source_match(
                1,
                vec![
                    block(RU, 0, 41, span(&format!("{RU_SOURCE_PREFIX}{RU}"), 29, 70)),
                    block(RU, 92, 122, span(&format!("{RU_SOURCE_PREFIX}{RU}"), 121, 151)),
                ],
            ),
            source_match(2, vec![same(RU, 0, 90)]),
        ],
    );
    let theses = revision("theses", CollectionKind::Source, vec![source_match(3, vec![same(RU, 92, 201)]), copy_of_3]);
    let infos: Vec<_> = [1, 2, 3, 4, 5].iter().map(|&d| info(d, "web", CollectionKind::Source, "", "")).collect();
    let built = Report::build(SuspectInfo::new("s.txt", "", RU), &[web, theses], &infos, &ReportOptions::default());
    assert_eq!(built.totals, report.totals, "copies change nothing while their sources count");
    built
}

/// The English case. Blocks (suspect chars):
/// - source 10 (web, rank 1): `[0, 51)` "It was the best of times, it was the worst of times";
/// - source 11 (web, rank 2): `[60, 108)` "the age of wisdom, it was the age of foolishness";
/// - source 12 (web, rank 3): `[129, 188)` the quoted sentence;
/// - source 20 (quotes, citation, rank 4): `[26, 77)` "it was the worst ... age of wisdom",
///   overlapping sources 10 and 11 but inside neither;
/// - source 21 (quotes, citation, rank 5): `[129, 155)` "it was the epoch of belief",
///   wholly inside source 12's block.
///
/// Built with quotation detection off, so the kinds come from the collections alone
/// (source 12's block is the quoted sentence followed by `[1]`: with detection on,
/// [`english_detected`], it is a citation).
pub fn english() -> Report {
    english_with(&ReportOptions { detect_quotations: false, ..ReportOptions::default() })
}

/// [`english`] with the default options: quotation detection on.
pub fn english_detected() -> Report {
    english_with(&ReportOptions::default())
}

/// [`english`] built with `options`.
pub fn english_with(options: &ReportOptions) -> Report {
    let revisions = vec![
        revision(
            "web",
            CollectionKind::Source,
            vec![
                source_match(10, vec![same(EN, 0, 51)]),
                source_match(11, vec![same(EN, 60, 108)]),
                source_match(12, vec![same(EN, 129, 188)]),
            ],
        ),
        revision(
            "quotes",
            CollectionKind::Citation,
            vec![source_match(20, vec![same(EN, 26, 77)]), source_match(21, vec![same(EN, 129, 155)])],
        ),
    ];
    let mut dickens =
        info(10, "web", CollectionKind::Source, "A Tale of Two Cities", "https://www.gutenberg.org/ebooks/98");
    dickens.text = Some(EN.to_owned());
    let sources = vec![
        dickens,
        info(11, "web", CollectionKind::Source, "", "https://example.com/essays/dickens-themes"),
        info(12, "web", CollectionKind::Source, "Study guide: Book the First", "https://example.net/guide/1"),
        info(20, "quotes", CollectionKind::Citation, "Famous opening lines", "quotes/openings.txt"),
        info(21, "quotes", CollectionKind::Citation, "Common expressions", "quotes/expressions.txt"),
    ];
    Report::build(
        SuspectInfo::new("essay.txt", "On the opening of A Tale of Two Cities", EN),
        &revisions,
        &sources,
        options,
    )
}

/// The chars of the only occurrence of `needle` in `text`.
pub fn find(text: &str, needle: &str) -> TextSpan {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
    assert!(text[at + needle.len()..].find(needle).is_none(), "{needle:?} occurs twice");
    let start = text[..at].chars().count();
    span(text, start, start + needle.chars().count())
}

/// The block matching `needle` in `suspect` with its occurrence in `source`.
pub fn matched(suspect: &str, source: &str, needle: &str) -> Block {
    let s = find(suspect, needle);
    block(suspect, s.chars.start, s.chars.end, find(source, needle))
}

/// A Russian essay quoting "Anna Karenina" three ways, with a bibliography.
pub const RU_QUOTED: &str = "Роман открывается афоризмом: «Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему» [3, с. 7]. Эту мысль часто повторяют без кавычек: все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Бывает и так: «Жена узнала, что муж был в связи с бывшею в их доме француженкою-гувернанткой», но источник не назван.\n\nСписок литературы\n1. Иванов И. И. Семья в романе. — СПб. : Наука, 2012. — 240 с.\n2. Толстой Л. Н. Анна Каренина : роман в восьми частях. — М. : Эксмо, 2015. — 800 с.\n";

/// A library catalogue record, indexed as a source.
pub const RU_CATALOGUE: &str = "Каталог РГБ. Толстой Л. Н. Анна Каренина : роман в восьми частях. — М. : Эксмо, 2015. — 800 с. Шифр хранения: 84(2Рос=Рус)1.";

/// The passage quoted in «» with `[3, с. 7]`.
pub const RU_Q1: &str = "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему";
/// The same passage, copied without quotation marks (lower-case first letter).
pub const RU_Q2: &str = "все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему";
/// The passage quoted in «» without a reference.
pub const RU_Q3: &str = "Жена узнала, что муж был в связи с бывшею в их доме француженкою-гувернанткой";
/// The bibliography entry that matches the catalogue record.
pub const RU_Q4: &str = "Толстой Л. Н. Анна Каренина : роман в восьми частях. — М. : Эксмо, 2015. — 800 с.";

/// [`RU_QUOTED`] checked against "Anna Karenina" (source 1, text kept) and the
/// catalogue record (source 2): blocks for [`RU_Q1`] .. [`RU_Q4`].
pub fn russian_quoted(options: &ReportOptions) -> Report {
    let lower = RU.replacen("Все", "все", 1);
    let revisions = vec![revision(
        "web",
        CollectionKind::Source,
        vec![
            source_match(
                1,
                vec![matched(RU_QUOTED, RU, RU_Q1), matched(RU_QUOTED, &lower, RU_Q2), matched(RU_QUOTED, RU, RU_Q3)],
            ),
            source_match(2, vec![matched(RU_QUOTED, RU_CATALOGUE, RU_Q4)]),
        ],
    )];
    let mut karenina = info(
        1,
        "web",
        CollectionKind::Source,
        "Анна Каренина — Лев Толстой",
        "https://ru.wikisource.org/wiki/Анна_Каренина",
    );
    karenina.text = Some(RU.to_owned());
    let catalogue =
        info(2, "web", CollectionKind::Source, "Каталог РГБ", "https://search.rsl.ru/ru/record/01007654321");
    Report::build(
        SuspectInfo::new("esse.txt", "Эссе об «Анне Карениной»", RU_QUOTED),
        &revisions,
        &[karenina, catalogue],
        options,
    )
}
