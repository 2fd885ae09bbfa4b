//! The submissions repository through the API: a checked document kept for later checks,
//! found by the next check of the same text, never by a run of its own check, removable.
#![allow(clippy::unwrap_used)]

mod common;

use common::{THESIS, TestServer, multipart};
use serde_json::{Value, json};

/// Sends a JSON check and waits for it.
fn check_text(s: &TestServer, body: &Value) -> Value {
    let (status, accepted) = s.send_json("POST", "/api/checks", body, None);
    assert_eq!(status, 202, "{accepted}");
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["status"], "done", "{check}");
    check
}

/// The report's sources from collection `theses`.
fn from_theses(check: &Value) -> Vec<Value> {
    check["report"]["sources"].as_array().unwrap().iter().filter(|s| s["collection"] == "theses").cloned().collect()
}

#[test]
fn the_second_hand_in_of_a_thesis_finds_the_first_and_a_removed_one_is_gone() {
    let s = TestServer::start(|c| c.submissions = Some("theses".into()));
    let first = check_text(&s, &json!({"text": THESIS, "name": "anna.txt", "title": "Anna's thesis"}));
    assert!(from_theses(&first).is_empty());
    assert_eq!(first["submit_to"], "theses");
    let kept = first["submitted"].as_u64().expect("the first check was kept");

    // The same text again, by another student: the first submission is its source.
    let second = check_text(&s, &json!({"text": THESIS, "name": "boris.txt"}));
    let found = from_theses(&second);
    assert_eq!(found.len(), 1, "{}", second["report"]["sources"]);
    assert_eq!(found[0]["id"], kept);
    assert_eq!(found[0]["title"], "Anna's thesis");
    assert_eq!(found[0]["submission"]["check_id"], first["id"]);
    assert_eq!(found[0]["submission"]["identical"], true);
    assert!(found[0]["submission"]["submitted_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(found[0]["text_kept"], true);
    let second_kept = second["submitted"].as_u64().unwrap();
    let theses = |s: &TestServer| {
        let (_, collections) = s.get("/api/collections");
        collections.as_array().unwrap().iter().find(|c| c["name"] == "theses").unwrap().clone()
    };
    let kept_texts = theses(&s);
    assert_eq!((kept_texts["documents"].as_u64(), kept_texts["keep_texts"].as_bool()), (Some(2), Some(true)));
    assert!(kept_texts["text_bytes"].as_u64().unwrap() > 0, "{kept_texts}");

    // The reviewer removes both submissions: a third check finds neither, and the checks
    // that kept them say so when read again (as a reloaded page reads them).
    assert_eq!(s.get(&format!("/api/checks/{}", first["id"].as_str().unwrap())).1["submission_removed"], false);
    for doc in [kept, second_kept] {
        let (status, body) = s.delete(&format!("/api/documents/{doc}"));
        assert_eq!(status, 200, "{body}");
    }
    for check in [&first, &second] {
        let (_, again) = s.get(&format!("/api/checks/{}?report=false", check["id"].as_str().unwrap()));
        assert_eq!(
            (again["submitted"].as_u64(), again["submission_removed"].as_bool()),
            (check["submitted"].as_u64(), Some(true))
        );
    }
    let third = check_text(&s, &json!({"text": THESIS, "name": "clara.txt", "submit_to": ""}));
    assert!(from_theses(&third).is_empty(), "{}", third["report"]["sources"]);
    assert_eq!(third["submitted"], Value::Null, "submit_to \"\" keeps nothing");
    // Deleted, then purged by the background merge (a collection of deleted documents
    // only is rewritten to nothing).
    assert_eq!(theses(&s)["documents"], 0);
}

#[test]
fn submit_to_in_a_form_and_a_bad_name_is_refused() {
    let s = TestServer::start(|_| {});
    // No server default: a check keeps nothing unless asked.
    let plain = check_text(&s, &json!({"text": THESIS}));
    assert_eq!(plain["submitted"], Value::Null);
    let (content_type, body) =
        multipart(&[("submit_to", None, b"theses"), ("file", Some("thesis.txt"), THESIS.as_bytes())]);
    let mut r =
        s.agent.post(format!("{}/api/checks", s.base)).header("content-type", content_type).send(&body[..]).unwrap();
    assert_eq!(r.status().as_u16(), 202);
    let accepted: Value = r.body_mut().read_json().unwrap();
    let check = s.wait(accepted["id"].as_str().unwrap());
    assert_eq!(check["submit_to"], "theses");
    assert!(check["submitted"].is_u64(), "{check}");
    let (status, body) = s.send_json("POST", "/api/checks", &json!({"text": THESIS, "submit_to": "a/b"}), None);
    assert_eq!(status, 400, "{body}");
}

#[test]
fn a_check_run_again_after_a_restart_does_not_report_its_own_submission() {
    let mut s = TestServer::start(|c| c.submissions = Some("theses".into()));
    let first = check_text(&s, &json!({"text": THESIS, "name": "anna.txt"}));
    let id = first["id"].as_str().unwrap().to_owned();
    let kept = first["submitted"].as_u64().unwrap();
    // As if the server had died before the check was recorded done: it runs again at
    // the next start.
    let record_path = s.data_dir().join("checks").join(&id).join("check.json");
    let dir = std::mem::replace(&mut s.dir, tempfile::tempdir().unwrap());
    drop(s);
    let mut record: Value = serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["status"] = json!("running");
    std::fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();

    let s = TestServer::start_in(dir, |c| c.submissions = Some("theses".into()));
    let again = s.wait(&id);
    assert_eq!(again["status"], "done", "{again}");
    assert!(again["attempts"].as_u64().unwrap() >= 2, "{again}");
    assert!(from_theses(&again).is_empty(), "{}", again["report"]["sources"]);
    assert_eq!(again["submitted"], kept, "nothing was kept twice");
    let (_, collections) = s.get("/api/collections");
    let theses = collections.as_array().unwrap().iter().find(|c| c["name"] == "theses").unwrap().clone();
    assert_eq!(theses["documents"], 1, "{theses}");
}
