// Tessera web page: upload, follow the check, read and edit the report.
// Plain JavaScript, no build step; talks to the JSON API of the same server.
"use strict";

const $ = (id) => document.getElementById(id);

const state = { health: null, checkId: null, report: null, pollTimer: null, chars: null, isolated: null, passageSort: "position", removedSubmissions: new Set(), removing: false };

// ---------- API ----------

function token() {
  return localStorage.getItem("tessera-token") || "";
}

function authHeaders(extra) {
  const h = Object.assign({}, extra || {});
  if (token()) h["Authorization"] = "Bearer " + token();
  return h;
}

async function api(method, path, body) {
  const opts = { method, headers: authHeaders(body ? { "Content-Type": "application/json" } : {}) };
  if (body) opts.body = JSON.stringify(body);
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    const msg = data && data.error ? data.error.message : res.status + " " + res.statusText;
    throw Object.assign(new Error(msg), { status: res.status });
  }
  return data;
}

// What to send as a check's `submit_to`, from the "Keep as a submission in collection"
// field: the name typed, or "" (keep nothing) when the reviewer cleared the server's
// default; null (leave it to the server) when the page does not know the default and the
// field is empty.
function submitTo() {
  const name = $("submit-to").value.trim();
  const known = !!state.health && "submissions" in state.health;
  return name || known ? name : null;
}

function uploadFile(file, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("file", file, file.name);
    const keep = submitTo();
    if (keep != null) form.append("submit_to", keep);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/checks");
    if (token()) xhr.setRequestHeader("Authorization", "Bearer " + token());
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
      if (xhr.status === 202 && data) resolve(data);
      else reject(new Error(data && data.error ? data.error.message : "upload failed (" + xhr.status + ")"));
    };
    xhr.onerror = () => reject(new Error("the server cannot be reached"));
    xhr.send(form);
  });
}

// ---------- Formatting ----------

function pct(x) {
  if (x === 0) return "0%";
  if (x < 0.1) return "<0.1%";
  if (x > 99.9 && x < 100) return ">99.9%";
  return (Math.round(x * 10) / 10).toFixed(1) + "%";
}

function bytes(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(n >= 1e7 ? 0 : 1) + " MB";
  if (n >= 1e3) return Math.round(n / 1e3) + " kB";
  return n + " B";
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

// ---------- Views ----------

function show(view) {
  for (const v of ["upload-view", "progress-view", "report-view"]) $(v).hidden = v !== view;
  $("skip-link").textContent = view === "report-view" ? "Skip to the report" : "Skip to the main content";
}

// A sentence for screen readers (a polite live region): what changed on the page.
function announce(text) {
  const box = $("announce");
  box.textContent = "";
  // A new node, a moment later: read even when the same words come twice.
  setTimeout(() => { box.textContent = text; }, 50);
}

function showUpload(message) {
  stopPolling();
  state.checkId = null;
  state.report = null;
  history.replaceState(null, "", "/");
  show("upload-view");
  $("upload-error").hidden = !message;
  $("upload-error").textContent = message || "";
  loadChecks(0);
}

function setProgress(fraction, text) {
  $("progress-bar").style.width = Math.max(2, Math.min(100, fraction * 100)) + "%";
  $("progress-bar").setAttribute("aria-valuenow", String(Math.round(Math.max(0, Math.min(1, fraction)) * 100)));
  $("status").textContent = text;
}

// ---------- Upload ----------

async function startFile(file) {
  if (!file) return;
  const limit = state.health ? state.health.max_upload_bytes : Infinity;
  if (file.size > limit) { showUpload(file.name + " is " + bytes(file.size) + "; the limit is " + bytes(limit) + "."); return; }
  show("progress-view");
  $("progress-name").textContent = file.name;
  setProgress(0, "Uploading…");
  try {
    const accepted = await uploadFile(file, (f) => setProgress(f * 0.3, "Uploading… " + Math.round(f * 100) + "%"));
    // An archive gives one check per member: remember them so the report can switch.
    if (accepted.members && accepted.members.length) sessionStorage.setItem("tessera-members", JSON.stringify({ members: accepted.members, skipped: accepted.skipped }));
    else sessionStorage.removeItem("tessera-members");
    follow(accepted.id);
  } catch (e) {
    showUpload(e.message);
  }
}

async function startText(text, title) {
  if (!text.trim()) return;
  show("progress-view");
  $("progress-name").textContent = title || "Pasted text";
  setProgress(0.05, "Sending…");
  try {
    const body = { text, title: title || null, name: "pasted-text" };
    const keep = submitTo();
    if (keep != null) body.submit_to = keep;
    const accepted = await api("POST", "/api/checks", body);
    follow(accepted.id);
  } catch (e) {
    showUpload(e.message);
  }
}

function follow(id) {
  state.checkId = id;
  state.isolated = null;
  $("submission-status").textContent = "";
  history.replaceState(null, "", "/?check=" + id);
  show("progress-view");
  poll();
}

function stopPolling() {
  if (state.pollTimer) clearTimeout(state.pollTimer);
  state.pollTimer = null;
}

async function poll() {
  stopPolling();
  const id = state.checkId;
  if (!id) return;
  let check;
  try {
    check = await api("GET", "/api/checks/" + id + "?report=false");
  } catch (e) {
    showUpload(e.message);
    return;
  }
  if (id !== state.checkId) return;
  $("progress-name").textContent = check.name;
  const stageText = {
    queued: check.queue_position ? "Waiting in the queue (" + check.queue_position + " ahead)" : "Waiting for a worker",
    extracting: "Reading the text of the document",
    searching: "Searching collections: " + check.progress.collections_done + " of " + check.progress.collections_total,
    waiting: "Some collections are late; the report is partial",
    finished: "Done",
  }[check.stage] || check.stage;
  setProgress(0.3 + 0.7 * check.percent / 100, stageText);
  if (check.status === "failed") { showUpload("The check failed: " + check.error); return; }
  if (check.status === "done" || check.status === "partial") {
    const full = await api("GET", "/api/checks/" + id).catch((e) => { showUpload(e.message); return null; });
    if (!full || id !== state.checkId) return;
    state.check = full;
    renderReport(full.report);
    show("report-view");
    const t = full.report.totals;
    announce("The report is ready: " + pct(t.borrowings) + " borrowings, " + pct(t.citations) + " citations, " + pct(t.originality) + " original.");
    // A partial report completes when the late collections answer.
    if (check.status === "partial") state.pollTimer = setTimeout(pollPartial, 1500);
    return;
  }
  state.pollTimer = setTimeout(poll, 400);
}

async function pollPartial() {
  const id = state.checkId;
  const check = await api("GET", "/api/checks/" + id).catch(() => null);
  if (!check || id !== state.checkId) return;
  if (check.status === "done") { state.check = check; renderReport(check.report); return; }
  state.pollTimer = setTimeout(pollPartial, 1500);
}

// ---------- Report ----------

// The source colours, the same twelve as the HTML report (crates/report/src/render/html.rs,
// PALETTE): a strong colour for number badges and underlines (white text on it >= 4.5:1)
// and a light fill behind the text (dark text on it >= 9:1). Source 13 and on repeat
// them with stripes, 25 and on with dots; the number on each block tells them apart.
const PALETTE = [["#c2410c", "#ffd8a8"], ["#1864ab", "#a5d8ff"], ["#a61e4d", "#fcc2d7"], ["#5f3dc4", "#d0bfff"],
  ["#0b7285", "#99e9f2"], ["#8a5a00", "#ffe066"], ["#862e9c", "#eebefa"], ["#4d7c0f", "#d8f5a2"],
  ["#c92a2a", "#ffc9c9"], ["#364fc7", "#bac8ff"], ["#7c4a2d", "#ecd5c0"], ["#495057", "#dee2e6"]];

function sourceColours(number) {
  const at = Math.max(1, number) - 1;
  const [strong, light] = PALETTE[at % PALETTE.length];
  const round = Math.floor(at / PALETTE.length) % 3;
  const fill = round === 0 ? light
    : round === 1 ? "repeating-linear-gradient(135deg," + light + " 0 6px,#fff 6px 8px)"
    : "radial-gradient(circle,#fff 1.2px,transparent 1.6px) 0 0/6px 6px," + light;
  return { strong, fill };
}

function sourceStyle(number) {
  const c = sourceColours(number);
  return "--c:" + c.strong + ";--f:" + c.fill;
}

// Which block decides each stretch of text, and which blocks cover it. Who each character
// is counted for comes from the report's segments, computed by the engine by the counting
// rules of SCHEMA.md (the page applies no rule of its own); a stretch no segment holds but
// blocks cover is shown as not counted. Stretches are cut where a block, a segment or a
// notice location starts or ends, so each can be marked inside.
function segments(report) {
  const blocks = report.blocks;
  const owned = report.segments || [];
  const cuts = new Set([0, report.suspect.char_len]);
  for (const b of blocks) { cuts.add(b.suspect_span.chars.start); cuts.add(b.suspect_span.chars.end); }
  for (const s of owned) { cuts.add(s.span.chars.start); cuts.add(s.span.chars.end); }
  for (const t of tricks(report)) { cuts.add(t.start); cuts.add(t.end); }
  const points = [...cuts].filter((p) => p >= 0 && p <= report.suspect.char_len).sort((a, b) => a - b);
  const out = [];
  let k = 0; // segments are in text order and never overlap
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i], end = points[i + 1];
    if (start >= end) continue;
    while (k < owned.length && owned[k].span.chars.end <= start) k++;
    const seg = owned[k] && owned[k].span.chars.start <= start && end <= owned[k].span.chars.end ? owned[k] : null;
    const covering = blocks.filter((b) => b.suspect_span.chars.start <= start && end <= b.suspect_span.chars.end);
    out.push({ start, end, decider: seg ? blocks[seg.block] : undefined, kind: seg ? seg.kind : null, covering });
  }
  return out;
}

// Every location of every notice: { start, end, notice index, location index, id }.
function tricks(report) {
  const out = [];
  (report.suspect.warnings || []).forEach((w, n) => {
    (w.locations || []).forEach((l, i) => {
      const s = l.span.chars;
      out.push({ start: s.start, end: Math.max(s.start, s.end), n, i, id: "trick-" + n + "-" + i, notice: w });
    });
  });
  return out;
}

function trickLabel(notice) {
  return (notice.bypass ? "Trick to hide copied text: " : "") + explainNotice(notice, state.chars || []);
}

function renderDocument(report) {
  const chars = state.chars;
  const doc = $("document");
  doc.textContent = "";
  const frag = document.createDocumentFragment();
  const sources = new Map(report.sources.map((s) => [s.id, s]));
  const all = tricks(report);
  const placed = new Set();
  const gapMark = (t) => el("span", { class: "trick gap", id: t.id, "data-notice": t.n, title: trickLabel(t.notice), role: "img", "aria-label": "hidden text was left out here" });
  let last = null; // { source, end } of the last highlighted stretch
  // The first stretch of each block shown is its button (Enter or Space opens the
  // comparison); the text is one Tab stop, the arrow keys go from passage to passage
  // (a roving tabindex: see rove()).
  const stops = new Set();
  for (const seg of segments(report)) {
    for (const t of all) {
      if (t.start === seg.start && t.end === t.start && !placed.has(t.id)) { placed.add(t.id); frag.append(gapMark(t)); }
    }
    let content = chars.slice(seg.start, seg.end).join("");
    const trick = all.find((t) => t.start <= seg.start && seg.end <= t.end && t.start < t.end);
    if (trick) {
      const attrs = { class: "trick", "data-notice": trick.n, title: trickLabel(trick.notice) };
      if (!placed.has(trick.id)) { attrs.id = trick.id; placed.add(trick.id); }
      content = el("span", attrs, content);
    }
    if (!seg.covering.length) { frag.append(content); last = null; continue; }
    const b = seg.decider || seg.covering[0];
    const src = sources.get(b.source);
    const first = !last || last.source !== src.id || last.end !== seg.start;
    last = { source: src.id, end: seg.end };
    const cls = (seg.decider ? seg.kind || b.kind : "off") + (first ? " first" : "") + (b.excluded ? " excluded" : "");
    const label = "Source " + src.number + ": " + (src.title || src.origin || "document " + src.id) + " — " + (seg.decider ? seg.kind || b.kind : "not counted") + " · " + confidenceOf(b) + "% sure" + foundBySuffix(b) + excludedSuffix(b);
    const mark = el("mark", { class: cls, "data-block": b.id, "data-source": b.source, "data-n": src.number, title: label, style: sourceStyle(src.number) }, content);
    if (!stops.has(b.id)) {
      stops.add(b.id);
      mark.tabIndex = -1;
      mark.setAttribute("role", "button");
      mark.setAttribute("aria-haspopup", "dialog");
    }
    frag.append(mark);
  }
  for (const t of all) if (!placed.has(t.id)) frag.append(gapMark(t));
  doc.append(frag);
  // The Tab stop stays on the passage the reviewer was at, across re-renders.
  const at = doc.querySelector('mark[role="button"][data-block="' + state.roving + '"]') || doc.querySelector('mark[role="button"]');
  if (at) at.tabIndex = 0;
  applyIsolation();
}

function renderTotals(report) {
  const t = report.totals;
  $("total-borrowings").textContent = pct(t.borrowings);
  $("total-citations").textContent = pct(t.citations);
  $("total-originality").textContent = pct(t.originality);
  for (const [id, v] of [["total-borrowings", t.borrowings], ["total-citations", t.citations], ["total-originality", t.originality]]) $(id).dataset.value = v;
  $("bar-b").style.width = t.borrowings + "%";
  $("bar-c").style.width = t.citations + "%";
  $("bar-o").style.width = t.originality + "%";
  const edited = report.sources.some((s) => !s.enabled) || report.blocks.some((b) => b.kind !== b.detected_kind);
  $("edited-note").hidden = !edited;
}

function renderSources(report) {
  const list = $("sources");
  list.textContent = "";
  $("source-count").textContent = report.sources.length ? "(" + report.sources.length + ")" : "";
  if (!report.sources.length) {
    list.append(el("li", { class: "src-row" }, el("span"), el("span", { class: "muted", text: "No borrowed passages were found." })));
  }
  for (const s of report.sources) {
    const isUrl = /^https?:\/\//i.test(s.origin);
    const title = s.title || s.origin || "Document " + s.id;
    const toggle = el("input", { type: "checkbox", class: "source-toggle", "data-source": s.id, "aria-label": "Count source " + s.number });
    toggle.checked = s.enabled;
    toggle.addEventListener("change", async () => {
      const r = await editReport({ sources: [{ id: s.id, enabled: toggle.checked }] });
      // The list is rebuilt: the keyboard's place is the same source's new switch.
      const again = document.querySelector('#sources .source-toggle[data-source="' + s.id + '"]');
      if (again && document.activeElement === document.body) again.focus();
      if (r) announce("Source " + s.number + (toggle.checked ? " counted" : " switched off") + ". Borrowings " + pct(r.totals.borrowings) + ", originality " + pct(r.totals.originality) + ".");
    });
    const origin = !s.title || !s.origin ? null
      : isUrl ? el("a", { class: "src-origin", href: s.origin, target: "_blank", rel: "noopener noreferrer", text: s.origin })
      : el("div", { class: "src-origin", text: s.origin });
    const badge = el("button", { type: "button", class: "num-badge", "data-n": s.number, title: "Show only the passages of source " + s.number, "aria-label": "Source " + s.number + ": show only its passages", "aria-pressed": "false" }, String(s.number));
    const li = el("li", { class: "src-row" + (s.enabled ? "" : " disabled"), "data-source": s.id, "data-n": s.number, style: sourceStyle(s.number) },
      badge,
      el("div", { class: "src-main" },
        el("div", { class: "src-title", text: title }),
        origin,
        el("div", { class: "src-meta" },
          el("span", { class: "kind " + s.kind, text: s.kind === "citation" ? "citation" : "source" }),
          " · " + s.collection + " · " + s.blocks + (s.blocks === 1 ? " passage" : " passages")),
        (s.seen_at && s.seen_at.length) ? el("div", { class: "src-meta src-seen", text: "also seen at: " + s.seen_at.join(", ") }) : null,
        submissionLine(s.submission),
        copyLine(report, "also in", s.copies, "src-also-in"),
        copyLine(report, "holds passages of", s.copy_of, "src-copy-of", "too")),
      el("div", { class: "shares" },
        el("div", { class: "report-share", title: "Share in report", text: pct(s.share_in_report) }),
        el("div", { class: "text-share", title: "Share in text", text: pct(s.share_in_text) })),
      el("div", { class: "src-controls" },
        el("label", { class: "switch" }, s.enabled ? "counted" : "switched off", toggle)));
    badge.addEventListener("click", () => isolate(s.id));
    li.querySelector(".src-title").addEventListener("click", () => isolate(s.id));
    li.addEventListener("mouseenter", () => highlight(s.id, true));
    li.addEventListener("mouseleave", () => highlight(s.id, false));
    // Focus by keyboard outlines the passages as hovering does (not after a click).
    li.addEventListener("focusin", (e) => { if (e.target.matches(":focus-visible")) highlight(s.id, true); });
    li.addEventListener("focusout", () => highlight(s.id, false));
    list.append(li);
  }
  applyIsolation();
}

// "also in sources 4, 7" (the other sources holding passages of this one's blocks) or
// "holds passages of source 1 too": each number a button showing that source's passages.
// null when the list is empty.
function copyLine(report, label, ids, cls, tail) {
  const numbered = (ids || []).map((id) => report.sources.find((o) => o.id === id)).filter(Boolean);
  if (!numbered.length) return null;
  const line = el("div", { class: "src-meta src-copies " + cls }, label + (numbered.length === 1 ? " source " : " sources "));
  numbered.forEach((o, i) => {
    if (i) line.append(", ");
    const go = el("button", { type: "button", class: "copy-link", "data-n": o.number, title: "Show only the passages of source " + o.number, "aria-label": "Source " + o.number + ": show only its passages" }, String(o.number));
    go.addEventListener("click", (e) => { e.stopPropagation(); isolate(o.id); });
    line.append(go);
  });
  if (tail) line.append(" " + tail);
  return line;
}

// A block's confidence (percent) as a pill: how sure Tessera is that it was taken from
// its source. Reports made before confidence existed have none: shown as sure.
function confidenceOf(b) {
  return Number.isInteger(b.confidence) ? b.confidence : 100;
}

// What a block is called next to its confidence, as the static HTML report words it
// (crates/report: Label::words): its label, what the comparison of its two sides shows
// ("copied" only when the words are the same); for reports made before labels, how it
// was found; empty for reports made before either.
const LABELS = {
  copied: "copied",
  edited: "copied with edits",
  reworded: "reworded",
  summary: "summary of a longer passage",
  translated: "translated from another language",
};
const FOUND_BY = {
  copy: "copied",
  rewording: "reworded",
  summary: "summary of a longer passage",
  translation: "translated from another language",
};
function foundBySuffix(b) {
  const words = LABELS[b.label] || FOUND_BY[b.found_by];
  return words ? " · " + words : "";
}

// ---------- Filters ----------

// Why a filter takes a block out (the report's blocks[].excluded), as the report crate
// words it (Exclusion::describe).
function excludedReason(b, filters) {
  const f = filters || {};
  switch (b.excluded) {
    case "quote": return "in quotation marks: counted as a citation (filter)";
    case "bibliography": return "in the bibliography: not counted (filter)";
    case "min_words": return "fewer than " + f.min_words + " words: not counted (filter)";
    case "min_percent": return "source under " + f.min_percent + "% of the text: not counted (filter)";
    default: return b.excluded ? "excluded (" + b.excluded + ")" : "";
  }
}

function excludedSuffix(b) {
  return b.excluded ? " · excluded: " + excludedReason(b, state.report && state.report.filters) : "";
}

// The filters bar shows the report's filters (absent: all off) and what they take out.
function renderFilters(report) {
  const f = report.filters || {};
  $("filter-quotes").checked = !!f.exclude_quotes;
  $("filter-bibliography").checked = !!f.exclude_bibliography;
  $("filter-min-words").value = f.min_words || 0;
  $("filter-min-percent").value = f.min_percent || 0;
  const out = report.blocks.filter((b) => b.excluded).length;
  $("filters-status").textContent = out ? out + (out === 1 ? " passage" : " passages") + " excluded by the filters" : "";
}

// Each control sends all four filters (PATCH .../report {"filters": ...}); the server
// stores them with the check and answers the recomputed report.
async function applyFilters() {
  const words = Math.max(0, Math.floor(Number($("filter-min-words").value) || 0));
  const percent = Math.min(100, Math.max(0, Number($("filter-min-percent").value) || 0));
  await editReport({ filters: {
    exclude_quotes: $("filter-quotes").checked,
    exclude_bibliography: $("filter-bibliography").checked,
    min_words: words,
    min_percent: percent,
  } });
}

function initFilters() {
  for (const id of ["filter-quotes", "filter-bibliography", "filter-min-words", "filter-min-percent"]) {
    $(id).addEventListener("change", () => { if (state.report) applyFilters(); });
  }
  $("filters").addEventListener("submit", (e) => { e.preventDefault(); if (state.report) applyFilters(); });
}

// A copy block (copy_of set) as the static HTML report words it: it counts only once
// the source it copies is switched off.
function copySuffix(b, sources) {
  if (b.copy_of == null) return "";
  const of = sources.get(b.copy_of);
  return " · the passage of " + (of ? "source " + of.number : "document " + b.copy_of) + ", found here too";
}

function confidencePill(b) {
  const c = confidenceOf(b);
  const level = c >= 80 ? "high" : c >= 50 ? "mid" : "low";
  return el("span", { class: "conf " + level, title: "Confidence that this passage was taken from its source", text: c + "% sure" });
}

// Every block as a row: source number, where it is, how sure, its first words. Sorted in
// text order or least sure first (the ones a reviewer should read first); a click opens
// the comparison.
function renderPassages(report) {
  const list = $("passages");
  list.textContent = "";
  $("passage-count").textContent = report.blocks.length ? "(" + report.blocks.length + ")" : "";
  const sources = new Map(report.sources.map((s) => [s.id, s]));
  const blocks = report.blocks.slice();
  if (state.passageSort === "confidence") {
    blocks.sort((a, b) => confidenceOf(a) - confidenceOf(b) || a.suspect_span.chars.start - b.suspect_span.chars.start);
  }
  if (!blocks.length) list.append(el("li", { class: "psg-row psg-none muted", text: "No passages." }));
  for (const b of blocks) {
    const src = sources.get(b.source);
    const number = src ? src.number : "?";
    // The row's content is one button (Enter, Space, a click), so a screen reader says
    // it can be pressed; the list item around it keeps the list a list.
    const open = el("button", { type: "button", class: "psg-open", "data-block": b.id, "aria-haspopup": "dialog" },
      el("span", { class: "num-badge", text: String(number) }),
      el("span", { class: "psg-body" },
        el("span", { class: "psg-where", text: b.kind + foundBySuffix(b) + copySuffix(b, sources) + (src && src.enabled ? "" : " · not counted (source switched off)") + excludedSuffix(b) + " · characters " + b.suspect_span.chars.start + "–" + b.suspect_span.chars.end }),
        el("span", { class: "psg-text", text: b.suspect_excerpt })),
      confidencePill(b));
    open.addEventListener("click", () => openCompare(b.id));
    const li = el("li", { class: "psg-row" + (src && src.enabled ? "" : " off") + (b.excluded ? " excluded" : ""), "data-block": b.id, "data-confidence": confidenceOf(b), style: sourceStyle(number) }, open);
    list.append(li);
  }
}

// The roving tabindex of the text's passages: only `mark` is a Tab stop.
function rove(mark) {
  for (const m of $("document").querySelectorAll('mark[role="button"][tabindex="0"]')) if (m !== mark) m.tabIndex = -1;
  mark.tabIndex = 0;
  state.roving = mark.dataset.block;
}

function highlight(sourceId, on) {
  for (const m of document.querySelectorAll('#document mark[data-source="' + sourceId + '"]')) m.classList.toggle("hl", on);
}

// A click on a source shows only its passages; a second click, or "show all", shows all.
function isolate(sourceId) {
  state.isolated = state.isolated === sourceId ? null : sourceId;
  applyIsolation();
  const src = state.report && state.report.sources.find((s) => s.id === sourceId);
  announce(state.isolated != null && src ? "Showing only the passages of source " + src.number + "." : "Showing every passage.");
  if (state.isolated != null) {
    const first = document.querySelector('#document mark[data-source="' + sourceId + '"]');
    if (first) first.scrollIntoView({ block: "center", behavior: "smooth" });
  }
}

function applyIsolation() {
  const id = state.isolated;
  const known = id != null && state.report && state.report.sources.some((s) => s.id === id);
  if (!known) state.isolated = null;
  $("document").classList.toggle("isolating", known);
  $("show-all").hidden = !known;
  for (const m of document.querySelectorAll("#document mark")) m.classList.toggle("sel", known && Number(m.dataset.source) === id);
  for (const li of document.querySelectorAll("#sources .src-row[data-source]")) {
    const on = known && Number(li.dataset.source) === id;
    li.classList.toggle("selected", on);
    const b = li.querySelector(".num-badge");
    if (b) b.setAttribute("aria-pressed", on ? "true" : "false");
  }
}

// What a notice means, in words a reviewer understands: the same wording as the report
// crate's Notice::explain (crates/report/src/explain.rs).
function explainNotice(w, chars) {
  const n = w.count;
  const plural = (one, many) => n + " " + (n === 1 ? one : many);
  switch (w.kind) {
    case "homoglyphs": {
      let latinInCyr = 0, cyrInLatin = 0;
      for (const l of w.locations || []) {
        const word = chars.slice(l.span.chars.start, l.span.chars.end);
        const latin = word.filter((c) => /[A-Za-z]/.test(c)).length;
        const cyr = word.filter((c) => /[\u0400-\u052F]/.test(c)).length;
        if (!latin || !cyr) continue;
        if (latin < cyr) latinInCyr++; else if (cyr < latin) cyrInLatin++;
      }
      const letters = latinInCyr && !cyrInLatin ? "Latin letters that look like Cyrillic ones"
        : cyrInLatin && !latinInCyr ? "Cyrillic letters that look like Latin ones"
        : "letters of another alphabet that look the same";
      return plural("word uses", "words use") + " " + letters + " (a common trick to hide copied text from a checker). Tessera read them as the letters they imitate.";
    }
    case "invisible_characters":
      return plural("word contains", "words contain") + " invisible characters (such as zero-width spaces) that cut words apart for a checker but not for a reader. Tessera ignored them.";
    case "white_text":
      return plural("character", "characters") + " of white text, invisible on the page, were found (a trick to add words only a checker sees). Tessera left them out of the checked text.";
    case "tiny_text":
      return plural("character", "characters") + " of text too small to read (2 pt or less) were found (a trick to add words only a checker sees). Tessera left them out of the checked text.";
    case "hidden_text":
      return plural("character", "characters") + " of text marked hidden were found (a trick to add words only a checker sees). Tessera left them out of the checked text.";
    case "spaced_letters":
      return plural("word is", "words are") + " spelled with spaces or other characters between the letters (\u201cp l a g i a r i s m\u201d), a trick to hide words from a checker. Tessera read them as whole words.";
    case "space_substitutes":
      return plural("space was", "spaces were") + " between words replaced by other characters (a trick to glue words together for a checker). Tessera read them as spaces.";
    default:
      return w.message;
  }
}

function showTrick(id) {
  const target = document.getElementById(id);
  if (!target) return;
  for (const t of document.querySelectorAll("#document .trick.flash")) t.classList.remove("flash");
  target.classList.add("flash");
  // Nearest: the warning the reviewer clicked stays in view when it can.
  target.scrollIntoView({ block: "nearest" });
}

function renderWarnings(report, check) {
  const box = $("warnings");
  box.textContent = "";
  const notices = report.suspect.warnings || [];
  const messages = new Set(notices.map((w) => w.message));
  const items = [];
  if (report.suspect.partial) items.push(el("li", { text: "Partial report: no answer yet from " + report.suspect.missing_collections.join(", ") + ". Shares may be understated." }));
  notices.forEach((w, n) => {
    const li = el("li", { class: "notice" + (w.bypass ? " bypass" : ""), "data-kind": w.kind },
      el("strong", { text: w.bypass ? "Attempt to hide copied text: " : "Note: " }), explainNotice(w, state.chars));
    const locs = w.locations || [];
    if (locs.length) {
      const places = el("span", { class: "places" }, " Marked in the text at ");
      locs.slice(0, 8).forEach((l, i) => {
        const where = l.page ? "page " + l.page : l.paragraph ? "paragraph " + l.paragraph : "character " + l.span.chars.start;
        const a = el("a", { href: "#trick-" + n + "-" + i, class: "trick-link", "data-target": "trick-" + n + "-" + i, text: where });
        a.addEventListener("click", (e) => { e.preventDefault(); showTrick("trick-" + n + "-" + i); });
        places.append(i ? ", " : "", a);
      });
      if (locs.length > 8) places.append(" and " + (locs.length - 8) + " more");
      places.append(".");
      li.append(places);
    }
    li.append(el("div", { class: "tech", text: w.message }));
    items.push(li);
  });
  // Warnings of the check that are not notices of the report (a failed collection, ...).
  for (const w of (check && check.warnings) || []) if (!messages.has(w)) items.push(el("li", { text: w }));
  box.hidden = !items.length;
  if (items.length) box.append(el("strong", { text: "Warnings" }), el("ul", {}, ...items));
}

function renderMembers() {
  const box = $("members");
  box.textContent = "";
  let saved = null;
  try { saved = JSON.parse(sessionStorage.getItem("tessera-members") || "null"); } catch (_) { saved = null; }
  if (!saved || !saved.members.some((m) => m.id === state.checkId)) { box.hidden = true; return; }
  box.hidden = false;
  box.append(el("strong", { text: "Documents in the archive: " }));
  for (const m of saved.members) {
    const a = el("a", { href: "/?check=" + m.id, class: m.id === state.checkId ? "current" : "", text: m.name.split("!/").pop() });
    a.addEventListener("click", (e) => { e.preventDefault(); follow(m.id); });
    box.append(a, " ");
  }
  for (const sk of saved.skipped || []) box.append(el("span", { class: "muted small", text: sk.name.split("!/").pop() + " (not checked: " + sk.error + ") " }));
}

function renderReport(report) {
  state.report = report;
  state.chars = Array.from(report.suspect.text);
  const s = report.suspect;
  $("doc-title").textContent = s.title || s.name;
  $("doc-origin").textContent = s.title && s.name && s.title !== s.name ? s.name : "";
  // A copy's blocks repeat passages already counted (listed under "also in"): not counted here.
  const passages = report.blocks.filter((b) => b.copy_of == null).length;
  $("doc-meta").textContent = s.char_len.toLocaleString("en") + " characters · " + passages + " highlighted passages · " + report.sources.length + " sources";
  $("print-date").textContent = "Checked " + (state.check && state.check.created_ms ? new Date(state.check.created_ms).toLocaleString("en-GB") : "") + " · printed " + new Date().toLocaleString("en-GB");
  $("download-json").href = "/api/checks/" + state.checkId + "/report.json";
  $("download-html").href = "/api/checks/" + state.checkId + "/report.html";
  $("download-pdf").href = "/api/checks/" + state.checkId + "/report.pdf";
  renderTotals(report);
  renderSources(report);
  renderPassages(report);
  renderWarnings(report, state.check);
  renderMembers();
  renderSubmission(state.check);
  renderFilters(report);
  renderDocument(report);
}

async function editReport(edits) {
  try {
    const report = await api("PATCH", "/api/checks/" + state.checkId + "/report", edits);
    renderReport(report);
    return report;
  } catch (e) {
    alert("The edit was not saved: " + e.message);
    renderReport(state.report);
    return null;
  }
}

// ---------- Submissions ----------

// An earlier submission among the sources (sources[].submission): "Earlier submission ·
// check 3f2a9c1b… · 1 Dec 2026, 10:04 · identical text". In the source list the check is
// a link to its report; in the comparison (a modal) it is plain text.
function submissionWords(sub, link) {
  const short = sub.check_id.length > 8 ? sub.check_id.slice(0, 8) + "\u2026" : sub.check_id;
  const when = new Date(sub.submitted_at);
  const date = isNaN(when) ? sub.submitted_at : when.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
  let check = "check " + short;
  if (link) {
    check = el("a", { href: "/?check=" + encodeURIComponent(sub.check_id), class: "src-submission-check", title: "Open the report of check " + sub.check_id, text: check });
    check.addEventListener("click", (e) => { e.preventDefault(); follow(sub.check_id); });
  }
  return [el("strong", { text: "Earlier submission" }), " \u00b7 ", check, " \u00b7 " + date, sub.identical ? " \u00b7 identical text" : ""];
}

function submissionLine(sub) {
  return sub ? el("div", { class: "src-meta src-submission" }, ...submissionWords(sub, true)) : null;
}

// The check kept its document as a submission (GET /api/checks/{id}: submit_to,
// submitted): where, with a button to remove it. A removed one is said as removed (the
// server's submission_removed; and at once after the button, before the next poll).
function renderSubmission(check) {
  const box = $("submission");
  const id = check ? check.submitted : null;
  box.hidden = id == null;
  if (id == null) return;
  const removed = state.removedSubmissions.has(id) || check.submission_removed === true;
  const where = "\u201c" + check.submit_to + "\u201d";
  $("submission-text").textContent = removed
    ? "Submission " + id + " was removed from " + where + ": later checks do not find it."
    : "Kept as submission " + id + " in " + where + ": later checks find this document.";
  $("remove-submission").hidden = removed;
}

// DELETE /api/documents/{id} with the token, after a confirmation. The result is said in
// the status line (a live region); the focus goes to the line that says what became of the
// submission, as the button is gone, or stays on the button when nothing changed.
async function removeSubmission() {
  const check = state.check;
  const id = check ? check.submitted : null;
  if (id == null || state.removing) return;
  if (!confirm("Remove submission " + id + " from \u201c" + check.submit_to + "\u201d? Later checks will no longer find this document. This report stays as it is.")) return;
  const status = $("submission-status");
  state.removing = true;
  status.textContent = "Removing submission " + id + "\u2026";
  try {
    await api("DELETE", "/api/documents/" + id);
    status.textContent = "Submission " + id + " removed.";
  } catch (e) {
    if (e.status !== 404) {
      status.textContent = "The submission was not removed: " + e.message;
      return;
    }
    status.textContent = "Submission " + id + " had already been removed.";
  } finally {
    state.removing = false;
  }
  state.removedSubmissions.add(id);
  if (state.check === check) {
    renderSubmission(check);
    $("submission-text").focus();
  }
}

// ---------- Past checks ----------

// GET /api/checks?offset=&limit= answers {checks: [{id, name, title, status, created_ms,
// totals}], total, offset, limit}, newest first. A server without the list (404/405)
// hides the card.
async function loadChecks(offset) {
  const card = $("checks-card");
  let page;
  try {
    const res = await fetch("/api/checks?offset=" + offset + "&limit=" + CHECKS_PAGE, { headers: authHeaders() });
    if (!res.ok) { card.hidden = true; return; }
    page = await res.json();
  } catch (_) { card.hidden = true; return; }
  const list = $("checks-list");
  list.textContent = "";
  const checks = (page && Array.isArray(page.checks)) ? page.checks : [];
  card.hidden = !checks.length && !offset;
  for (const c of checks) {
    const a = el("a", { href: "/?check=" + encodeURIComponent(c.id), class: "check-link" },
      el("span", { class: "check-title", text: c.title || c.name }),
      c.title && c.name && c.title !== c.name ? el("span", { class: "check-name muted small", text: c.name }) : null);
    a.addEventListener("click", (e) => { e.preventDefault(); follow(c.id); });
    const when = c.created_ms ? new Date(c.created_ms).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "";
    const score = c.totals ? el("span", { class: "check-score", title: "Borrowings", text: pct(c.totals.borrowings) }) : el("span", { class: "check-status muted small", text: c.status });
    list.append(el("li", { class: "check-row", "data-check": c.id }, a, el("span", { class: "muted small", text: when }), score));
  }
  const total = typeof page.total === "number" ? page.total : offset + checks.length;
  $("checks-newer").hidden = offset <= 0;
  $("checks-older").hidden = offset + checks.length >= total;
  $("checks-newer").onclick = () => loadChecks(Math.max(0, offset - CHECKS_PAGE));
  $("checks-older").onclick = () => loadChecks(offset + CHECKS_PAGE);
  $("checks-range").textContent = checks.length ? (offset + 1) + "–" + (offset + checks.length) + " of " + total : "";
}

const CHECKS_PAGE = 10;

// ---------- Start ----------

async function loadServerInfo() {
  try {
    state.health = await api("GET", "/api/health");
    $("max-size").textContent = bytes(state.health.max_upload_bytes);
    $("token-box").hidden = !state.health.token_required;
    $("token-input").value = token();
    // The server's collection of submissions (--submissions), unless the reviewer typed one.
    if (state.health.submissions && !$("submit-to").value) $("submit-to").value = state.health.submissions;
  } catch (_) { /* shown when an action fails */ }
  try {
    const collections = await api("GET", "/api/collections");
    const list = $("collection-list");
    list.textContent = "";
    let docs = 0;
    for (const c of collections) {
      docs += c.documents;
      list.append(el("li", {}, c.name + " · " + c.documents.toLocaleString("en") + " docs", el("span", { class: "kind " + c.kind, text: c.kind })));
    }
    if (!collections.length) list.append(el("li", { class: "muted", text: "The index is empty: add documents with tessera index or POST /api/documents." }));
    $("index-summary").textContent = collections.length + " collections · " + docs.toLocaleString("en") + " documents";
  } catch (_) { /* idem */ }
}

function init() {
  const zone = $("drop-zone");
  const input = $("file-input");
  zone.addEventListener("click", () => input.click());
  zone.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); } });
  input.addEventListener("change", () => { startFile(input.files[0]); input.value = ""; });
  for (const ev of ["dragenter", "dragover"]) zone.addEventListener(ev, (e) => { e.preventDefault(); zone.classList.add("over"); });
  for (const ev of ["dragleave", "drop"]) zone.addEventListener(ev, (e) => { e.preventDefault(); zone.classList.remove("over"); });
  zone.addEventListener("drop", (e) => startFile(e.dataTransfer.files[0]));
  $("paste-form").addEventListener("submit", (e) => { e.preventDefault(); startText($("paste-text").value, $("paste-title").value); });
  $("token-input").addEventListener("change", (e) => localStorage.setItem("tessera-token", e.target.value.trim()));
  $("new-check").addEventListener("click", () => showUpload());
  $("remove-submission").addEventListener("click", removeSubmission);
  $("home-link").addEventListener("click", (e) => { e.preventDefault(); showUpload(); });
  $("document").addEventListener("click", (e) => {
    const mark = e.target.closest("mark");
    if (mark) openCompare(Number(mark.dataset.block));
  });
  $("document").addEventListener("keydown", (e) => {
    const mark = e.target.closest("mark[data-block]");
    if (!mark) return;
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openCompare(Number(mark.dataset.block)); return; }
    const passages = [...$("document").querySelectorAll('mark[role="button"]')];
    const i = passages.indexOf(mark);
    const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: passages.length - 1 }[e.key];
    if (to === undefined || i < 0) return;
    e.preventDefault();
    const next = passages[Math.max(0, Math.min(passages.length - 1, to))];
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  });
  // Whichever passage gets the focus (arrow, click, the dialog giving it back) becomes
  // the text's one Tab stop.
  $("document").addEventListener("focusin", (e) => {
    const mark = e.target.closest && e.target.closest('mark[role="button"]');
    if (mark) rove(mark);
  });
  $("skip-link").addEventListener("click", (e) => {
    e.preventDefault();
    const target = $("report-view").hidden ? $("main") : $("document");
    target.focus();
    target.scrollIntoView({ block: "start" });
  });
  $("show-all").addEventListener("click", () => { state.isolated = null; applyIsolation(); });
  $("passage-sort").addEventListener("change", (e) => { state.passageSort = e.target.value; if (state.report) renderPassages(state.report); });
  $("print-report").addEventListener("click", () => { closeCompare(); window.print(); });
  $("compare-close").addEventListener("click", closeCompare);
  $("compare").addEventListener("click", (e) => { if (e.target === $("compare")) closeCompare(); });
  document.addEventListener("keydown", (e) => {
    if ($("compare").hidden) return;
    if (e.key === "Escape") { e.preventDefault(); closeCompare(); }
    if (e.key === "Tab") trapFocus(e);
  });
  initFilters();
  loadServerInfo();
  const id = new URLSearchParams(location.search).get("check");
  if (id) follow(id); else { show("upload-view"); loadChecks(0); }
}

init();
