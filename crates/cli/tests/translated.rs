//! Translated borrowings through the binary: a Russian source indexed, an English thesis
//! translating a passage of it checked, with a small lexicon given as a `FROM-TO.tsv`
//! file (`TESSERA_DICTIONARIES`), so the test does not depend on the dictionary this
//! machine has; then the same without a dictionary (a notice, or an error with
//! `--cross-language on`), the pairwise `align`, and a language pair the code does not
//! know (German-English) given as a word list.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use serde_json::Value;
use support::run_env;

mod support;

const LEXICON: &str = "old\tстарый\ndoctor\tдоктор\nlived\tжить\nsmall\tмаленький\ntown\tгород\n\
    river\tрека\nevery\tкаждый\nmorning\tутро\nwalked\tходить\ngarden\tсад\nwife\tжена\nloved\tлюбить\n\
    flowers\tцветы\nroses\tрозы\nwinter\tзима\nsnow\tснег\ncovered\tпокрывать\nroads\tдороги\n\
    nobody\tникто\ncame\tприходить\nvisit\tгость\nevening\tвечер\nread\tчитать\nbooks\tкниги\n\
    letters\tписьма\nson\tсын\nwrote\tписать\nrarely\tредко\nlong\tдлинный\nsad\tгрустный\n\
    window\tокно\nsat\tсидеть\nsilent\tмолча\nspring\tвесна\nrain\tдождь\nsummer\tлето\n";

const RUSSIAN: &str = "Глава первая. Была весна и шёл дождь. Все ждали лета.\n\n\
    Старый доктор Самойленко жил в маленьком городе у реки. Каждое утро он ходил в сад. \
    Его жена любила цветы и розы. Зимой снег покрывал дороги, и никто не приходил в гости. \
    Вечером доктор читал книги и письма сына. Сын писал редко, но длинные письма. \
    Грустный доктор сидел у окна молча.\n\nПотом пришла осень. Дети пошли в школу. \
    Учитель рассказывал им о далёких странах, о морях и горах.\n";

const OTHER_RUSSIAN: &str = "Инженер строил мост через овраг. Рабочие носили камни и брёвна. \
    К осени мост был готов, и по нему поехали телеги с хлебом. Инженер уехал в столицу.\n";

const ENGLISH: &str = "The committee met on Tuesday to discuss the budget of the museum. \
    Several members asked for more time.\n\n\
    The old doctor Samoylenko lived in a small town by the river. Every morning he walked in the garden. \
    His wife loved flowers and roses. In winter the snow covered the roads, and nobody came to visit. \
    In the evening the doctor read books and the letters of his son. His son wrote rarely, but long letters. \
    The sad doctor sat by the window, silent.\n\n\
    The chairman closed the meeting at noon and the members went home for lunch.\n";

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// A workspace with `dict/en-ru.tsv`, `sources/` (two Russian texts) and `thesis.txt`.
fn workspace() -> tempfile::TempDir {
    let tmp = files(&[
        ("dict/en-ru.tsv", LEXICON),
        ("sources/doctor.txt", RUSSIAN),
        ("sources/bridge.txt", OTHER_RUSSIAN),
        ("thesis.txt", ENGLISH),
    ]);
    fs::create_dir_all(tmp.path().join("empty")).unwrap();
    tmp
}

/// A temporary folder holding these files (`(relative path, text)`), folders made.
fn files(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = tmp.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    tmp
}

fn check(dir: &Path, dictionaries: &str, extra: &[&str]) -> Value {
    let mut args = vec!["check", "--index", "lib", "--format", "json", "thesis.txt"];
    args.extend_from_slice(extra);
    json(&run_env(dir, &args, &[("TESSERA_DICTIONARIES", &dir.join(dictionaries))]).ok())
}

#[test]
fn a_passage_translated_from_an_indexed_russian_text_is_reported_as_a_translation() {
    let tmp = workspace();
    let dir = tmp.path();
    run_env(dir, &["index", "--index", "lib", "sources"], &[]).ok();
    let report = check(dir, "dict", &[]);
    let blocks = report["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{report:#}");
    let block = &blocks[0];
    assert_eq!(block["found_by"], "translation", "{block:#}");
    let text = |v: &Value| v.as_u64().unwrap() as usize;
    let chars: Vec<char> = ENGLISH.chars().collect();
    let span = &block["suspect_span"]["chars"];
    let suspect: String = chars[text(&span["start"])..text(&span["end"])].iter().collect();
    assert!(suspect.starts_with("The old doctor") && suspect.ends_with("silent."), "{suspect}");
    let sources = report["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 1);
    assert!(sources[0]["origin"].as_str().unwrap().ends_with("doctor.txt"), "{sources:#?}");
    assert!(report["suspect"]["warnings"].as_array().is_none_or(Vec::is_empty), "{report:#}");

    // Asked not to look across languages: nothing, and no notice.
    let off = check(dir, "dict", &["--cross-language", "off"]);
    assert!(off["blocks"].as_array().unwrap().is_empty(), "{off:#}");
}

#[test]
fn with_the_source_text_kept_the_sentence_pairs_mark_the_matched_words() {
    let tmp = workspace();
    let dir = tmp.path();
    run_env(dir, &["index", "--index", "lib", "--keep-texts", "sources"], &[]).ok();
    let report = check(dir, "dict", &[]);
    let block = &report["blocks"][0];
    let pairs = block["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 4, "{block:#}");
    let chars: Vec<char> = ENGLISH.chars().collect();
    let russian: Vec<char> = RUSSIAN.chars().collect();
    let text = |all: &[char], span: &Value| -> String {
        let at = |v: &Value| v.as_u64().unwrap() as usize;
        all[at(&span["chars"]["start"])..at(&span["chars"]["end"])].iter().collect()
    };
    let words: Vec<(String, String)> = pairs
        .iter()
        .flat_map(|p| p["words"].as_array().unwrap().iter())
        .map(|w| (text(&chars, &w["suspect"]), text(&russian, &w["source"])))
        .collect();
    assert!(words.contains(&("doctor".to_owned(), "доктор".to_owned())), "{words:?}");
    let html = run_env(
        dir,
        &["check", "--index", "lib", "--format", "html", "thesis.txt"],
        &[("TESSERA_DICTIONARIES", &dir.join("dict"))],
    )
    .ok();
    assert!(html.contains("<mark>doctor</mark>") && html.contains("<mark>доктор</mark>"), "no marked words");
    assert!(html.contains("translated from another language"));
}

#[test]
fn without_a_dictionary_the_check_says_so_and_on_is_an_error() {
    let tmp = workspace();
    let dir = tmp.path();
    run_env(dir, &["index", "--index", "lib", "sources"], &[]).ok();
    let report = check(dir, "empty", &[]);
    assert!(report["blocks"].as_array().unwrap().is_empty());
    let warnings = report["suspect"]["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w["kind"] == "cross_language_off"
            && w["message"].as_str().unwrap().contains("no bilingual dictionary is installed")),
        "{warnings:#?}"
    );
    let args = ["check", "--index", "lib", "--cross-language", "on", "thesis.txt"];
    run_env(dir, &args, &[("TESSERA_DICTIONARIES", &dir.join("empty"))])
        .fails(1, &["--cross-language on needs a bilingual dictionary", "empty"]);
}

#[test]
fn align_finds_the_translation_pairwise() {
    let tmp = workspace();
    let dir = tmp.path();
    fs::create_dir_all(dir.join("susp")).unwrap();
    fs::copy(dir.join("thesis.txt"), dir.join("susp/thesis.txt")).unwrap();
    fs::write(dir.join("pairs"), "thesis.txt doctor.txt\nthesis.txt bridge.txt\n").unwrap();
    let args = ["align", "--pairs", "pairs", "--src", "sources", "--susp", "susp", "--out", "out"];
    run_env(dir, &args, &[("TESSERA_DICTIONARIES", &dir.join("dict"))]).ok();
    let found = fs::read_to_string(dir.join("out/thesis-doctor.xml")).unwrap();
    assert!(found.contains("<feature name=\"detected-plagiarism\""), "{found}");
    let none = fs::read_to_string(dir.join("out/thesis-bridge.xml")).unwrap();
    assert!(!none.contains("<feature"), "{none}");
}

/// German is nowhere in the code: a `de-en.tsv` word list makes it a language pair.
#[test]
fn another_language_pair_is_a_word_list() {
    let tmp = files(&[
        ("dict/de-en.tsv", GERMAN_ENGLISH),
        ("sources/story.txt", STORY),
        ("sources/bridge.txt", BRIDGE),
        ("thesis.txt", GERMAN_THESIS),
    ]);
    let dir = tmp.path();
    run_env(dir, &["index", "--index", "lib", "sources"], &[]).ok();
    let report = check(dir, "dict", &[]);
    let blocks = report["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{report:#}");
    assert_eq!(blocks[0]["found_by"], "translation");
    assert!(blocks[0]["suspect_excerpt"].as_str().unwrap().starts_with("Der alte Arzt"), "{report:#}");
    assert!(report["sources"][0]["origin"].as_str().unwrap().ends_with("story.txt"));
}

const GERMAN_ENGLISH: &str = r#"alte	old
alt	old
arzt	doctor
lebte	lived
leben	live
kleinen	small
klein	small
stadt	town
fluss	river
jeden	every
morgen	morning
ging	walked
garten	garden
frau	wife
liebte	loved
blumen	flowers
rosen	roses
winter	winter
schnee	snow
bedeckte	covered
straßen	roads
niemand	nobody
kam	came
besuch	visit
abend	evening
las	read
bücher	books
briefe	letters
sohn	son
schrieb	wrote
selten	rarely
lange	long
traurige	sad
fenster	window
saß	sat
schweigend	silent
"#;

const STORY: &str = r#"It was a long time ago, in the days when every man knew his neighbours. The people of the valley worked hard all year.

The old doctor lived in a small town by the river. Every morning he walked in the garden. His wife loved flowers and roses. In winter the snow covered the roads, and nobody came to visit. In the evening the doctor read books and the letters of his son. His son wrote rarely, but long letters. The sad doctor sat by the window, silent.

Then the spring came, and the children went back to school. The little bridge was mended at last, and life went on as it had for many years.
"#;

const BRIDGE: &str = r#"The engineer built a bridge across the ravine. The workers carried stones and logs every day. By autumn the bridge was ready, and carts full of grain crossed it. The engineer went back to the capital, and nobody thought of him for a long time.
"#;

const GERMAN_THESIS: &str = r#"Die Kommission tagte am Dienstag, um über den Haushalt des Museums zu sprechen. Mehrere Mitglieder baten um mehr Zeit, und die Sitzung dauerte bis zum Abend.

Der alte Arzt lebte in einer kleinen Stadt am Fluss. Jeden Morgen ging er in den Garten. Seine Frau liebte Blumen und Rosen. Im Winter bedeckte der Schnee die Straßen, und niemand kam zu Besuch. Am Abend las der Arzt Bücher und die Briefe seines Sohnes. Sein Sohn schrieb selten, aber lange Briefe. Der traurige Arzt saß schweigend am Fenster.

Der Vorsitzende schloss die Sitzung am Mittag, und die Mitglieder gingen nach Hause, um zu Mittag zu essen. Es war ein ruhiger Tag in der Stadt.
"#;
