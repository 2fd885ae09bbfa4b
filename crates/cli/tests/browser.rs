//! End to end in headless Chromium, driven through chromedriver's WebDriver HTTP API:
//! upload the demo thesis on the page, wait for the report, read the totals, check the
//! numbered and coloured sources (largest share first, a click isolates one), the word
//! differences of the comparison, the bypass notice at its place, then switch a source
//! off and see the totals change. A second walk keeps checks as submissions (issue 48):
//! the same thesis checked twice finds the first, removed on the page it is found no more.
//!
//! Runs when `TESSERA_E2E=1` (`.ci/run` sets it and installs chromium and
//! chromium-driver); skips with a message otherwise or when they are absent. With
//! `TESSERA_SCREENSHOTS=DIR` it also saves the page as PNG files (docs/).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{ServeProcess, THESIS, agent, demo_index};

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

struct Driver {
    child: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Driver {
    fn start(chromium: &Path, chromedriver: &Path, profile: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let agent = agent();
        let give_up = Instant::now() + Duration::from_secs(60);
        while agent.get(format!("{base}/status")).call().is_err() {
            assert!(Instant::now() < give_up, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
                     "--no-first-run", "--disable-component-update", "--disable-sync", "--window-size=1440,1000",
                     format!("--user-data-dir={}", profile.display())]
        }}}});
        let v: Value = agent.post(format!("{base}/session")).send_json(&caps).unwrap().body_mut().read_json().unwrap();
        let session = v["value"]["sessionId"].as_str().unwrap_or_else(|| panic!("no session: {v}")).to_owned();
        let d = Driver { child, base, session, agent };
        // axe-core over the whole report takes seconds on a loaded machine (the default is 30 s).
        d.call("POST", "/timeouts", json!({"script": 180_000}));
        d
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut r = match method {
            "GET" => self.agent.get(&url).call().unwrap(),
            _ => self.agent.post(&url).send_json(&body).unwrap(),
        };
        let v: Value = r.body_mut().read_json().unwrap();
        assert!(v["value"].get("error").is_none(), "{method} {path}: {v}");
        v["value"].clone()
    }

    fn find(&self, css: &str) -> String {
        let v = self.call("POST", "/element", json!({"using": "css selector", "value": css}));
        v.as_object().unwrap().values().next().unwrap().as_str().unwrap().to_owned()
    }

    fn script(&self, js: &str) -> Value {
        self.call("POST", "/execute/sync", json!({"script": js, "args": []}))
    }

    /// A script that ends by calling its last argument with the answer.
    fn script_async(&self, js: &str) -> Value {
        self.call("POST", "/execute/async", json!({"script": js, "args": []}))
    }

    /// Presses keys as a person would, one after the other, on whatever has the focus
    /// (WebDriver's key codes: `\u{E004}` Tab, `\u{E007}` Enter, `\u{E00C}` Escape).
    fn keys(&self, keys: &str) {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|k| [json!({"type": "keyDown", "value": k}), json!({"type": "keyUp", "value": k})])
            .collect();
        self.call("POST", "/actions", json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}));
    }

    /// Polls a script until it returns something truthy (gives up after two minutes).
    fn wait_for(&self, js: &str) -> Value {
        let give_up = Instant::now() + Duration::from_secs(120);
        loop {
            let v = self.script(js);
            if !(v.is_null() || v == json!(false) || v == json!("")) {
                return v;
            }
            assert!(Instant::now() < give_up, "the page never satisfied: {js}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, dir: Option<&Path>, name: &str) {
        let Some(dir) = dir else { return };
        let b64 = self.call("GET", "/screenshot", Value::Null);
        std::fs::write(dir.join(name), base64_decode(b64.as_str().unwrap())).unwrap();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.agent.delete(format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, c)| acc | u32::from(val(*c)) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// The demo thesis with three things the page must show: Cyrillic look-alike letters in
/// an English word (a bypass notice, marked at its place), a Russian passage of the
/// library rewritten in a few words, just before the paragraph the thesis already took
/// from the same page (word differences in the comparison), and the bee page's opening
/// paragraph reworded sentence by sentence (a rewording, read in sentence pairs).
fn thesis_with_tricks() -> String {
    let thesis = THESIS.replacen("remarkable speed", "r\u{435}m\u{430}rk\u{430}bl\u{435} speed", 1);
    assert_ne!(thesis, THESIS, "the demo thesis changed: pick another word");
    let rewritten = "Енисей считают границей между Западной и Восточной Сибирью. Левый берег реки низкий и \
         болотистый, правый поднимается к Среднесибирскому плоскогорью. На Енисее построены крупные \
         гидроэлектростанции, которые снабжают энергией заводы и города края.\n\n";
    let at = thesis.find("Реки всегда").expect("the demo thesis has the Russian paragraph");
    let thesis = format!("{}{rewritten}{}", &thesis[..at], &thesis[at..]);
    let reworded = "A colony of honey bees is really one family, and in the summer it may hold as many as fifty \
         thousand workers. There is a single queen in every colony; laying eggs is her only job, and on some days \
         she lays over a thousand of them. All of the workers are females, while the males, a few hundred drones, \
         gather no food at all and live only to mate with the young queens of other colonies.\n\n";
    let at = thesis.find("Nature offers").expect("the demo thesis has the bee paragraph");
    format!("{}{reworded}{}", &thesis[..at], &thesis[at..])
}

/// A reworded passage's comparison lists its sentences beside the source sentences they
/// draw on (closed for a rewording, a click opens it); a copy's has no such list.
fn sentence_pairs_side_by_side(d: &Driver, shots: Option<&Path>) {
    let id = d.script(
        "const b = state.report.blocks.find(b => b.found_by === 'rewording' && /colony of honey bees/.test(b.suspect_excerpt));
         return b ? [b.id, b.pairs.length] : null;",
    );
    let (id, n) = (id[0].as_u64().unwrap_or_else(|| panic!("no rewording of the bee page: {id}")), id[1].clone());
    d.script(&format!(
        "document.querySelector('#document mark[data-block=\"{id}\"]').scrollIntoView({{block: 'center'}});"
    ));
    d.call("POST", &format!("/element/{}/click", d.find(&format!("#document mark[data-block='{id}']"))), json!({}));
    let shown = d.wait_for(
        "if (document.getElementById('compare').hidden) return false;
         const s = document.getElementById('compare-sentences');
         const rows = [...s.querySelectorAll('tbody tr')].map(r => [...r.cells].map(c => c.textContent));
         return [s.hidden, s.open, document.getElementById('compare-sentences-head').textContent, rows];",
    );
    assert_eq!(shown[0], json!(false), "{shown}");
    assert_eq!(shown[1], json!(false), "a rewording's list starts closed: {shown}");
    assert!(shown[2].as_str().unwrap().starts_with(&format!("Sentence by sentence: {n} sentences")), "{shown}");
    let rows = shown[3].as_array().unwrap();
    assert_eq!(json!(rows.len()), n, "{shown}");
    assert!(
        rows.iter().any(|r| r[0].as_str().unwrap().starts_with("A colony of honey bees is really one family")
            && r[1].as_str().unwrap().starts_with("A honey bee colony is a single family")),
        "{shown}"
    );
    d.call("POST", &format!("/element/{}/click", d.find("#compare-sentences-head")), json!({}));
    d.wait_for("return document.getElementById('compare-sentences').open;");
    d.screenshot(shots, "page-sentences.png");
    accessible(d, "comparison dialog with its sentence pairs open");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
    // A copy's comparison has no sentence list.
    let copy = d.script("return state.report.blocks.find(b => b.found_by === 'copy' && b.kind === 'borrowing').id;");
    d.script(&format!("openCompare({copy});"));
    let hidden = d.wait_for(
        "return !document.getElementById('compare').hidden && [document.getElementById('compare-sentences').hidden];",
    );
    assert_eq!(hidden, json!([true]), "{hidden}");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
}

/// Sources carry numbers 1..n in order with distinct colours, largest share first; the
/// text's passages carry the same numbers; a click on a number shows only that source's
/// passages and a second click shows all again.
fn numbered_sorted_and_isolated(d: &Driver) {
    let v = d.script(
        "const rows = [...document.querySelectorAll('#sources .src-row[data-source]')];
         return rows.map(r => [Number(r.querySelector('.num-badge').textContent),
           getComputedStyle(r.querySelector('.num-badge')).backgroundColor,
           parseFloat(r.querySelector('.report-share').textContent) || 0, Number(r.dataset.source)]);",
    );
    let rows = v.as_array().unwrap();
    assert!(rows.len() >= 3, "{v}");
    let numbers: Vec<u64> = rows.iter().map(|r| r[0].as_u64().unwrap()).collect();
    assert_eq!(numbers, (1..=rows.len() as u64).collect::<Vec<_>>(), "numbered in order: {v}");
    let mut colours: Vec<&str> = rows.iter().map(|r| r[1].as_str().unwrap()).collect();
    colours.sort_unstable();
    colours.dedup();
    assert_eq!(colours.len(), rows.len(), "one colour per source: {v}");
    let shares: Vec<f64> = rows.iter().map(|r| r[2].as_f64().unwrap()).collect();
    assert!(shares.windows(2).all(|w| w[0] >= w[1]), "largest share first: {shares:?}");

    // Passages: a numbered marker where a run of a source starts, in its colour.
    let marker = d.script(
        "const m = document.querySelector('#document mark.first');
         return [m.dataset.n, getComputedStyle(m, '::before').content, getComputedStyle(m).backgroundColor];",
    );
    assert_eq!(marker[1].as_str().unwrap(), format!("\"{}\"", marker[0].as_str().unwrap()), "{marker}");
    assert_ne!(marker[2], json!("rgba(0, 0, 0, 0)"), "passages are filled: {marker}");

    // Click-to-isolate on the second source.
    let id = rows[1][3].as_u64().unwrap();
    let badge = d.find(&format!("#sources .src-row[data-source='{id}'] .num-badge"));
    d.call("POST", &format!("/element/{badge}/click"), json!({}));
    let isolated = d.wait_for(&format!(
        "const doc = document.getElementById('document');
         if (!doc.classList.contains('isolating')) return false;
         const marks = [...doc.querySelectorAll('mark')];
         const sel = marks.filter(m => m.classList.contains('sel'));
         const other = marks.find(m => !m.classList.contains('sel'));
         // The fill fades out (a CSS transition): wait for its end.
         if (other && getComputedStyle(other).backgroundColor !== 'rgba(0, 0, 0, 0)') return false;
         return [sel.length, marks.length, sel.every(m => m.dataset.source === '{id}'),
           other ? getComputedStyle(other).backgroundColor : null, !document.getElementById('show-all').hidden];"
    ));
    let n = isolated[0].as_u64().unwrap();
    assert!(n > 0 && n < isolated[1].as_u64().unwrap(), "{isolated}");
    assert_eq!(isolated[2], json!(true), "{isolated}");
    assert_eq!(isolated[3], json!("rgba(0, 0, 0, 0)"), "other passages lose their fill: {isolated}");
    assert_eq!(isolated[4], json!(true), "a show-all button: {isolated}");
    d.call("POST", &format!("/element/{badge}/click"), json!({}));
    d.wait_for("return !document.getElementById('document').classList.contains('isolating');");
}

/// The look-alike letters are explained in plain words, and a click on the place in the
/// warning brings the marked word into view.
fn notice_at_its_place(d: &Driver, shots: Option<&Path>) {
    // The server's report carries extraction's notices with their places (the engine's
    // one check path), as `tessera check` does.
    let carried = d.script("return (state.report.suspect.warnings || []).some(n => n.locations.length > 0);");
    assert_eq!(carried, json!(true), "the report's notices carry their places");
    let text = d.wait_for(
        "const li = document.querySelector('#warnings li.notice.bypass[data-kind=homoglyphs]'); return li && li.textContent;",
    );
    assert!(text.as_str().unwrap().contains("1 word uses Cyrillic letters that look like Latin ones"), "{text}");
    let link = d.find("#warnings .trick-link");
    d.call("POST", &format!("/element/{link}/click"), json!({}));
    let at = d.wait_for(
        "const t = document.getElementById('trick-0-0');
         if (!t || !t.classList.contains('flash')) return false;
         const r = t.getBoundingClientRect();
         return [t.textContent, r.top >= 0 && r.bottom <= innerHeight, !!t.closest('#document')];",
    );
    assert_eq!(at, json!(["r\u{435}m\u{430}rk\u{430}bl\u{435}", true, true]), "the notice's word is marked and shown");
    // For the picture: the warning at the top of the window, the word near the top of
    // the text box.
    d.script(
        "document.getElementById('warnings').scrollIntoView();
         const doc = document.getElementById('document'), t = document.getElementById('trick-0-0');
         doc.scrollTop += t.getBoundingClientRect().top - doc.getBoundingClientRect().top - 80;",
    );
    std::thread::sleep(Duration::from_millis(700));
    d.screenshot(shots, "page-notices.png");
}

/// The comparison marks changed Russian words on both sides.
fn word_differences(d: &Driver, shots: Option<&Path>) {
    let block = d.script(
        "const b = state.report.blocks.find(b => (b.diff || []).some(c => c.kind === 'changed')
           && /Енисей/.test(b.suspect_excerpt));
         return b ? b.id : null;",
    );
    let id = block.as_u64().unwrap_or_else(|| panic!("no block of the Russian passage with a changed word"));
    d.script(&format!(
        "document.querySelector('#document mark[data-block=\"{id}\"]').scrollIntoView({{block: 'center'}});"
    ));
    let mark = d.find(&format!("#document mark[data-block='{id}']"));
    d.call("POST", &format!("/element/{mark}/click"), json!({}));
    let marks = d.wait_for(
        "if (document.getElementById('compare').hidden) return false;
         const t = (sel) => [...document.querySelectorAll(sel)].map(e => e.textContent);
         return [t('#compare-suspect .chg'), t('#compare-source .chg'),
           t('#compare-suspect ins'), t('#compare-source del')];",
    );
    let suspect: Vec<&str> = marks[0].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let source: Vec<&str> = marks[1].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(suspect.contains(&"считают") && source.contains(&"считается"), "{marks}");
    assert!(suspect.contains(&"низкий") && source.contains(&"низменный"), "{marks}");
    d.screenshot(shots, "page-compare.png");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
}

/// The passages list shows every block with its confidence and its label (what the
/// comparison shows); sorted
/// least sure first it puts the lowest confidence on top; a row opens the comparison.
fn passages_listed_with_confidence(d: &Driver) {
    let listed = d.script(
        "const rows = [...document.querySelectorAll('#passages .psg-row[data-block]')];
         const words = { copied: ' · copied · ', edited: ' · copied with edits · ', reworded: ' · reworded · ',
           summary: ' · summary of a longer passage · ', translated: ' · translated from another language · ' };
         return [rows.length, state.report.blocks.length,
           rows.every(r => r.querySelector('.conf').textContent ===
             state.report.blocks[Number(r.dataset.block)].confidence + '% sure'),
           rows.every(r => r.querySelector('.psg-where').textContent.includes(
             words[state.report.blocks[Number(r.dataset.block)].label]))];",
    );
    assert!(listed[0].as_u64().unwrap() > 0 && listed[0] == listed[1], "{listed}");
    assert_eq!(listed[2], json!(true), "{listed}");
    assert_eq!(listed[3], json!(true), "{listed}");
    d.script("const s = document.getElementById('passage-sort'); s.value = 'confidence'; s.dispatchEvent(new Event('change'));");
    let order = d.script(
        "return [...document.querySelectorAll('#passages .psg-row[data-block]')].map(r => Number(r.dataset.confidence));",
    );
    let order: Vec<u64> = order.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    let row = d.find("#passages .psg-row[data-block]");
    d.call("POST", &format!("/element/{row}/click"), json!({}));
    let meta = d.wait_for(
        "return !document.getElementById('compare').hidden && document.getElementById('compare-meta').textContent;",
    );
    assert!(meta.as_str().unwrap().contains("% sure"), "{meta}");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
}

/// Printed (or saved as PDF), the report is a document to file: no bar, buttons or
/// switches, the whole text with its colours and numbered markers, the source list.
fn print_layout(d: &Driver, shots: Option<&Path>) {
    let media = |m: &str| {
        d.call("POST", "/goog/cdp/execute", json!({"cmd": "Emulation.setEmulatedMedia", "params": {"media": m}}));
    };
    media("print");
    let v = d.script(
        "const cs = (sel, pseudo) => getComputedStyle(document.querySelector(sel), pseudo);
         const mark = document.querySelector('#document mark.first');
         return [cs('.topbar').display, cs('.actions').display, cs('.src-controls').display,
           cs('#document').overflowY, getComputedStyle(mark).backgroundColor,
           getComputedStyle(mark, '::before').content, cs('#sources .num-badge').display,
           cs('#print-date').display];",
    );
    assert_eq!(v[0], json!("none"), "no top bar in print: {v}");
    assert_eq!(v[1], json!("none"), "no buttons in print: {v}");
    assert_eq!(v[2], json!("none"), "no switches in print: {v}");
    assert_eq!(v[3], json!("visible"), "the whole text, not a scrolling box: {v}");
    assert_ne!(v[4], json!("rgba(0, 0, 0, 0)"), "passages keep their colour: {v}");
    assert_ne!(v[5], json!("none"), "markers are printed: {v}");
    assert_ne!(v[6], json!("none"), "source numbers are printed: {v}");
    assert_eq!(v[7], json!("block"), "the print says when it was made: {v}");
    d.script("window.scrollTo(0, 0);");
    d.screenshot(shots, "page-print.png");
    media("");
    // A real PDF, as the browser's "Save as PDF" makes it.
    let pdf = d.call("POST", "/print", json!({"background": true, "orientation": "portrait"}));
    let pdf = base64_decode(pdf.as_str().unwrap());
    assert!(pdf.starts_with(b"%PDF") && pdf.len() > 10_000, "{} bytes", pdf.len());
    let _ = std::fs::write(std::env::temp_dir().join("tessera-page-print.pdf"), &pdf);
}

/// The upload page lists past checks, newest first, when the server has the list
/// (`GET /api/checks`); without it (404/405) the card stays hidden.
fn past_checks(d: &Driver, base: &str) {
    let listed =
        agent().get(format!("{base}/api/checks?offset=0&limit=10")).call().is_ok_and(|r| r.status().is_success());
    let id = d.script("return state.checkId;");
    d.call("POST", &format!("/element/{}/click", d.find("#new-check")), json!({}));
    d.wait_for("return !document.getElementById('upload-view').hidden;");
    if listed {
        let first = d.wait_for(
            "const row = document.querySelector('#checks-list .check-row');
             return !document.getElementById('checks-card').hidden && row && row.textContent;",
        );
        assert!(first.as_str().unwrap().contains("thesis"), "{first}");
        accessible(d, "upload page with past checks");
        let row = d.find("#checks-list .check-link");
        d.call("POST", &format!("/element/{row}/click"), json!({}));
    } else {
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(d.script("return document.getElementById('checks-card').hidden;"), json!(true));
        d.call("POST", "/url", json!({"url": format!("{base}/?check={}", id.as_str().unwrap())}));
    }
    d.wait_for("return !document.getElementById('report-view').hidden && document.querySelectorAll('#document mark').length > 0;");
}

/// The page's source rows as (id, number, share in report as shown, "also in" line,
/// "holds passages of" line).
fn source_rows(d: &Driver) -> Vec<(u64, u64, String, String, String)> {
    let v = d.script(
        "return [...document.querySelectorAll('#sources .src-row[data-source]')].map(r => [
           Number(r.dataset.source), Number(r.dataset.n), r.querySelector('.report-share').textContent,
           (r.querySelector('.src-also-in') || {}).textContent || '', (r.querySelector('.src-copy-of') || {}).textContent || '']);",
    );
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = |i: usize| r[i].as_str().unwrap().to_owned();
            (r[0].as_u64().unwrap(), r[1].as_u64().unwrap(), text(2), text(3), text(4))
        })
        .collect()
}

/// A library holding a second copy of the Siberian rivers page: the thesis's passage of it
/// is counted for one of them; the other is listed as "also in" with nothing counted, and
/// takes the passage over (highlighted in its colour, totals unchanged) when the first is
/// switched off on the page.
#[test]
fn a_source_switched_off_hands_its_passage_to_its_copy() {
    let Some((chromium, chromedriver)) = browser() else { return };
    let shots = std::env::var_os("TESSERA_SCREENSHOTS").map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let index = demo_index(dir.path());
    let mirror = dir.path().join("mirror/rivers-mirror.txt");
    std::fs::create_dir_all(mirror.parent().unwrap()).unwrap();
    let rivers = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo/library/siberian-rivers.txt"),
    )
    .unwrap();
    std::fs::write(&mirror, &rivers).unwrap();
    let out = support::tessera()
        .args(["index", "--keep-texts", "--collection", "library", "--index"])
        .arg(&index)
        .arg(&mirror)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = ServeProcess::start(&index, &[]);
    let upload = dir.path().join("thesis.txt");
    std::fs::write(&upload, THESIS).unwrap();

    let d = Driver::start(&chromium, &chromedriver, &dir.path().join("profile"));
    d.call("POST", "/url", json!({"url": format!("{}/", server.base)}));
    d.wait_for("return document.querySelectorAll('#collection-list li').length >= 2;");
    let input = d.find("#file-input");
    d.call("POST", &format!("/element/{input}/value"), json!({"text": upload.to_str().unwrap()}));
    d.wait_for("return !document.getElementById('report-view').hidden && document.querySelectorAll('#document mark').length > 0;");
    let (b0, _, _) = totals(&d);

    let rows = source_rows(&d);
    let (first, copy) = {
        let first = rows.iter().find(|r| !r.3.is_empty()).unwrap_or_else(|| panic!("no source lists a copy: {rows:?}"));
        let copy = rows.iter().find(|r| !r.4.is_empty()).unwrap_or_else(|| panic!("no source is a copy: {rows:?}"));
        (first.clone(), copy.clone())
    };
    assert_eq!(first.3, format!("also in source {}", copy.1), "{rows:?}");
    assert_eq!(copy.4, format!("holds passages of source {} too", first.1), "{rows:?}");
    assert_eq!(copy.2, "0%", "a copy counts for nothing while its source counts: {rows:?}");
    // The copy's block repeats a passage: the header counts the four passages found.
    let meta = d.script("return document.getElementById('doc-meta').textContent;");
    assert!(meta.as_str().unwrap().contains(" · 4 highlighted passages · 5 sources"), "{meta}");
    let marked = |id: u64| {
        d.script(&format!("return document.querySelectorAll('#document mark.borrowing[data-source=\"{id}\"]').length;"))
    };
    assert_eq!(marked(copy.0), json!(0));
    assert_ne!(marked(first.0), json!(0));
    d.screenshot(shots.as_deref(), "page-also-in.png");

    // The comparison of the passage names the copy, and opens the copy's own comparison.
    let mark = d.find(&format!("#document mark.borrowing[data-source=\"{}\"]", first.0));
    d.call("POST", &format!("/element/{mark}/click"), json!({}));
    let also = d.wait_for(
        "return !document.getElementById('compare').hidden && document.getElementById('compare-also').textContent;",
    );
    assert_eq!(also, json!(format!("Also found in source {}", copy.1)));
    d.call("POST", &format!("/element/{}/click", d.find("#compare-also .copy-link")), json!({}));
    let kind = d.wait_for(&format!(
        "const k = document.getElementById('compare-kind').textContent; return k.endsWith('source {}') && k;",
        copy.1
    ));
    assert_eq!(kind, json!(format!("Borrowing · source {}", copy.1)));
    assert_eq!(
        d.script("return document.getElementById('compare-also').textContent;"),
        json!(format!("Also found in source {}", first.1))
    );
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));

    let toggle = d.find(&format!(".src-row[data-source=\"{}\"] input.source-toggle", first.0));
    d.call("POST", &format!("/element/{toggle}/click"), json!({}));
    d.wait_for(&format!(
        "return document.querySelector('.src-row[data-source=\"{}\"]').classList.contains('disabled');",
        first.0
    ));
    d.wait_for(&format!(
        "return document.querySelector('.src-row[data-source=\"{}\"] .report-share').textContent !== '0%';",
        copy.0
    ));
    let rows = source_rows(&d);
    let taken = rows.iter().find(|r| r.0 == copy.0).unwrap();
    assert_eq!(taken.2, first.2, "the copy takes over the share of the source switched off: {rows:?}");
    assert_eq!(totals(&d).0, b0, "borrowings stay: the passage is still found");
    assert_eq!(marked(first.0), json!(0));
    assert_ne!(marked(copy.0), json!(0));
}

/// A paragraph of the thesis's in a collection of fingerprints only (`web`,
/// `--snapshots-only`): its comparison can say where, not show the words.
const ARCHIVES: &str = "Public archives kept the letters of merchants, the minutes of city councils and the \
     registers of parishes long before anyone thought of them as sources of history. Historians who read them \
     today can follow how news of a distant war or a new law reached a small town, week by week, and how long a \
     rumour took to cross a mountain range.\n";

/// Uploads `file` from the upload page (the "New check" button first, from a report) and
/// waits for its report; returns the check's id.
fn check_on_the_page(d: &Driver, file: &Path) -> String {
    let before = d.script("return state.checkId;");
    if d.script("return document.getElementById('upload-view').hidden;") == json!(true) {
        d.call("POST", &format!("/element/{}/click", d.find("#new-check")), json!({}));
        d.wait_for("return !document.getElementById('upload-view').hidden;");
    }
    let input = d.find("#file-input");
    d.call("POST", &format!("/element/{input}/value"), json!({"text": file.to_str().unwrap()}));
    let id = d.wait_for(&format!(
        "return state.checkId && state.checkId !== {before} && state.report && !document.getElementById('report-view').hidden
           && document.querySelectorAll('#document mark').length > 0 && state.checkId;"
    ));
    id.as_str().unwrap().to_owned()
}

/// Opens the comparison of the first block of the source `source` and returns [head of the
/// source column, its text, its class, the earlier-submission line or null].
fn compare_source(d: &Driver, source: u64) -> Value {
    d.script(&format!("openCompare(state.report.blocks.find(b => b.source === {source} && b.copy_of == null).id);"));
    d.wait_for(
        "if (document.getElementById('compare').hidden) return false;
         const line = document.getElementById('compare-submission');
         return [document.getElementById('compare-source-head').textContent,
           document.getElementById('compare-source').textContent, document.getElementById('compare-source').className,
           line.hidden ? null : line.textContent];",
    )
}

/// Issue 48's walk on the page. The library is indexed with `tessera index`'s defaults
/// (texts kept), a paragraph in a collection of fingerprints only; the server keeps every
/// check as a submission (`--submissions theses`, shown in the upload's field). The first
/// check says where its document is kept; its comparisons show the library's text and,
/// for the other collection, why the text is missing (`text_missing`); its filters work
/// as in the first test. The same thesis checked again finds the first submission
/// ("Earlier submission", identical text). The first check's "Remove this submission"
/// (confirmed, by keyboard) removes it, and a third check finds only the second. axe-core
/// runs at each new state.
#[test]
fn submit_twice_find_the_first_remove_it() {
    const ENTER: &str = "\u{E007}";
    let Some((chromium, chromedriver)) = browser() else { return };
    let shots = std::env::var_os("TESSERA_SCREENSHOTS").map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/demo");
    std::fs::create_dir_all(dir.path().join("web")).unwrap();
    std::fs::write(dir.path().join("web/archives.txt"), ARCHIVES).unwrap();
    // Relative paths: the origins read `library/printing-press.txt`.
    for (collection, extra, folder, name) in [
        ("library", &[][..], &demo, "library"),
        ("citations", &["--kind", "citation"][..], &demo, "citations"),
        ("web", &["--snapshots-only"][..], &dir.path().to_path_buf(), "web"),
    ] {
        let out = support::tessera()
            .args(["index", "--collection", collection])
            .args(extra)
            .arg("--index")
            .arg(&index)
            .arg(name)
            .current_dir(folder)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let server = ServeProcess::start(&index, &["--submissions", "theses"]);
    let upload = dir.path().join("thesis.txt");
    std::fs::write(&upload, format!("{THESIS}\n{ARCHIVES}")).unwrap();

    let d = Driver::start(&chromium, &chromedriver, &dir.path().join("profile"));
    d.call("POST", "/url", json!({"url": format!("{}/", server.base)}));
    d.wait_for("return document.querySelectorAll('#collection-list li').length >= 3;");
    // The field names the server's default, and is labelled.
    let field = d.wait_for(
        "const i = document.getElementById('submit-to');
         return i.value && [i.value, i.labels[0].textContent, document.getElementById(i.getAttribute('aria-describedby')).textContent];",
    );
    assert_eq!(field[0], json!("theses"), "{field}");
    assert_eq!(field[1], json!("Keep as a submission in collection"), "{field}");
    accessible(&d, "upload page with the submission field");

    // 1. The first check: kept as a submission.
    let first = check_on_the_page(&d, &upload);
    let kept = d.wait_for(
        "return !document.getElementById('submission').hidden && state.check.submitted != null
           && [state.check.submitted, document.getElementById('submission-text').textContent,
               !document.getElementById('remove-submission').hidden];",
    );
    let first_doc = kept[0].as_u64().unwrap();
    assert_eq!(
        kept[1],
        json!(format!("Kept as submission {first_doc} in \u{201c}theses\u{201d}: later checks find this document.")),
        "{kept}"
    );
    assert_eq!(kept[2], json!(true), "{kept}");

    // The library keeps texts by default: its comparison shows the source's words.
    let ids = d.script(
        "const by = (re) => (state.report.sources.find(s => re.test(s.title)) || {}).id;
         return [by(/Printing Press/), state.report.sources.find(s => s.collection === 'web').id];",
    );
    let shown = compare_source(&d, ids[0].as_u64().unwrap());
    assert_eq!(shown[0], json!("Source"), "{shown}");
    assert_eq!(shown[2], json!(""), "the source's text, not its location: {shown}");
    assert!(shown[1].as_str().unwrap().contains("fifteenth century"), "{shown}");
    assert_eq!(shown[3], Value::Null, "not a submission: {shown}");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
    // The collection of fingerprints only: the report's sentence says why there is no text.
    let web = compare_source(&d, ids[1].as_u64().unwrap());
    let why = d.script(&format!("return state.report.sources.find(s => s.id === {}).text_missing;", ids[1]));
    let why = why.as_str().unwrap_or_else(|| panic!("no text_missing: {why}"));
    assert!(why.contains("keeps fingerprints only"), "{why}");
    assert_eq!(web[0], json!("Location in the source"), "{web}");
    assert_eq!(web[2], json!("location"), "{web}");
    assert!(web[1].as_str().unwrap().starts_with(why), "the comparison shows text_missing: {web}");
    accessible(&d, "comparison of a source whose text is missing");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
    filters_switch_and_totals_change(&d);
    accessible(&d, "report of a check kept as a submission");

    // 2. The same thesis again: the first submission is a source, identical.
    let second = check_on_the_page(&d, &upload);
    assert_ne!(second, first);
    let earlier = d.wait_for(
        "const r = document.querySelector('#sources .src-row .src-submission');
         return r && [r.closest('.src-row').dataset.source, r.textContent, r.querySelector('a').getAttribute('href')];",
    );
    let line = earlier[1].as_str().unwrap();
    assert!(line.starts_with(&format!("Earlier submission · check {}…", &first[..8])), "{earlier}");
    assert!(line.ends_with(" · identical text"), "{earlier}");
    assert_eq!(earlier[2], json!(format!("/?check={first}")), "{earlier}");
    let sub = d.script(&format!(
        "return state.report.sources.find(s => s.id === {}).submission;",
        earlier[0].as_str().unwrap()
    ));
    assert_eq!(sub["check_id"], json!(first), "{sub}");
    assert_eq!(sub["identical"], json!(true), "{sub}");
    let shown = compare_source(&d, earlier[0].as_str().unwrap().parse().unwrap());
    assert_eq!(shown[3].as_str(), Some(line), "the comparison names the earlier submission: {shown}");
    assert!(shown[1].as_str().unwrap().contains("fifteenth century"), "a submission's text is kept: {shown}");
    accessible(&d, "comparison with an earlier submission");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));
    d.screenshot(shots.as_deref(), "page-submission.png");
    accessible(&d, "report with an earlier submission among its sources");

    // 3. Back to the first check: remove its submission by keyboard, after a confirmation.
    d.call("POST", "/url", json!({"url": format!("{}/?check={first}", server.base)}));
    d.wait_for(
        "return !document.getElementById('report-view').hidden && !document.getElementById('submission').hidden
           && !document.getElementById('remove-submission').hidden;",
    );
    d.script("document.getElementById('remove-submission').focus();");
    // Cancelled: nothing changes, the focus stays on the button.
    d.keys(ENTER);
    let asked = d.call("GET", "/alert/text", Value::Null);
    assert!(asked.as_str().unwrap().starts_with(&format!("Remove submission {first_doc} from")), "{asked}");
    d.call("POST", "/alert/dismiss", json!({}));
    let kept = d.script(
        "return [document.activeElement.id, document.getElementById('submission-status').textContent,
           document.getElementById('remove-submission').hidden];",
    );
    assert_eq!(kept, json!(["remove-submission", "", false]), "{kept}");
    // Confirmed: removed, said in the live status line, the focus on what became of it.
    d.keys(ENTER);
    d.call("POST", "/alert/accept", json!({}));
    let removed = d.wait_for(
        "const s = document.getElementById('submission-status');
         return document.getElementById('remove-submission').hidden && s.textContent.endsWith('removed.')
           && [s.textContent, s.getAttribute('role'), s.getAttribute('aria-live'), document.activeElement.id,
               document.getElementById('submission-text').textContent];",
    );
    assert_eq!(
        removed,
        json!([
            format!("Submission {first_doc} removed."),
            "status",
            "polite",
            "submission-text",
            format!("Submission {first_doc} was removed from \u{201c}theses\u{201d}: later checks do not find it.")
        ]),
        "{removed}"
    );
    accessible(&d, "report after its submission was removed");

    // 4. A third check: the first submission is gone, the second is found.
    check_on_the_page(&d, &upload);
    let found = d.script(
        "return [state.report.sources.filter(s => s.submission).map(s => s.submission.check_id),
           [...document.querySelectorAll('#sources .src-submission')].map(l => l.textContent)];",
    );
    assert_eq!(found[0], json!([second]), "only the second submission is found: {found}");
    let lines = found[1].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{found}");
    assert!(lines[0].as_str().unwrap().contains(&format!("check {}…", &second[..8])), "{found}");
}

/// Chromium and chromedriver when `TESSERA_E2E=1` and both are installed; `None` (and why,
/// on stderr) otherwise: the test is skipped.
fn browser() -> Option<(PathBuf, PathBuf)> {
    if std::env::var("TESSERA_E2E").as_deref() != Ok("1") {
        eprintln!("skipped: set TESSERA_E2E=1 to run the headless Chromium test (.ci/run does)");
        return None;
    }
    let (Some(chromium), Some(chromedriver)) =
        (which("chromium").or_else(|| which("chromium-browser")), which("chromedriver"))
    else {
        eprintln!("skipped: chromium and chromedriver are not installed (apt-get install -y chromium chromium-driver)");
        return None;
    };
    Some((chromium, chromedriver))
}

/// axe-core (vendored in tests/support/axe, README there) run over the page as it stands:
/// no violation of impact "serious" or "critical" under any of its rules (WCAG 2.0, 2.1
/// and 2.2 A and AA, and its best practices). Every violation found is printed with its
/// rule, the elements and the rule's help page; the lesser ones do not fail the test.
fn accessible(d: &Driver, state: &str) {
    const AXE: &str = include_str!("support/axe/axe.min.js");
    // Injected by WebDriver, as the tester's own script: the page's Content-Security-Policy
    // (own scripts only) rightly refuses it as a <script> element.
    if d.script("return typeof window.axe === 'object';") != json!(true) {
        d.script(&format!("{AXE}\nreturn typeof window.axe;"));
    }
    let found = d.script_async(
        "const done = arguments[arguments.length - 1];
         axe.run(document, { resultTypes: ['violations'] }).then(
           (r) => done(r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
             nodes: v.nodes.length,
             found: v.nodes.slice(0, 6).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' ')) }))),
           (e) => done({ error: String(e) }));",
    );
    let violations = found.as_array().unwrap_or_else(|| panic!("axe did not run on the {state}: {found}"));
    let mut failing = Vec::new();
    for v in violations {
        let impact = v["impact"].as_str().unwrap_or("unknown");
        let line = format!(
            "axe, {state}: {impact} `{}` on {} element(s): {} ({}){}",
            v["id"].as_str().unwrap_or_default(),
            v["nodes"],
            v["help"].as_str().unwrap_or_default(),
            v["url"].as_str().unwrap_or_default(),
            v["found"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| format!("\n    {}", n.as_str().unwrap_or_default()))
                .collect::<String>(),
        );
        eprintln!("{line}");
        if matches!(impact, "serious" | "critical") {
            failing.push(line);
        }
    }
    eprintln!("axe, {state}: {} violation(s), {} serious or critical", violations.len(), failing.len());
    assert!(failing.is_empty(), "axe found serious or critical violations on the {state}:\n{}", failing.join("\n"));
}

/// Where hidden text was left out, the text has a red bar (no characters of its own): a
/// named image to a screen reader. The demo has none, so the report is shown once with a
/// made-up notice of one, then as it was.
fn hidden_text_gap(d: &Driver) {
    d.script(
        "window.savedReport = state.report;
         const r = JSON.parse(JSON.stringify(state.report));
         r.suspect.warnings = (r.suspect.warnings || []).concat([{ kind: 'hidden_text', bypass: true, count: 12,
           message: 'hidden text: 12 characters left out',
           locations: [{ span: { bytes: { start: 5, end: 5 }, chars: { start: 5, end: 5 } } }] }]);
         renderReport(r);",
    );
    let gap = d.script(
        "const g = document.querySelector('#document .trick.gap');
         return g && [g.getAttribute('role'), g.getAttribute('aria-label')];",
    );
    assert_eq!(gap, json!(["img", "hidden text was left out here"]), "{gap}");
    accessible(d, "report with a place where hidden text was left out");
    d.script("renderReport(window.savedReport);");
}

/// At 360 pixels wide (a phone, or a wide window zoomed to 400%: WCAG 1.4.10) the report
/// and the comparison fit the width: nothing scrolls sideways and the dialog's close
/// button is inside it.
fn reflows(d: &Driver) {
    let was = d.call("GET", "/window/rect", Value::Null);
    let viewport = d.script("return [innerWidth, innerHeight];");
    d.call("POST", "/window/rect", json!({"width": 360, "height": 800}));
    let fits = d.wait_for(
        "if (innerWidth > 400) return false;
         const page = document.documentElement.scrollWidth <= innerWidth;
         openCompare(0);
         const dialog = document.querySelector('#compare .dialog').getBoundingClientRect();
         const close = document.getElementById('compare-close').getBoundingClientRect();
         const inside = close.right <= dialog.right && close.left >= dialog.left;
         const sideways = document.querySelector('#compare .dialog').scrollWidth > document.querySelector('#compare .dialog').clientWidth;
         closeCompare();
         return [page, inside, !sideways];",
    );
    d.call("POST", "/window/rect", json!({"width": was["width"], "height": was["height"]}));
    // The screenshots after this are taken at the same size as before.
    d.wait_for(&format!("return JSON.stringify([innerWidth, innerHeight]) === '{viewport}';"));
    assert_eq!(fits, json!([true, true, true]), "page fits, close button inside, dialog fits: {fits}");
}

/// The report by keyboard alone: the skip link leads to the text, Tab reaches a passage,
/// Enter opens its comparison with the focus in the dialog (which keeps it while Tab
/// goes round), Escape closes it and the focus is back on the passage; a passage row of
/// the list opens with Space and gets the focus back too.
fn keyboard_walk(d: &Driver) {
    const TAB: &str = "\u{E004}";
    const ENTER: &str = "\u{E007}";
    const ESCAPE: &str = "\u{E00C}";
    // Where the focus is: [tag, id, block, inside the dialog, class, first words].
    let now = "(() => { const a = document.activeElement;
         return [a.tagName, a.id, a.dataset.block || null, !!a.closest('#compare'), a.className, a.textContent.slice(0, 40)]; })()";
    let focused = &format!("return {now};");
    // From the top: the skip link comes first and leads to the report's text.
    d.script("window.scrollTo(0, 0); document.activeElement.blur();");
    d.call("POST", "/url", json!({"url": d.script("return location.href;")}));
    d.wait_for("return !document.getElementById('report-view').hidden && document.querySelectorAll('#document mark').length > 0;");
    d.keys(TAB);
    let at = d.script(focused);
    assert_eq!(at[1], json!("skip-link"), "the first Tab reaches the skip link: {at}");
    let label = d.script("return document.activeElement.textContent;");
    assert_eq!(label, json!("Skip to the report"), "{label}");
    d.keys(ENTER);
    let at = d.script(focused);
    assert_eq!(at[1], json!("document"), "the skip link leads to the text: {at}");
    d.keys(TAB);
    let at = d.script(focused);
    assert_eq!(at[0], json!("MARK"), "Tab reaches the first passage: {at}");
    let first = at[2].clone();
    assert_eq!(
        d.script("return document.activeElement === document.querySelector('#document mark[role=button]');"),
        json!(true),
        "{at}"
    );
    // Every passage shown in the text is a button (the first piece of its block), and
    // the text is one Tab stop: a roving tabindex.
    let stops = d.script(
        "const buttons = [...document.querySelectorAll('#document mark[role=button]')].map(m => Number(m.dataset.block));
         const shown = new Set([...document.querySelectorAll('#document mark')].map(m => Number(m.dataset.block)));
         return [buttons.length, new Set(buttons).size, shown.size,
           document.querySelectorAll('#document [tabindex=\"0\"]').length];",
    );
    assert_eq!(stops[0], stops[2], "a button per passage shown: {stops}");
    assert_eq!(stops[1], stops[2], "a button per passage shown: {stops}");
    assert_eq!(stops[3], json!(1), "one Tab stop in the text: {stops}");
    // The arrow keys go from passage to passage; End to the last, Home to the first.
    d.keys("\u{E015}"); // ArrowDown
    let at = d.script(focused);
    assert_eq!(at[0], json!("MARK"), "{at}");
    assert_ne!(at[2], first, "ArrowDown goes to the next passage: {at}");
    let block = at[2].clone();
    d.keys("\u{E010}"); // End
    let last = d.script(
        "return [document.activeElement === [...document.querySelectorAll('#document mark[role=button]')].pop()];",
    );
    assert_eq!(last, json!([true]), "End goes to the last passage");
    d.keys("\u{E011}\u{E015}"); // Home, ArrowDown
    assert_eq!(d.script(focused)[2], block, "Home goes to the first passage");
    // Tab leaves the text at once, and Shift+Tab comes back to the passage it left.
    d.keys(TAB);
    assert_eq!(d.script("return !!document.activeElement.closest('#document');"), json!(false));
    let back = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
        {"type": "keyDown", "value": "\u{E008}"}, {"type": "keyDown", "value": TAB},
        {"type": "keyUp", "value": TAB}, {"type": "keyUp", "value": "\u{E008}"}]}]});
    d.call("POST", "/actions", back);
    assert_eq!(d.script(focused)[2], block, "Shift+Tab comes back to the same passage");

    d.keys(ENTER);
    let at = d.wait_for(&format!("return !document.getElementById('compare').hidden && {now};"));
    assert_eq!(at[3], json!(true), "the dialog takes the focus: {at}");
    assert_eq!(at[1], json!("compare-title"), "on its heading: {at}");
    for _ in 0..8 {
        d.keys(TAB);
        let at = d.script(focused);
        assert_eq!(at[3], json!(true), "Tab stays in the dialog: {at}");
    }
    accessible(d, "comparison dialog, opened by keyboard");
    d.keys(ESCAPE);
    let at = d.wait_for(&format!("return document.getElementById('compare').hidden && {now};"));
    assert_eq!(at[0], json!("MARK"), "the focus is back on the passage: {at}");
    assert_eq!(at[2], block, "on the same passage: {at}");

    // A row of the passage list: Space opens it, Escape brings the focus back to it.
    d.script("document.querySelector('#passages .psg-row[data-block] button').focus();");
    let row = d.script("return document.activeElement.dataset.block;");
    d.keys(" ");
    d.wait_for("return !document.getElementById('compare').hidden && document.activeElement.id === 'compare-title';");
    d.keys(ESCAPE);
    let back = d.wait_for(
        "return document.getElementById('compare').hidden && document.activeElement.closest('#passages') && document.activeElement.dataset.block;",
    );
    assert_eq!(back, row, "the focus is back on the row");
}

/// The filters bar (issue 48, part 3): each filter is a labelled control that PATCHes the
/// report; the totals follow, excluded passages say why, and switched back the report is
/// as before.
fn filters_switch_and_totals_change(d: &Driver) {
    let (b0, c0, o0) = totals(d);
    let labelled = d.script(
        "return ['filter-quotes','filter-bibliography','filter-min-words','filter-min-percent']
           .every(id => document.getElementById(id).closest('label') !== null);",
    );
    assert_eq!(labelled, json!(true), "every filter is a labelled control");
    let set = |id: &str, value: &str| {
        d.script(&format!(
            "const i = document.getElementById('{id}'); i.value = '{value}'; i.dispatchEvent(new Event('change'));"
        ));
    };
    // Matches under 100,000 words: nothing is borrowed or cited any more.
    set("filter-min-words", "100000");
    d.wait_for("return state.report.filters && state.report.filters.min_words === 100000;");
    assert_eq!(totals(d), (0.0, 0.0, 100.0));
    let why = d.wait_for("return document.querySelector('#passages .psg-row.excluded .psg-where').textContent;");
    assert!(why.as_str().unwrap().contains("excluded: fewer than 100000 words"), "{why}");
    assert!(
        d.script("return document.getElementById('filters-status').textContent;")
            .as_str()
            .unwrap()
            .contains("excluded")
    );
    accessible(d, "report with every passage excluded by a filter");
    set("filter-min-words", "0");
    d.wait_for("return !state.report.filters;");
    assert_eq!(totals(d), (b0, c0, o0));
    // Sources under 100 %: every source is out.
    set("filter-min-percent", "100");
    d.wait_for("return state.report.filters && state.report.filters.min_percent === 100;");
    assert_eq!(totals(d).0, 0.0);
    set("filter-min-percent", "0");
    d.wait_for("return !state.report.filters;");
    // The two switches: each one stored in the report, and off again.
    for id in ["filter-quotes", "filter-bibliography"] {
        let field = if id == "filter-quotes" { "exclude_quotes" } else { "exclude_bibliography" };
        d.call("POST", &format!("/element/{}/click", d.find(&format!("#{id}"))), json!({}));
        d.wait_for(&format!("return state.report.filters && state.report.filters.{field} === true;"));
        d.call("POST", &format!("/element/{}/click", d.find(&format!("#{id}"))), json!({}));
        d.wait_for("return !state.report.filters;");
    }
    assert_eq!(totals(d), (b0, c0, o0));
}

fn totals(d: &Driver) -> (f64, f64, f64) {
    let v = d.script(
        "return ['total-borrowings','total-citations','total-originality'].map(id => parseFloat(document.getElementById(id).textContent));",
    );
    let a = v.as_array().unwrap();
    (a[0].as_f64().unwrap(), a[1].as_f64().unwrap(), a[2].as_f64().unwrap())
}

#[test]
fn upload_on_the_page_read_totals_switch_a_source_off() {
    let Some((chromium, chromedriver)) = browser() else { return };
    let shots = std::env::var_os("TESSERA_SCREENSHOTS").map(PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let index = demo_index(dir.path());
    let server = ServeProcess::start(&index, &[]);
    let upload = dir.path().join("thesis.txt");
    std::fs::write(&upload, thesis_with_tricks()).unwrap();

    let d = Driver::start(&chromium, &chromedriver, &dir.path().join("profile"));
    d.call("POST", "/url", json!({"url": format!("{}/", server.base)}));
    d.wait_for("return document.querySelectorAll('#collection-list li').length >= 2;");
    d.screenshot(shots.as_deref(), "page-upload.png");
    accessible(&d, "upload page");
    // The progress view passes by in a moment: shown here as a check in progress shows it.
    d.script(
        "show('progress-view'); $('progress-name').textContent = 'thesis.txt';
         setProgress(0.6, 'Searching collections: 1 of 2');",
    );
    accessible(&d, "progress of a check");
    let bar = d.script(
        "const b = document.querySelector('[role=progressbar]');
         return [b.getAttribute('aria-valuenow'), b.getAttribute('aria-label')];",
    );
    assert_eq!(bar, json!(["60", "Progress of the check"]), "{bar}");
    d.script("show('upload-view');");

    let input = d.find("#file-input");
    d.call("POST", &format!("/element/{input}/value"), json!({"text": upload.to_str().unwrap()}));
    d.wait_for("return !document.getElementById('report-view').hidden && document.querySelectorAll('#document mark').length > 0;");
    let (b0, c0, o0) = totals(&d);
    assert!(b0 > 0.0 && c0 > 0.0 && o0 > 0.0, "{b0} {c0} {o0}");
    assert!((b0 + c0 + o0 - 100.0).abs() < 0.5);
    d.screenshot(shots.as_deref(), "page-report.png");
    accessible(&d, "report");
    reflows(&d);
    hidden_text_gap(&d);

    numbered_sorted_and_isolated(&d);
    notice_at_its_place(&d, shots.as_deref());
    word_differences(&d, shots.as_deref());
    sentence_pairs_side_by_side(&d, shots.as_deref());
    passages_listed_with_confidence(&d);
    print_layout(&d, shots.as_deref());
    past_checks(&d, &server.base);
    keyboard_walk(&d);
    filters_switch_and_totals_change(&d);

    // Compare a borrowed passage with its source.
    let mark = d.find("#document mark.borrowing");
    d.call("POST", &format!("/element/{mark}/click"), json!({}));
    let excerpt = d.wait_for(
        "return !document.getElementById('compare').hidden && document.getElementById('compare-source').textContent;",
    );
    assert!(excerpt.as_str().unwrap().contains("fifteenth century"), "{excerpt}");
    d.call("POST", &format!("/element/{}/click", d.find("#compare-close")), json!({}));

    // Switch the first borrowing source off: borrowings fall, originality rises.
    let toggle = d.find(".src-row:has(.kind.source) input.source-toggle");
    d.call("POST", &format!("/element/{toggle}/click"), json!({}));
    d.wait_for(&format!("return parseFloat(document.getElementById('total-borrowings').textContent) !== {b0};"));
    let (b1, _, o1) = totals(&d);
    assert!(b1 < b0 && o1 > o0, "borrowings {b0} -> {b1}, originality {o0} -> {o1}");
    assert_eq!(d.script("return document.querySelectorAll('.src-row.disabled').length;"), json!(1));
    // The pointer leaves the source list, so its hover outline is not in the picture.
    let away = json!({"actions": [{"type": "pointer", "id": "mouse", "actions": [
        {"type": "pointerMove", "x": 5, "y": 5, "origin": "viewport"}]}]});
    d.call("POST", "/actions", away);
    d.screenshot(shots.as_deref(), "page-edited.png");
    accessible(&d, "report with a source switched off");

    // The edit is stored: a reload shows the same totals.
    d.call("POST", "/refresh", json!({}));
    d.wait_for("return !document.getElementById('report-view').hidden;");
    assert_eq!(totals(&d).0, b1);
}
