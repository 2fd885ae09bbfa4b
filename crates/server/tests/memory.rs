//! Admission by memory (issue 52): a check starts only when its expected cost fits the
//! engine's memory limit; the others wait for it, in order, and all finish.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::{THESIS, TestServer, demo_index};
use serde_json::json;
use tessera_engine::EngineOptions;

#[test]
fn checks_wait_for_memory_and_run_one_at_a_time_under_a_small_limit() {
    let dir = tempfile::tempdir().unwrap();
    demo_index(&dir.path().join("index"));
    // 8 MiB: a check of 200 KB of text is expected to cost more (64 bytes per byte), so
    // each runs alone although three workers are free.
    let options = EngineOptions { memory_limit: 8 << 20, ..EngineOptions::default() };
    let s = TestServer::start_with(dir, |c| c.workers = 3, options);
    let text: String = THESIS.chars().cycle().take(200_000).collect();
    let ids: Vec<String> = (0..4)
        .map(|i| {
            let (status, v) =
                s.send_json("POST", "/api/checks", &json!({ "text": text, "name": format!("t{i}.txt") }), None);
            assert_eq!(status, 202, "{v}");
            v["id"].as_str().unwrap().to_owned()
        })
        .collect();
    let (mut most_admitted, mut most_waiting) = (0, 0);
    let give_up = Instant::now() + Duration::from_secs(300);
    loop {
        let (_, health) = s.get("/api/health");
        let admitted = health["admitted"].as_u64().unwrap();
        let running = health["running"].as_u64().unwrap();
        assert_eq!(health["memory_limit_mb"], 8, "{health}");
        assert!(health["memory_in_use_mb"].as_u64().unwrap() <= 8, "{health}");
        most_admitted = most_admitted.max(admitted);
        most_waiting = most_waiting.max(running.saturating_sub(admitted));
        if running == 0 && health["queued"] == 0 {
            break;
        }
        assert!(Instant::now() < give_up, "the checks never finished: {health}");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(most_admitted, 1, "more than one check held memory at once");
    assert!(most_waiting >= 1, "no check ever waited for memory");
    for id in &ids {
        assert_eq!(s.wait(id)["status"], "done");
    }
}
