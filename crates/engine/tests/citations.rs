//! End to end: sources indexed, a suspect that quotes some of them with references,
//! copies others, lists one in its bibliography and cites a legal text; the report
//! tells citations from borrowings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use tessera_engine::{
    AddMode, BlockKind, CollectionConfig, CollectionKind, Engine, EngineOptions, FingerprintSettings, Report,
};

/// Tolstoy, "Anna Karenina", opening.
const KARENINA: &str = "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских. Жена узнала, что муж был в связи с бывшею в их доме француженкою-гувернанткой, и объявила мужу, что не может жить с ним в одном доме.";
/// Chekhov, "The Lady with the Dog", opening.
const CHEKHOV: &str = "Говорили, что на набережной появилось новое лицо: дама с собачкой. Дмитрий Дмитрич Гуров, проживший в Ялте уже две недели и привыкший тут, тоже стал интересоваться новыми лицами. Сидя в павильоне у Верне, он видел, как по набережной прошла молодая дама, невысокого роста блондинка, в берете; за нею бежал белый шпиц.";
/// Dickens, "A Tale of Two Cities", opening.
const DICKENS: &str = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair.";
/// Austen, "Pride and Prejudice", opening.
const AUSTEN: &str = "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. However little known the feelings or views of such a man may be on his first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful property of some one or other of their daughters.";
/// A bibliographic record, as a library catalogue holds it.
const ENTRY: &str = "Толстой, Л. Н. Анна Каренина : роман в восьми частях / Лев Николаевич Толстой ; вступительная статья и комментарии Э. Г. Бабаева. — Москва : Художественная литература, 1985. — 799 с. — (Библиотека классики. Русская литература).";
/// The Constitution of the Russian Federation, article 44, parts 1 and 2.
const LAW: &str = "Каждому гарантируется свобода литературного, художественного, научного, технического и других видов творчества, преподавания. Интеллектуальная собственность охраняется законом. Каждый имеет право на участие в культурной жизни и пользование учреждениями культуры, на доступ к культурным ценностям.";

fn suspect() -> String {
    format!(
        "Введение. Эта работа написана автором самостоятельно: в ней мы сравниваем начала романов и рассказов, собранные нами за время учёбы.\n\n\
         Толстой начинает роман с обобщения: «{KARENINA}» [1, с. 7]. Мы видим, как быстро автор переходит от мысли к событиям.\n\n\
         Наш собственный пересказ другого рассказа звучит так. {CHEKHOV} Далее мы обсуждаем погоду на побережье и прогулки героев.\n\n\
         Dickens opens with a famous paradox: “{DICKENS}” (Dickens, 1859, p. 1). We return to this contrast later in our own words.\n\n\
         Another novel begins with an irony that many readers remember: “{AUSTEN}” Nothing tells the reader where this comes from.\n\n\
         Право на творчество закреплено так: {LAW} Этим правом пользуется каждый автор.\n\n\
         Список литературы\n\
         1. {ENTRY}\n\
         2. Диккенс Ч. Повесть о двух городах. — М. : Правда, 1988. — 416 с.\n"
    )
}

/// (kind, reason) of every block inside the first occurrence of `passage` in the
/// suspect, with the chars those blocks cover.
fn blocks_in(report: &Report, suspect: &str, passage: &str) -> Vec<(BlockKind, Option<String>, usize)> {
    let at = suspect.find(passage).expect("passage in suspect");
    let start = suspect[..at].chars().count();
    let end = start + passage.chars().count();
    report
        .blocks
        .iter()
        .filter(|b| b.suspect_span.chars.start < end && b.suspect_span.chars.end > start)
        .map(|b| (b.kind, b.reason.clone(), b.suspect_span.chars.end - b.suspect_span.chars.start))
        .collect()
}

#[test]
fn quotations_bibliography_and_legal_texts_are_citations() {
    let dir = tempfile::tempdir().unwrap();
    let engine =
        Engine::open_or_create(&dir.path().join("idx"), &FingerprintSettings::default(), EngineOptions::default())
            .unwrap();
    let library = CollectionConfig { name: "library".into(), kind: CollectionKind::Source, keep_texts: true };
    for (name, text) in [("karenina", KARENINA), ("chekhov", CHEKHOV), ("dickens", DICKENS), ("austen", AUSTEN)] {
        engine.add_text(&library, name, name, text, AddMode::All).unwrap();
    }
    let catalogue =
        format!("Российская государственная библиотека. Электронный каталог. {ENTRY} Хранение: основной фонд.");
    engine.add_text(&library, "catalogue", "Каталог РГБ", &catalogue, AddMode::All).unwrap();
    let law = CollectionConfig { name: "law".into(), kind: CollectionKind::Citation, keep_texts: false };
    engine.add_text(&law, "constitution", "Конституция Российской Федерации", LAW, AddMode::All).unwrap();

    let suspect = suspect();
    let report = engine.check_text("essay.txt", "Essay", &suspect).unwrap();
    let json = serde_json::to_string_pretty(&report).unwrap();

    let expect = |passage: &str, kind: BlockKind, reason: &str| {
        let found = blocks_in(&report, &suspect, passage);
        assert!(!found.is_empty(), "no block in {passage:?}\n{json}");
        for (k, r, _) in &found {
            assert_eq!(*k, kind, "{passage:?}\n{json}");
            assert_eq!(r.as_deref().unwrap_or(""), reason, "{passage:?}\n{json}");
        }
        found.iter().map(|(_, _, n)| *n as u64).sum::<u64>()
    };
    let mut cited = expect(KARENINA, BlockKind::Citation, "quoted with reference [1, с. 7]");
    let mut borrowed = expect(CHEKHOV, BlockKind::Borrowing, "");
    cited += expect(DICKENS, BlockKind::Citation, "quoted with reference (Dickens, 1859, p. 1)");
    borrowed += expect(AUSTEN, BlockKind::Borrowing, "");
    cited += expect(LAW, BlockKind::Citation, "citation collection \"law\"");
    cited += expect(ENTRY, BlockKind::Citation, "bibliography");
    assert_eq!(report.blocks.len(), 6, "{json}");

    let t = report.totals;
    assert_eq!((t.cited_chars, t.borrowed_chars), (cited, borrowed), "{json}");
    assert_eq!(t.cited_chars + t.borrowed_chars + t.original_chars, suspect.chars().count() as u64);
    assert!((t.borrowings + t.citations + t.originality - 100.0).abs() < 1e-9);
    assert!(t.citations > t.borrowings, "{t:?}");
}
