//! Tests on the real Clough & Stevenson corpus; they skip (with a message) when the
//! data is absent.
#![allow(clippy::unwrap_used)]

use tessera_eval::{CloughCategory, read_clough};

#[test]
fn reads_every_answer_and_source() {
    let Some(dir) = tessera_eval::eval_data_dir().map(|d| d.join("clough-stevenson")) else {
        eprintln!(
            "SKIPPED: evaluation data not found (set {} or put it in ../shared/eval)",
            tessera_eval::EVAL_DIR_VAR
        );
        return;
    };
    if !dir.is_dir() {
        eprintln!("SKIPPED: {} not found", dir.display());
        return;
    }
    let all = read_clough(&dir).unwrap();
    let count = |c: CloughCategory| all.iter().filter(|a| a.category == c).count();
    println!(
        "cut {} light {} heavy {} non {} orig {}",
        count(CloughCategory::Cut),
        count(CloughCategory::Light),
        count(CloughCategory::Heavy),
        count(CloughCategory::Non),
        count(CloughCategory::Orig)
    );
    assert_eq!(all.len(), 100);
    assert_eq!(count(CloughCategory::Cut), 19);
    assert_eq!(count(CloughCategory::Light), 19);
    assert_eq!(count(CloughCategory::Heavy), 19);
    assert_eq!(count(CloughCategory::Non), 38);
    assert_eq!(count(CloughCategory::Orig), 5);
    for task in 'a'..='e' {
        assert_eq!(all.iter().filter(|a| a.task == task).count(), 20, "task {task}");
    }
    for a in &all {
        assert!(a.text.trim().len() > 50, "{} is too short", a.file);
        assert!(!a.text.contains('\u{fffd}'), "{} decoded badly", a.file);
    }
    // Windows-1252 files decode their punctuation (no C1 controls left, also in the
    // UTF-8 file that holds Windows-1252 quotes as C1 controls).
    for a in &all {
        assert!(!a.text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)), "{} holds C1 controls", a.file);
    }
    let g2pa_e = all.iter().find(|a| a.file == "g2pA_taske.txt").unwrap();
    assert!(g2pa_e.text.contains("\u{2018}Greedy\u{2019}"));
    // Some texts keep CRLF line ends.
    assert!(all.iter().any(|a| a.text.contains("\r\n")));
}
