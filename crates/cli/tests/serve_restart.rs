//! Every accepted check completes, even when `tessera serve` is killed with SIGKILL in
//! the middle of the work and started again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use support::{ServeProcess, THESIS, agent, demo_index, get_json, wait_done};

#[test]
fn kill_9_during_checks_then_restart_completes_every_accepted_check() {
    let dir = tempfile::tempdir().unwrap();
    let index = demo_index(dir.path());
    let agent = agent();
    // One worker and long texts, so the queue fills faster than it drains.
    let server = ServeProcess::start(&index, &["--workers", "1"]);
    let long = THESIS.repeat(40);
    let mut accepted: Vec<String> = Vec::new();
    let mut queued = 0;
    while queued < 5 && accepted.len() < 2000 {
        let mut r = agent
            .post(format!("{}/api/checks", server.base))
            .send_json(json!({"text": long, "name": format!("essay-{}.txt", accepted.len())}))
            .unwrap();
        assert_eq!(r.status().as_u16(), 202);
        let v: Value = r.body_mut().read_json().unwrap();
        accepted.push(v["id"].as_str().unwrap().to_owned());
        queued = get_json(&agent, &format!("{}/api/health", server.base))["queued"].as_u64().unwrap();
    }
    server.kill9();

    // What the killed server left on disk: every accepted check, some unfinished.
    let checks = index.join("server").join("checks");
    let mut unfinished = 0;
    for id in &accepted {
        let record: Value =
            serde_json::from_slice(&std::fs::read(checks.join(id).join("check.json")).unwrap()).unwrap();
        if record["status"] != "done" {
            unfinished += 1;
        }
    }
    assert!(unfinished >= 1, "the kill came after every check had finished; the test proves nothing");

    let server = ServeProcess::start(&index, &["--workers", "2"]);
    for (i, id) in accepted.iter().enumerate() {
        let check = wait_done(&agent, &server.base, id);
        assert_eq!(check["status"], "done", "{check}");
        assert_eq!(check["report"]["suspect"]["name"], format!("essay-{i}.txt"));
        assert!(check["report"]["totals"]["borrowings"].as_f64().unwrap() > 0.0);
    }
    let health = get_json(&agent, &format!("{}/api/health", server.base));
    assert_eq!((health["queued"].as_u64(), health["running"].as_u64()), (Some(0), Some(0)));
    eprintln!("{} checks accepted, {unfinished} unfinished at the kill; all done after the restart", accepted.len());
}
