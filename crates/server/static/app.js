// Tessera web page: upload, follow the check, read and edit the report.
// Plain JavaScript, no build step; talks to the JSON API of the same server.
"use strict";

const $ = (id) => document.getElementById(id);
const PALETTE = ["#1f77b4", "#9467bd", "#d62728", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f",
  "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#31a354", "#756bb1"];

const state = { health: null, checkId: null, report: null, pollTimer: null, chars: null };

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
    throw new Error(msg);
  }
  return data;
}

function uploadFile(file, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("file", file, file.name);
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
}

function showUpload(message) {
  stopPolling();
  state.checkId = null;
  state.report = null;
  history.replaceState(null, "", "/");
  show("upload-view");
  $("upload-error").hidden = !message;
  $("upload-error").textContent = message || "";
}

function setProgress(fraction, text) {
  $("progress-bar").style.width = Math.max(2, Math.min(100, fraction * 100)) + "%";
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
    const accepted = await api("POST", "/api/checks", { text, title: title || null, name: "pasted-text" });
    follow(accepted.id);
  } catch (e) {
    showUpload(e.message);
  }
}

function follow(id) {
  state.checkId = id;
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

function sourceColor(rank) {
  return PALETTE[(rank - 1) % PALETTE.length];
}

// Which block decides each stretch of text, following the counting rules of the report
// (SCHEMA.md): enabled sources count; a citation wholly inside one counting borrowing is
// ignored; citation wins over borrowing; the smallest rank wins among the rest.
function segments(report) {
  const sources = new Map(report.sources.map((s) => [s.id, s]));
  const blocks = report.blocks;
  const counting = blocks.filter((b) => sources.get(b.source).enabled);
  const ignored = new Set();
  for (const c of counting) {
    if (c.kind !== "citation") continue;
    const cs = c.suspect_span.chars;
    if (counting.some((b) => b.kind === "borrowing" && b.suspect_span.chars.start <= cs.start && cs.end <= b.suspect_span.chars.end)) ignored.add(c.id);
  }
  const cuts = new Set([0, report.suspect.char_len]);
  for (const b of blocks) { cuts.add(b.suspect_span.chars.start); cuts.add(b.suspect_span.chars.end); }
  const points = [...cuts].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i], end = points[i + 1];
    if (start >= end) continue;
    const covering = blocks.filter((b) => b.suspect_span.chars.start <= start && end <= b.suspect_span.chars.end);
    const live = covering.filter((b) => sources.get(b.source).enabled && !ignored.has(b.id));
    const rank = (b) => sources.get(b.source).rank;
    const pick = (list) => list.slice().sort((a, b) => rank(a) - rank(b))[0];
    let decider = pick(live.filter((b) => b.kind === "citation")) || pick(live.filter((b) => b.kind === "borrowing"));
    out.push({ start, end, decider, covering });
  }
  return out;
}

function renderDocument(report) {
  const chars = state.chars;
  const doc = $("document");
  doc.textContent = "";
  const frag = document.createDocumentFragment();
  const sources = new Map(report.sources.map((s) => [s.id, s]));
  for (const seg of segments(report)) {
    const text = chars.slice(seg.start, seg.end).join("");
    if (!seg.covering.length) { frag.append(text); continue; }
    const b = seg.decider || seg.covering[0];
    const src = sources.get(b.source);
    const cls = seg.decider ? b.kind : "off";
    const mark = el("mark", { class: cls, "data-block": b.id, "data-source": b.source, title: (src.title || src.origin) + " — " + b.kind, style: "--src:" + sourceColor(src.rank) }, text);
    frag.append(mark);
  }
  doc.append(frag);
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
    const isUrl = /^https?:\/\//.test(s.origin);
    const toggle = el("input", { type: "checkbox", class: "source-toggle", "data-source": s.id, "aria-label": "Count " + (s.title || s.origin) });
    toggle.checked = s.enabled;
    toggle.addEventListener("change", () => editReport({ sources: [{ id: s.id, enabled: toggle.checked }] }));
    const li = el("li", { class: "src-row" + (s.enabled ? "" : " disabled"), "data-source": s.id, style: "--src:" + sourceColor(s.rank) },
      el("span", { class: "dot" }),
      el("div", {},
        el("div", { class: "src-title", text: s.title || s.origin || "Document " + s.id }),
        el("div", { class: "src-meta" },
          el("span", { class: "kind " + s.kind, text: s.kind === "citation" ? "citation" : "source" }),
          " · " + s.collection + " · " + s.blocks + (s.blocks === 1 ? " passage" : " passages")),
        (s.seen_at && s.seen_at.length) ? el("div", { class: "src-meta src-seen", text: "also seen at: " + s.seen_at.join(", ") }) : null),
      el("div", { class: "shares" },
        el("div", { class: "report-share", title: "Share in report", text: pct(s.share_in_report) }),
        el("div", { class: "text-share", title: "Share in text", text: pct(s.share_in_text) })),
      el("div", { class: "src-controls" },
        isUrl ? el("a", { class: "src-link", href: s.origin, target: "_blank", rel: "noopener noreferrer", text: "open source" })
              : el("span", { class: "src-meta", text: s.origin }),
        el("label", { class: "switch" }, s.enabled ? "counted" : "switched off", toggle)));
    li.addEventListener("mouseenter", () => highlight(s.id, true));
    li.addEventListener("mouseleave", () => highlight(s.id, false));
    list.append(li);
  }
}

function highlight(sourceId, on) {
  for (const m of document.querySelectorAll('#document mark[data-source="' + sourceId + '"]')) m.classList.toggle("hl", on);
}

function renderWarnings(report, check) {
  const items = [];
  if (report.suspect.partial) items.push("Partial report: no answer yet from " + report.suspect.missing_collections.join(", ") + ". Shares may be understated.");
  for (const w of (check && check.warnings) || []) items.push(w);
  const box = $("warnings");
  box.textContent = "";
  box.hidden = !items.length;
  if (items.length) box.append(el("strong", { text: "Warnings" }), el("ul", {}, ...items.map((t) => el("li", { text: t }))));
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
  $("doc-meta").textContent = s.name + " · " + s.char_len.toLocaleString("en") + " characters · " + report.blocks.length + " highlighted passages";
  $("download-json").href = "/api/checks/" + state.checkId + "/report.json";
  $("download-html").href = "/api/checks/" + state.checkId + "/report.html";
  renderTotals(report);
  renderSources(report);
  renderWarnings(report, state.check);
  renderMembers();
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

// ---------- Compare dialog ----------

function openCompare(blockId) {
  const report = state.report;
  const b = report.blocks[blockId];
  if (!b) return;
  const src = report.sources.find((s) => s.id === b.source);
  const dialog = $("compare");
  dialog.classList.toggle("citation-mode", b.kind === "citation");
  $("compare-kind").textContent = b.kind === "citation" ? "Citation" : "Borrowing";
  $("compare-title").textContent = src.title || src.origin || "Document " + src.id;
  $("compare-meta").textContent = [src.collection, src.origin, "characters " + b.suspect_span.chars.start + "–" + b.suspect_span.chars.end + " of the document"].filter(Boolean).join(" · ");
  $("compare-suspect").textContent = b.suspect_excerpt;
  const source = $("compare-source");
  if (b.source_excerpt != null) {
    source.className = "";
    source.textContent = b.source_excerpt;
    $("compare-source-head").textContent = "Source";
  } else {
    source.className = "location";
    $("compare-source-head").textContent = "Location in the source";
    source.textContent = "The collection \u201c" + src.collection + "\u201d keeps fingerprints, not texts.\n\n" +
      "Document: " + (src.title || "untitled") + "\n" + (src.origin ? "Origin: " + src.origin + "\n" : "") +
      "Characters " + b.source_span.chars.start + "–" + b.source_span.chars.end + " of the source.";
  }
  $("compare-reason").textContent = b.reason ? "Detected as citation: " + b.reason : (b.kind !== b.detected_kind ? "Reclassified by a reviewer" : "");
  const other = b.kind === "borrowing" ? "citation" : "borrowing";
  const btn = $("compare-reclassify");
  btn.textContent = "Mark as " + other;
  btn.onclick = async () => {
    const r = await editReport({ blocks: [{ id: b.id, kind: other }] });
    if (r) openCompare(b.id);
  };
  dialog.hidden = false;
}

function closeCompare() {
  $("compare").hidden = true;
}

// ---------- Start ----------

async function loadServerInfo() {
  try {
    state.health = await api("GET", "/api/health");
    $("max-size").textContent = bytes(state.health.max_upload_bytes);
    $("token-box").hidden = !state.health.token_required;
    $("token-input").value = token();
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
  $("home-link").addEventListener("click", (e) => { e.preventDefault(); showUpload(); });
  $("document").addEventListener("click", (e) => {
    const mark = e.target.closest("mark");
    if (mark) openCompare(Number(mark.dataset.block));
  });
  $("compare-close").addEventListener("click", closeCompare);
  $("compare").addEventListener("click", (e) => { if (e.target === $("compare")) closeCompare(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeCompare(); });
  loadServerInfo();
  const id = new URLSearchParams(location.search).get("check");
  if (id) follow(id); else show("upload-view");
}

init();
