//! Whole runs of the `tessera` binary in temporary directories: snapshots of every
//! command's output on the bundled demo texts, then bad input (files, index directories,
//! a second writer, arguments), each of which must fail cleanly and leave the index as
//! it was.
//!
//! Runs use relative paths from the temporary directory (`current_dir`), so outputs hold
//! no absolute temporary paths; the only redaction is the timing figure of `index`.
//! Snapshots live in `tests/snapshots/`; after an intended change of output, regenerate
//! them with `INSTA_UPDATE=always cargo test -p tessera-cli` and review the diff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use insta::assert_snapshot;
use serde_json::Value;
use support::{Run, build_index, copy_dir, demo_text, indexed, json, run as tessera, workspace};
use tempfile::TempDir;

mod support;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// `index`'s text summary with its timing figure (`in 0.01 s`) redacted.
fn redact_seconds(summary: &str) -> String {
    summary
        .lines()
        .map(|line| match (line.find(" in "), line.find(" s;")) {
            (Some(a), Some(b)) if a < b => format!("{} in [SECONDS]{}", &line[..a], &line[b..]),
            _ => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The state of an index as the CLI sees it: `stats --format json` and the JSON report of
/// the demo thesis. Equal before and after a failed command means the index is intact.
fn index_state(dir: &Path, index: &str) -> (String, String) {
    let stats = tessera(dir, &["stats", "--index", index, "--format", "json"]).ok();
    let report = tessera(dir, &["check", "--index", index, "--format", "json", "demo/thesis.txt"]).ok();
    let parsed = json(&stats);
    let docs: u64 = parsed["collections"].as_array().unwrap().iter().map(|c| c["docs"].as_u64().unwrap()).sum();
    assert_eq!(docs, 4, "the demo index holds 4 documents:\n{stats}");
    (stats, report)
}

/// Highlights and structural lines of an HTML report (the page itself is large: styles).
fn html_outline(html: &str) -> String {
    let mut out = Vec::new();
    for line in html.lines() {
        let structural = ["<title>", "<h1>", "<p class=\"meta\">", "<div class=\"total ", "<tr id=\"src-"]
            .iter()
            .any(|p| line.starts_with(p))
            || line.contains("class=\"note-head\"");
        if structural {
            out.push(line.to_owned());
        }
    }
    // Every highlighted passage: the anchor's class and target, and its text.
    let mut rest = html;
    while let Some(start) = rest.find("<a class=\"m ") {
        let tail = &rest[start..];
        let tag_end = tail.find("\">").expect("anchor tag ends") + 2;
        let text_end = tail.find("</a>").expect("anchor closes");
        let tag = &tail[..tag_end];
        let head = &tag[..tag.find(" style=").unwrap_or(tag.len())];
        out.push(format!("{head}> {:?}", &tail[tag_end..text_end]));
        rest = &tail[text_end..];
    }
    out.join("\n")
}

/// Deterministic pseudo-random bytes (xorshift64*).
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed >> 12;
            seed ^= seed << 25;
            seed ^= seed >> 27;
            (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

/// Character offset of byte offset `byte` of `text`.
fn chars(text: &str, byte: usize) -> u64 {
    text[..byte].chars().count() as u64
}

// ---------------------------------------------------------------------------------------
// 1. Snapshots of whole runs on the demo texts
// ---------------------------------------------------------------------------------------

#[test]
fn index_summaries() {
    let tmp = workspace();
    let (library, citations) = build_index(tmp.path(), "lib");
    assert_snapshot!("index_library", redact_seconds(&library));
    assert_snapshot!("index_citations", redact_seconds(&citations));

    // The JSON summary, seconds redacted; a file list of the index.
    let run = tessera(tmp.path(), &["index", "--index", "lib2", "--format", "json", "demo/library"]);
    let mut summary = json(&run.ok());
    assert!(summary["seconds"].as_f64().unwrap() >= 0.0);
    summary["seconds"] = Value::from("[seconds]");
    assert_snapshot!("index_json", serde_json::to_string_pretty(&summary).unwrap());
    let mut files: Vec<String> = fs::read_dir(tmp.path().join("lib/segments"))
        .unwrap()
        .map(|e| format!("segments/{}", e.unwrap().file_name().to_string_lossy()))
        .chain(
            ["MANIFEST".to_owned(), "LOCK".to_owned()].into_iter().filter(|f| tmp.path().join("lib").join(f).exists()),
        )
        .collect();
    files.sort();
    assert_eq!(files, ["LOCK", "MANIFEST", "segments/0000000000000000.seg", "segments/0000000000000001.seg"]);
}

#[test]
fn indexing_a_folder_again_adds_nothing_unless_forced() {
    let tmp = workspace();
    let docs = |index: &str| -> u64 {
        let stats = json(&tessera(tmp.path(), &["stats", "--index", index, "--format", "json"]).ok());
        stats["collections"][0]["docs"].as_u64().unwrap()
    };
    tessera(tmp.path(), &["index", "--index", "lib", "demo/library"]).ok();
    let first = docs("lib");
    assert!(first >= 3, "{first}");
    let again = tessera(tmp.path(), &["index", "--index", "lib", "demo/library"]).ok();
    assert!(again.contains("added 0 documents"), "{again}");
    assert!(again.contains(&format!("{first} already indexed from the same path with the same text")), "{again}");
    assert!(again.contains("--force adds them"), "{again}");
    assert_eq!(docs("lib"), first);
    // The JSON summary names each repeat.
    let run = tessera(tmp.path(), &["index", "--index", "lib", "--format", "json", "demo/library"]).ok();
    let seen = json(&run)["seen"].as_array().unwrap().clone();
    assert_eq!(seen.len() as u64, first);
    assert!(seen.iter().all(|s| s["same_origin"] == true && s["containment"] == 1.0), "{seen:?}");
    // A changed file is a new document; --force adds the rest again.
    let changed = tmp.path().join("demo/library").read_dir().unwrap().next().unwrap().unwrap().path();
    fs::write(
        &changed,
        format!("{}\nA closing sentence added later, long enough to count.", fs::read_to_string(&changed).unwrap()),
    )
    .unwrap();
    let run = tessera(tmp.path(), &["index", "--index", "lib", "demo/library"]).ok();
    assert!(run.contains("added 1 documents"), "{run}");
    tessera(tmp.path(), &["index", "--index", "lib", "--force", "demo/library"]).ok();
    assert_eq!(docs("lib"), 2 * first + 1);
    tessera(tmp.path(), &["index", "--index", "lib", "--force", "--if-new", "demo/library"]).fails(2, &["--if-new"]);
}

#[test]
fn stats_text_and_json() {
    let tmp = indexed();
    assert_snapshot!("stats_text", tessera(tmp.path(), &["stats", "--index", "lib"]).ok());
    let stats = tessera(tmp.path(), &["stats", "--index", "lib", "--format", "json"]).ok();
    let parsed = json(&stats);
    assert_eq!(parsed["collections"][0]["name"], "citations");
    assert_eq!(parsed["collections"][1]["docs"], 3);
    assert_snapshot!("stats_json", stats);

    // An index made the same way elsewhere has the same statistics, byte for byte
    // (sizes included) apart from its path.
    build_index(tmp.path(), "again");
    let again = tessera(tmp.path(), &["stats", "--index", "again", "--format", "json"]).ok();
    assert_eq!(again.replace("\"again\"", "\"lib\""), stats);
}

#[test]
fn check_text_report() {
    let tmp = indexed();
    let run = tessera(tmp.path(), &["check", "--index", "lib", "demo/thesis.txt"]);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let report = run.ok();
    assert!(!report.contains('\u{1b}'), "no colours when stdout is not a terminal");
    assert_snapshot!("check_text", report);
}

#[test]
fn check_json_report_is_deterministic() {
    let tmp = indexed();
    let report = tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"]).ok();
    let parsed = json(&report);
    assert_eq!(parsed["suspect"]["name"], "demo/thesis.txt");
    assert_eq!(parsed["totals"]["total_chars"], 1397);
    let titles: Vec<&str> =
        parsed["sources"].as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap()).collect();
    // Largest share first (SCHEMA.md `number`), not in the order the collections answered;
    // plain texts are named by their first line.
    assert_eq!(
        titles,
        [
            "The Printing Press and the Spread of Learning",
            "How a Honey Bee Colony Works",
            "Великие реки Сибири",
            "The results obtained confirm the hypothesis put forward in the introduction."
        ]
    );
    assert_snapshot!("check_json", report);

    // The same check again, and against an index built again from the same files: the
    // same bytes.
    let second = tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"]).ok();
    assert_eq!(second, report, "two checks of the same document differ");
    build_index(tmp.path(), "again");
    let rebuilt = tessera(tmp.path(), &["check", "--index", "again", "--format", "json", "demo/thesis.txt"]).ok();
    assert_eq!(rebuilt, report, "a check against a rebuilt index differs");

    // One worker thread (index and check) gives the same report as all cores.
    let one = ["--threads", "1"];
    tessera(
        tmp.path(),
        &[&one[..], &["index", "--index", "serial", "-c", "library", "--keep-texts", "demo/library"]].concat(),
    )
    .ok();
    tessera(
        tmp.path(),
        &[&one[..], &["index", "--index", "serial", "-c", "citations", "--kind", "citation", "demo/citations"]]
            .concat(),
    )
    .ok();
    let serial = tessera(
        tmp.path(),
        &[&one[..], &["check", "--index", "serial", "--format", "json", "demo/thesis.txt"]].concat(),
    );
    assert_eq!(serial.ok(), report, "the report depends on the thread count");

    // -o writes the same report to a file, nothing to stdout.
    let run = tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "-o", "r.json", "demo/thesis.txt"]);
    assert_eq!(run.ok(), "");
    assert_eq!(fs::read_to_string(tmp.path().join("r.json")).unwrap(), report);
}

/// On a terminal `check` shows what it is doing (a whole book takes a while); with `-q`,
/// or when standard error is not a terminal, nothing. The terminal is util-linux's
/// `script` (a pseudo-terminal); the test is skipped where it is missing.
#[test]
fn check_shows_progress_on_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` to make a terminal");
        return;
    }
    let tmp = indexed();
    let on_terminal = |extra: &str| -> String {
        let command =
            format!("{} {extra} check --index lib demo/thesis.txt -o report.txt", env!("CARGO_BIN_EXE_tessera"));
        let out =
            Command::new("script").args(["-qec", &command, "/dev/null"]).current_dir(tmp.path()).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = on_terminal("");
    assert!(shown.contains("reading demo/thesis.txt"), "{shown:?}");
    assert!(fs::read_to_string(tmp.path().join("report.txt")).unwrap().contains("Originality"));
    assert!(!on_terminal("-q").contains("reading"), "-q shows no progress");
    // Not a terminal: the report alone.
    let run = tessera(tmp.path(), &["check", "--index", "lib", "demo/thesis.txt"]);
    assert!(!run.stderr.contains("reading"), "{}", run.stderr);
}

#[test]
fn check_html_report() {
    let tmp = indexed();
    let run =
        tessera(tmp.path(), &["check", "--index", "lib", "--format", "html", "-o", "report.html", "demo/thesis.txt"]);
    assert_eq!(run.ok(), "", "the report goes to the file, not stdout");
    let html = fs::read_to_string(tmp.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert_eq!(html.matches("<a class=\"m borrowing ").count(), 3);
    assert_eq!(html.matches("<a class=\"m citation ").count(), 1);
    assert!(html.contains(">Реки всегда были дорогами освоения Сибири."), "the Russian passage is highlighted");
    assert!(!html.contains(&tmp.path().display().to_string()), "no absolute paths");
    assert_snapshot!("check_html_outline", html_outline(&html));
}

#[test]
fn check_pdf_report() {
    let tmp = indexed();
    let run =
        tessera(tmp.path(), &["check", "--index", "lib", "--format", "pdf", "-o", "report.pdf", "demo/thesis.txt"]);
    assert_eq!(run.ok(), "", "the report goes to the file, not stdout");
    let pdf = fs::read(tmp.path().join("report.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
    let has = |needle: &[u8]| pdf.windows(needle.len()).any(|w| w == needle);
    assert!(has(b"+DejaVuSans") && has(b"/FontFile2") && has(b"/ToUnicode"), "font embedded, subset, mapped");
    // A redirected standard output gets the same bytes; a terminal gets an error.
    let piped = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["check", "--index", "lib", "--format", "pdf", "demo/thesis.txt"])
        .current_dir(tmp.path())
        .env_remove("TESSERA_INDEX")
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(piped.stdout, pdf);
    let command = format!("{} check --index lib --format pdf demo/thesis.txt", env!("CARGO_BIN_EXE_tessera"));
    let out = Command::new("script").args(["-qec", &command, "/dev/null"]).current_dir(tmp.path()).output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("not written to a terminal") && shown.contains("-o report.pdf"), "{shown:?}");
    assert!(!shown.contains("%PDF"), "{shown:?}");
}

#[test]
fn demo_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tessera(tmp.path(), &["demo", "--out", "out"]);
    assert_eq!(
        run.stderr,
        "indexed 3 documents into collection \"library\" (Source)\n\
         indexed 1 documents into collection \"citations\" (Citation)\n\
         wrote out/report.html and out/report.json\n"
    );
    let stdout = run.ok();
    assert_snapshot!("demo_stdout", stdout);
    for file in ["report.html", "report.json", "index/MANIFEST", "sample/thesis.txt", "sample/library/honey-bees.txt"] {
        assert!(tmp.path().join("out").join(file).is_file(), "demo wrote no {file}");
    }
    let report = json(&fs::read_to_string(tmp.path().join("out/report.json")).unwrap());
    assert_eq!(report["suspect"]["name"], "out/sample/thesis.txt");
    assert_eq!(report["blocks"].as_array().unwrap().len(), 4);

    // A second demo into the same folder replaces its index: same output, same counts.
    let json_before = fs::read_to_string(tmp.path().join("out/report.json")).unwrap();
    assert_eq!(tessera(tmp.path(), &["demo", "--out", "out"]).ok(), stdout);
    assert_eq!(fs::read_to_string(tmp.path().join("out/report.json")).unwrap(), json_before);
    let stats = json(&tessera(tmp.path(), &["stats", "--index", "out/index", "--format", "json"]).ok());
    let docs: Vec<u64> = stats["collections"].as_array().unwrap().iter().map(|c| c["docs"].as_u64().unwrap()).collect();
    assert_eq!(docs, [1, 3]);
}

// ---------------------------------------------------------------------------------------
// 2. Bad input to `check`: clean errors, index intact
// ---------------------------------------------------------------------------------------

/// Checks `file` (already written in the workspace) and expects a failure naming it with
/// `problem`; the index must be as it was.
fn check_fails(tmp: &TempDir, file: &str, problem: &str) -> Run {
    let before = index_state(tmp.path(), "lib");
    let run = tessera(tmp.path(), &["check", "--index", "lib", file]);
    run.fails(1, &[file, problem]);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert_eq!(run.stdout, "", "no report for a failed check");
    assert_eq!(index_state(tmp.path(), "lib"), before, "the index changed");
    run
}

#[test]
fn check_empty_file() {
    let tmp = indexed();
    fs::write(tmp.path().join("empty.txt"), "").unwrap();
    check_fails(&tmp, "empty.txt", "the document has no text");
    fs::write(tmp.path().join("blank.txt"), " \n\t\r\n  ").unwrap();
    check_fails(&tmp, "blank.txt", "the document has no text");
}

#[test]
fn check_binary_garbage() {
    let tmp = indexed();
    fs::write(tmp.path().join("noise.txt"), noise(64 * 1024, 0x07e5_5e2a)).unwrap();
    check_fails(&tmp, "noise.txt", "binary data, not a text document");
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0".to_vec();
    png.extend(noise(2048, 42));
    fs::write(tmp.path().join("thesis.png"), png).unwrap();
    check_fails(&tmp, "thesis.png", "binary data, not a text document");
}

#[test]
fn check_missing_file() {
    let tmp = indexed();
    check_fails(&tmp, "no-such-thesis.txt", "No such file or directory");
}

#[test]
fn check_huge_file_fails_fast() {
    let tmp = indexed();
    // 1 GiB, sparse: nothing is written, and a reader that tried would take seconds.
    let file = fs::File::create(tmp.path().join("huge.txt")).unwrap();
    file.set_len(1 << 30).unwrap();
    drop(file);
    let started = Instant::now();
    let run = check_fails(&tmp, "huge.txt", "1073741824 bytes is over the limit of");
    // The whole of check_fails runs four more commands; the failing one alone is fast.
    let run_alone = Instant::now();
    tessera(tmp.path(), &["check", "--index", "lib", "huge.txt"]).fails(1, &["huge.txt"]);
    assert!(run_alone.elapsed() < Duration::from_secs(5), "the size limit was not checked first");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(run.stderr.contains("huge.txt: 1073741824 bytes is over the limit"), "{}", run.stderr);
}

#[test]
fn check_windows_1251_text_is_decoded() {
    let tmp = indexed();
    // A Russian note of our own around one paragraph of siberian-rivers.txt.
    let rivers = demo_text("library/siberian-rivers.txt");
    let start = rivers.find("Енисей считается").unwrap();
    // Whole sentences, to the full stop.
    let end = rivers.find("города края.").unwrap() + "города края.".len();
    let passage = &rivers[start..end];
    let text = format!(
        "Заметки о сибирских реках\n\nЭта записка написана для школьного доклада о географии. \
         Автор хотел коротко рассказать, почему реки так важны для жизни людей.\n\n{passage}\n\n\
         В заключение скажем, что без рек история этого края сложилась бы совсем иначе.\n"
    );
    let (bytes, _, unmappable) = encoding_rs::WINDOWS_1251.encode(&text);
    assert!(!unmappable);
    assert!(std::str::from_utf8(&bytes).is_err(), "the file is not UTF-8");
    fs::write(tmp.path().join("заметка-cp1251.txt"), &bytes).unwrap();

    let before = index_state(tmp.path(), "lib");
    let report = tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "заметка-cp1251.txt"]).ok();
    let report = json(&report);
    assert_eq!(report["suspect"]["text"], text.as_str(), "decoded exactly");
    let sources = report["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 1, "{sources:#?}");
    assert_eq!(sources[0]["title"], "Великие реки Сибири");
    let blocks = report["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    let block = &blocks[0];
    assert_eq!(block["kind"], "borrowing");
    assert_eq!(block["source"], sources[0]["id"]);
    let at = text.find(passage).unwrap();
    let span = &block["suspect_span"]["chars"];
    assert_eq!(
        (span["start"].as_u64(), span["end"].as_u64()),
        (Some(chars(&text, at)), Some(chars(&text, at + passage.len())))
    );
    let src = &block["source_span"]["chars"];
    assert_eq!((src["start"].as_u64(), src["end"].as_u64()), (Some(chars(&rivers, start)), Some(chars(&rivers, end))));
    assert_eq!(block["suspect_excerpt"], passage);
    assert_eq!(index_state(tmp.path(), "lib"), before);
}

#[test]
fn check_a_directory() {
    let tmp = indexed();
    check_fails(&tmp, "demo/library", "Is a directory");
}

/// A file that cannot be read is named with the system's reason, also where the error is
/// one line of a report (`extract`) rather than the command's error: "cannot read x" alone
/// does not say what to fix.
#[test]
fn unreadable_files_name_the_path_and_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir(tmp.path().join("folder.txt")).unwrap();
    let run = tessera(tmp.path(), &["extract", "no-such.txt", "folder.txt"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    for line in
        ["error: cannot read no-such.txt: No such file or directory", "error: cannot read folder.txt: Is a directory"]
    {
        assert!(run.stdout.contains(line), "stdout lacks {line:?}:\n{}", run.stdout);
    }
    let run = tessera(tmp.path(), &["extract", "--format", "json", "folder.txt"]);
    assert_eq!(json(run.stdout.trim())["error"], "cannot read folder.txt: Is a directory (os error 21)");
    // The command's own files: the path once, with the reason.
    let run = tessera(tmp.path(), &["dedup", "no-such.jsonl"]);
    run.fails(1, &["error: no such file: no-such.jsonl"]);
    assert_eq!(run.stderr.matches("no-such.jsonl").count(), 1, "{}", run.stderr);
}

/// README.md's table: one unreadable document is 1 for every command that reads
/// documents (it was 3 for `extract` and `index`, 1 for `check`); several inputs of which
/// some failed are 3, whatever the command; bad arguments are 2.
#[test]
fn exit_codes_follow_one_table() {
    let tmp = indexed();
    fs::create_dir(tmp.path().join("folder.txt")).unwrap();
    fs::write(tmp.path().join("empty.txt"), "").unwrap();
    fs::write(tmp.path().join("good.txt"), demo_text("library/honey-bees.txt")).unwrap();
    let cases: &[(&[&str], i32)] = &[
        // One document, and it failed: 1.
        (&["extract", "folder.txt"], 1),
        (&["extract", "--format", "json", "empty.txt"], 1),
        (&["check", "--index", "lib", "folder.txt"], 1),
        (&["check", "--index", "lib", "empty.txt"], 1),
        (&["index", "--index", "lib2", "empty.txt"], 1),
        (&["dedup", "empty.txt"], 1),
        // Several, some failed: 3.
        (&["extract", "good.txt", "empty.txt"], 3),
        (&["index", "--index", "lib3", "good.txt", "empty.txt"], 3),
        (&["dedup", "good.txt", "empty.txt"], 3),
        // Several, none failed: 0.
        (&["extract", "good.txt", "demo/thesis.txt"], 0),
        // Bad arguments: 2.
        (&["extract", "--bogus", "good.txt"], 2),
        (&["check", "--index", "lib"], 2),
    ];
    for (args, code) in cases {
        let run = tessera(tmp.path(), args);
        assert_eq!(run.code, Some(*code), "{args:?}: {run:?}");
    }
}

#[test]
fn check_output_to_a_missing_folder() {
    let tmp = indexed();
    let run = tessera(tmp.path(), &["check", "--index", "lib", "-o", "no/such/dir/r.html", "demo/thesis.txt"]);
    run.fails(1, &["no/such/dir/r.html"]);
}

// ---------------------------------------------------------------------------------------
// 2. Bad input to `index`: some files skipped, exit code 3
// ---------------------------------------------------------------------------------------

#[test]
fn index_folder_with_bad_files() {
    let tmp = workspace();
    let mixed = tmp.path().join("mixed");
    copy_dir(&tmp.path().join("demo/library"), &mixed);
    fs::create_dir_all(mixed.join("sub")).unwrap();
    fs::write(mixed.join("sub/empty.txt"), "").unwrap();
    fs::write(mixed.join("scan.txt"), noise(4096, 7)).unwrap();

    let run = tessera(tmp.path(), &["index", "--index", "lib", "mixed"]);
    run.fails(
        3,
        &[
            "skipped mixed/scan.txt: mixed/scan.txt: binary data, not a text document",
            "skipped mixed/sub/empty.txt: mixed/sub/empty.txt: the document has no text",
        ],
    );
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
    assert_snapshot!("index_with_bad_files", redact_seconds(&run.stdout));

    // The good ones are in and can be found.
    let stats = json(&tessera(tmp.path(), &["stats", "--index", "lib", "--format", "json"]).ok());
    assert_eq!(stats["collections"][0]["name"], "main");
    assert_eq!(stats["collections"][0]["docs"], 3);
    let report = json(&tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"]).ok());
    assert_eq!(report["sources"].as_array().unwrap().len(), 3);

    // JSON summary: the failures listed with their reasons, same exit code.
    let run = tessera(tmp.path(), &["index", "--index", "lib2", "--format", "json", "mixed"]);
    assert_eq!(run.code, Some(3));
    let summary = json(&run.stdout);
    assert_eq!(summary["added"], 3);
    assert_eq!(
        summary["failed"],
        serde_json::json!([
            {"origin": "mixed/scan.txt", "reason": "mixed/scan.txt: binary data, not a text document"},
            {"origin": "mixed/sub/empty.txt", "reason": "mixed/sub/empty.txt: the document has no text"}
        ])
    );
}

#[test]
fn index_only_bad_files_and_missing_path() {
    let tmp = indexed();
    let before = index_state(tmp.path(), "lib");
    fs::write(tmp.path().join("empty.txt"), "").unwrap();
    let run = tessera(tmp.path(), &["index", "--index", "lib", "-c", "library", "--keep-texts", "empty.txt"]);
    // Its one document failed: 1, as `check` of it (README.md, "Exit codes").
    run.fails(1, &["skipped empty.txt: empty.txt: the document has no text"]);
    assert!(run.stdout.starts_with("added 0 documents"), "{}", run.stdout);

    let run = tessera(tmp.path(), &["index", "--index", "lib", "-c", "library", "--keep-texts", "no-such-folder"]);
    // A path that does not exist is an error of the whole command, not a skipped file.
    run.fails(1, &["no-such-folder", "No such file or directory"]);
    assert_eq!(run.stdout, "");
    assert_eq!(index_state(tmp.path(), "lib"), before);
}

// ---------------------------------------------------------------------------------------
// 2. Bad index directories
// ---------------------------------------------------------------------------------------

#[test]
fn missing_index_directory() {
    let tmp = workspace();
    for args in [
        &["stats", "--index", "nolib"][..],
        &["stats", "--index", "nolib", "--format", "json"],
        &["check", "--index", "nolib", "demo/thesis.txt"],
    ] {
        let run = tessera(tmp.path(), args);
        run.fails(1, &["nolib is not a Tessera index (no MANIFEST)"]);
        assert_eq!(run.stdout, "");
    }
    assert!(!tmp.path().join("nolib").exists(), "check and stats must not create an index");
}

#[test]
fn directory_that_is_not_an_index() {
    let tmp = workspace();
    for args in [&["stats", "--index", "demo"][..], &["check", "--index", "demo", "demo/thesis.txt"]] {
        tessera(tmp.path(), args).fails(1, &["demo is not a Tessera index (no MANIFEST)"]);
    }
    assert!(!tmp.path().join("demo/MANIFEST").exists());
    assert!(!tmp.path().join("demo/segments").exists());
    // A file where the index should be.
    for args in [&["stats", "--index", "demo/thesis.txt"][..], &["index", "--index", "demo/thesis.txt", "demo/library"]]
    {
        let run = tessera(tmp.path(), args);
        run.fails(1, &["demo/thesis.txt"]);
    }
    assert_eq!(fs::read_to_string(tmp.path().join("demo/thesis.txt")).unwrap(), demo_text("thesis.txt"));
}

#[test]
fn damaged_manifest() {
    let tmp = indexed();
    let path = tmp.path().join("lib/MANIFEST");
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    bytes[20] ^= 0x55;
    fs::write(&path, &bytes).unwrap();
    for args in [
        &["stats", "--index", "lib"][..],
        &["stats", "--index", "lib", "--format", "json"],
        &["check", "--index", "lib", "demo/thesis.txt"],
        &["index", "--index", "lib", "demo/library"],
    ] {
        let run = tessera(tmp.path(), args);
        run.fails(1, &["corrupt index file lib/MANIFEST"]);
        assert_eq!(run.stdout, "");
    }
    assert_eq!(fs::read(&path).unwrap(), bytes, "a damaged manifest is not replaced");

    // Cut short, and emptied.
    for len in [bytes.len() - 7, 3, 0] {
        fs::write(&path, &bytes[..len]).unwrap();
        tessera(tmp.path(), &["stats", "--index", "lib"]).fails(1, &["lib/MANIFEST"]);
        tessera(tmp.path(), &["check", "--index", "lib", "demo/thesis.txt"]).fails(1, &["lib/MANIFEST"]);
    }
}

#[test]
fn truncated_segment() {
    let tmp = indexed();
    let seg = tmp.path().join("lib/segments/0000000000000000.seg");
    let full = fs::read(&seg).unwrap();
    for len in [full.len() / 2, full.len() - 1, 0] {
        fs::write(&seg, &full[..len]).unwrap();
        let needle = "corrupt index file lib/segments/0000000000000000.seg";
        for args in [
            &["stats", "--index", "lib"][..],
            &["stats", "--index", "lib", "--format", "json"],
            &["check", "--index", "lib", "demo/thesis.txt"],
            &["check", "--index", "lib", "--format", "json", "demo/thesis.txt"],
        ] {
            let run = tessera(tmp.path(), args);
            run.fails(1, &[needle]);
            assert_eq!(run.stdout, "", "nothing on stdout when the index is damaged");
        }
    }
    // Bytes flipped inside (same length).
    let mut flipped = full.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    fs::write(&seg, &flipped).unwrap();
    tessera(tmp.path(), &["check", "--index", "lib", "demo/thesis.txt"])
        .fails(1, &["lib/segments/0000000000000000.seg"]);
    // Restored, the index works again.
    fs::write(&seg, &full).unwrap();
    index_state(tmp.path(), "lib");
}

// ---------------------------------------------------------------------------------------
// 2. A second writer
// ---------------------------------------------------------------------------------------

#[test]
fn second_writer_is_refused() {
    let tmp = indexed();
    let before = index_state(tmp.path(), "lib");
    let index = tessera_index::Index::open(&tmp.path().join("lib")).unwrap();
    let writer = index.writer(tessera_index::WriterOptions::default()).unwrap();

    let run =
        tessera(tmp.path(), &["index", "--index", "lib", "-c", "library", "--keep-texts", "--force", "demo/library"]);
    run.fails(1, &["index is locked by another writer", "lib/LOCK"]);
    assert_eq!(run.stdout, "");
    // Readers take no lock: stats and check work while the writer is open.
    assert_eq!(index_state(tmp.path(), "lib"), before);

    drop(writer);
    assert_eq!(index_state(tmp.path(), "lib"), before, "the refused writer changed nothing");
    // Once the lock is free, adding works.
    tessera(tmp.path(), &["index", "--index", "lib", "-c", "extra", "demo/thesis.txt"]).ok();
}

// ---------------------------------------------------------------------------------------
// 2. Bad arguments: exit code 2
// ---------------------------------------------------------------------------------------

#[test]
fn bad_arguments() {
    let tmp = indexed();
    let cases: &[(&[&str], &str)] = &[
        (&["frobnicate"], "frobnicate"),
        (&[], "Usage"),
        (&["check", "demo/thesis.txt"], "--index"),
        (&["stats"], "--index"),
        (&["index", "demo/library"], "--index"),
        (&["index", "--index", "lib"], "PATHS"),
        (&["check", "--index", "lib"], "SUSPECT"),
        (&["check", "--index", "lib", "--format", "docx", "demo/thesis.txt"], "docx"),
        (&["index", "--index", "lib", "--kind", "quote", "demo/library"], "quote"),
        (&["check", "--index", "lib", "--max-gap", "many", "demo/thesis.txt"], "many"),
        (&["eval", "pan"], "--corpus"),
        (&["eval", "nope"], "nope"),
    ];
    let before = index_state(tmp.path(), "lib");
    for (args, needle) in cases {
        let run = tessera(tmp.path(), args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert!(run.stderr.contains(needle), "{args:?}: stderr lacks {needle:?}:\n{}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
    assert_eq!(index_state(tmp.path(), "lib"), before);
    // --help and --version are not errors.
    assert!(tessera(tmp.path(), &["--help"]).ok().contains("check"));
    assert!(tessera(tmp.path(), &["--version"]).ok().starts_with("tessera "));
}

// ---------------------------------------------------------------------------------------
// I/O errors whose message holds their cause's text (tessera-index's, the fs_err ones)
// also return that cause as `source()`: `error: {e:#}` would print it twice, as in
// "adding to the index at lib: no-such-folder: No such file or directory (os error 2): No
// such file or directory (os error 2)". `describe_error` leaves such a cause out.
// ---------------------------------------------------------------------------------------

#[test]
fn io_errors_print_their_cause_once() {
    let tmp = indexed();
    let runs = [
        tessera(tmp.path(), &["index", "--index", "lib", "no-such-folder"]),
        tessera(tmp.path(), &["index", "--index", "demo/thesis.txt", "demo/library"]),
    ];
    for run in runs {
        assert_eq!(run.code, Some(1));
        for cause in ["No such file or directory (os error 2)", "Not a directory (os error 20)"] {
            assert!(run.stderr.matches(cause).count() <= 1, "cause printed twice: {}", run.stderr);
        }
        assert!(run.stderr.matches("no-such-folder").count() <= 1, "path named twice: {}", run.stderr);
    }
}

// ---------------------------------------------------------------------------------------
// Extraction: `tessera extract`, archives in `index` and `check`
// ---------------------------------------------------------------------------------------

fn extract_fixture(tmp: &TempDir, from: &str, to: &str) {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extract/testdata").join(from);
    fs::copy(src, tmp.path().join(to)).unwrap();
}

#[test]
fn extract_text_json_and_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    extract_fixture(&tmp, "archive/thesis.zip", "thesis.zip");
    fs::write(tmp.path().join("tricks.txt"), "Перепиcанный тeкст, p l a g i a r i s m, и сл\u{200B}ово.\n").unwrap();
    let text = tessera(tmp.path(), &["extract", "thesis.zip", "tricks.txt"]).ok();
    assert_snapshot!("extract_text", text);
    let lines = tessera(tmp.path(), &["extract", "--format", "json", "tricks.txt", "thesis.zip"]).ok();
    let docs: Vec<Value> = lines.lines().map(json).collect();
    assert_eq!(docs.len(), 4);
    assert_eq!(docs[0]["name"], "tricks.txt");
    let kinds: Vec<&str> =
        docs[0]["document"]["warnings"].as_array().unwrap().iter().map(|w| w["trick"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["homoglyphs", "invisible_characters", "spaced_letters"]);
    assert_eq!(docs[1]["name"], "thesis.zip!/appendix.zip!/page.html");
    assert_eq!(docs[1]["document"]["title"], "Inner page");
}

#[test]
fn extract_names_failed_members_and_exits_3() {
    let tmp = tempfile::tempdir().unwrap();
    extract_fixture(&tmp, "archive/bomb.zip", "bomb.zip");
    let run = tessera(tmp.path(), &["extract", "bomb.zip"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert!(run.stdout.contains("== bomb.zip!/good.txt"), "{}", run.stdout);
    assert!(run.stdout.contains("error: bomb.zip!/zeros.txt: "), "{}", run.stdout);
    assert!(run.stdout.contains("decompression bomb"), "{}", run.stdout);
}

#[test]
fn index_and_check_archives_member_by_member() {
    let tmp = workspace();
    extract_fixture(&tmp, "archive/thesis.zip", "thesis.zip");
    extract_fixture(&tmp, "archive/bomb.zip", "bomb.zip");
    let run = tessera(tmp.path(), &["index", "--index", "lib", "thesis.zip", "bomb.zip"]);
    assert_eq!(run.code, Some(3), "one member failed: {run:?}");
    assert!(run.stdout.contains("4 document"), "three members of thesis.zip and one of bomb.zip: {}", run.stdout);
    assert!(run.stderr.contains("bomb.zip!/zeros.txt"), "{}", run.stderr);
    let report = tessera(tmp.path(), &["check", "--index", "lib", "thesis.zip"]).ok();
    let sections: Vec<&str> = report.lines().filter(|l| l.starts_with("== ")).collect();
    assert_eq!(
        sections,
        ["== thesis.zip!/appendix.zip!/page.html", "== thesis.zip!/ch1/intro.txt", "== thesis.zip!/ch2/glava.txt"]
    );
    let reports = json(&tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "thesis.zip"]).ok());
    for item in reports.as_array().unwrap() {
        assert!(item["report"]["totals"]["borrowings"].as_f64().unwrap() > 90.0, "{item}");
    }
    let run = tessera(tmp.path(), &["check", "--index", "lib", "--format", "html", "thesis.zip"]);
    run.fails(1, &["thesis.zip is an archive of 3 documents", "-o"]);
    tessera(tmp.path(), &["check", "--index", "lib", "--format", "html", "-o", "reports", "thesis.zip"]).ok();
    assert_eq!(fs::read_dir(tmp.path().join("reports")).unwrap().count(), 3);
    // Bypass attempts are named in every report format.
    fs::write(tmp.path().join("tricks.txt"), "Книгопечатание и распpостpанение знаний. p l a g i a r i s m\n").unwrap();
    let text = tessera(tmp.path(), &["check", "--index", "lib", "tricks.txt"]).ok();
    assert!(text.contains("Bypass:       1 word uses Latin letters that look like Cyrillic ones"), "{text}");
    assert!(text.contains("Bypass:       1 word is spelled with spaces or other characters between the"), "{text}");
    let report = json(&tessera(tmp.path(), &["check", "--index", "lib", "--format", "json", "tricks.txt"]).ok());
    assert_eq!(report["suspect"]["warnings"][0]["kind"], "homoglyphs");
    assert_eq!(report["suspect"]["warnings"][0]["locations"][0]["span"]["chars"]["start"], 17);
    let html = tessera(tmp.path(), &["check", "--index", "lib", "--format", "html", "tricks.txt"]).ok();
    assert!(html.contains("<li class=\"bypass\" data-kind=\"spaced_letters\">"), "{html}");
}

/// `tessera stats | head -1` and the like: a closed standard output ends the command
/// quietly (status 0 or 141, never a panic message).
#[test]
fn closed_stdout_ends_quietly() {
    use std::io::Read;
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    // Enough output to fill the pipe: many documents, each a line of `dedup`'s output.
    for i in 0..3000 {
        std::fs::write(docs.join(format!("{i:05}.txt")), format!("document number {i} about rivers and bees")).unwrap();
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["dedup", "-q", "docs"])
        .current_dir(tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's reading end is dropped here: the rest of the output has nowhere to go.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(matches!(out.status.code(), Some(0 | 141)), "{:?} {stderr}", out.status);
}
