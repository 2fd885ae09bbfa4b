// Tessera web page: the comparison dialog (a passage beside its source, its word changes
// and sentence pairs, the other sources holding it). Loaded before app.js, whose globals
// ($, el, state, api, ...) it uses when its functions run; app.js calls openCompare and
// closeCompare.

// ---------- Compare dialog ----------

// An excerpt with the word changes of its block marked (spans in the JSON are absolute
// char offsets into the suspect's or the source's text; the excerpt starts at `offset`).
function markedExcerpt(excerpt, offset, diff, side) {
  const chars = Array.from(excerpt);
  const frag = document.createDocumentFragment();
  let at = 0;
  // Moved words break the text order on one side: each side is cut in its own order.
  const marks = diff.slice().sort((x, y) => x[side].chars.start - y[side].chars.start || x[side].chars.end - y[side].chars.end);
  for (const c of marks) {
    const span = c[side].chars;
    const start = Math.max(at, span.start - offset), end = Math.min(chars.length, span.end - offset);
    if (start > at) frag.append(chars.slice(at, start).join(""));
    at = Math.max(at, start);
    if (end <= start) {
      if (span.start - offset >= 0 && span.start - offset <= chars.length) frag.append(el("span", { class: "caret", title: side === "suspect" ? "words of the source left out here" : "words added here in the document" }));
      continue;
    }
    const text = chars.slice(start, end).join("");
    const tag = c.kind === "changed" ? "span" : (c.kind === "inserted" && side === "suspect") ? "ins" : (c.kind === "deleted" && side === "source") ? "del" : "span";
    const cls = c.kind === "changed" ? "chg" : c.kind === "moved" ? "moved" : "diff-" + c.kind;
    const title = c.kind === "changed" ? "changed word" : c.kind === "moved" ? "moved: the same words in another place" : c.kind === "inserted" ? "added in the document" : "left out of the source";
    frag.append(el(tag, { class: cls, title }, text));
    at = end;
  }
  if (at < chars.length) frag.append(chars.slice(at).join(""));
  return frag;
}

// A rewording's, a summary's or a translation's sentence pairs (the report's
// block.pairs): each sentence of the document beside the source sentence it draws on, as
// the HTML report shows them (a translation's matched words marked); open for a summary,
// whose source passage is several times longer than the summary, and a translation.
function renderSentencePairs(b) {
  const details = $("compare-sentences");
  const rows = $("compare-sentence-rows");
  rows.textContent = "";
  const pairs = b.source_excerpt != null ? b.pairs || [] : [];
  const suspect = Array.from(b.suspect_excerpt), source = Array.from(b.source_excerpt || "");
  const cut = (chars, offset, span) => chars.slice(span.chars.start - offset, span.chars.end - offset).join("").trim();
  // A cell: the sentence, with the words a translation matched (p.words) in <mark>.
  const cell = (chars, offset, span, words) => {
    if (!words.length) return el("td", { text: cut(chars, offset, span) });
    const td = el("td", {});
    const marks = words.map((w) => [w.chars.start, w.chars.end]).sort((x, y) => x[0] - y[0]);
    let at = span.chars.start;
    for (const [start, end] of marks) {
      if (start < at || end > span.chars.end) continue;
      td.append(chars.slice(at - offset, start - offset).join(""));
      td.append(el("mark", { text: chars.slice(start - offset, end - offset).join("") }));
      at = end;
    }
    td.append(chars.slice(at - offset, span.chars.end - offset).join(""));
    return td;
  };
  for (const p of pairs) {
    const words = p.words || [];
    rows.append(el("tr", {},
      cell(suspect, b.suspect_span.chars.start, p.suspect, words.map((w) => w.suspect)),
      cell(source, b.source_span.chars.start, p.source, words.map((w) => w.source))));
  }
  const n = pairs.length;
  $("compare-sentences-head").textContent = "Sentence by sentence: " + n + (n === 1
    ? " sentence of the document and the source sentence it draws on"
    : " sentences of the document and the source sentences they draw on");
  details.hidden = !n;
  details.open = b.found_by === "summary" || b.found_by === "translation";
}

// The other sources holding this passage (Turnitin's "all sources" of a match): blocks
// over the same text that copy this block's source, or, for a copy, the block it copies
// and its other copies. Each opens its own comparison.
function renderCompareAlso(report, b) {
  const line = $("compare-also");
  line.textContent = "";
  const family = b.copy_of == null ? b.source : b.copy_of;
  const s = b.suspect_span.chars;
  const others = report.blocks.filter((o) => o.id !== b.id && o.source !== b.source
    && (o.copy_of === family || (o.copy_of == null && o.source === family))
    && o.suspect_span.chars.start < s.end && s.start < o.suspect_span.chars.end);
  line.hidden = !others.length;
  if (!others.length) return;
  line.append(others.length === 1 ? "Also found in source " : "Also found in sources ");
  others.forEach((o, i) => {
    const of = report.sources.find((x) => x.id === o.source);
    if (i) line.append(", ");
    const go = el("button", { type: "button", class: "copy-link", "data-block": o.id, title: "Compare with source " + of.number }, String(of.number));
    go.addEventListener("click", () => openCompare(o.id));
    line.append(go);
  });
}

function openCompare(blockId) {
  const report = state.report;
  const b = report.blocks[blockId];
  if (!b) return;
  const src = report.sources.find((s) => s.id === b.source);
  const dialog = $("compare");
  dialog.classList.toggle("citation-mode", b.kind === "citation");
  dialog.setAttribute("style", sourceStyle(src.number));
  $("compare-kind").textContent = (b.kind === "citation" ? "Citation" : "Borrowing") + " · source " + src.number;
  $("compare-title").textContent = src.title || src.origin || "Document " + src.id;
  $("compare-meta").textContent = [src.title ? src.origin : "", src.collection, "characters " + b.suspect_span.chars.start + "–" + b.suspect_span.chars.end + " of the document", confidenceOf(b) + "% sure" + foundBySuffix(b)].filter(Boolean).join(" · ");
  const earlier = $("compare-submission");
  earlier.textContent = "";
  earlier.hidden = !src.submission;
  if (src.submission) earlier.append(...submissionWords(src.submission, false));
  const diff = b.diff || [];
  const suspect = $("compare-suspect");
  suspect.textContent = "";
  suspect.append(markedExcerpt(b.suspect_excerpt, b.suspect_span.chars.start, diff, "suspect"));
  const source = $("compare-source");
  source.textContent = "";
  if (b.source_excerpt != null) {
    source.className = "";
    source.append(markedExcerpt(b.source_excerpt, b.source_span.chars.start, diff, "source"));
    $("compare-source-head").textContent = "Source";
    const moved = diff.filter((c) => c.kind === "moved").length;
    const words = diff.length - moved;
    const movedText = moved ? (moved === 1 ? "1 passage" : moved + " passages") + " moved to another place. " : "";
    $("compare-diff").textContent = words
      ? movedText + words + (words === 1 ? " difference" : " differences") + " in wording are marked: "
      : "The wording is the same (up to case, punctuation and look-alike letters). " + movedText;
    $("compare-legend").hidden = !diff.length;
  } else {
    source.className = "location";
    $("compare-source-head").textContent = "Location in the source";
    // Why, as the engine says it (sources[].text_missing); reports made before it: the
    // usual reason.
    const why = src.text_missing || "The collection \u201c" + src.collection + "\u201d keeps fingerprints, not texts.";
    source.textContent = why + "\n\n" +
      "Document: " + (src.title || "untitled") + "\n" + (src.origin ? "Origin: " + src.origin + "\n" : "") +
      "Characters " + b.source_span.chars.start + "–" + b.source_span.chars.end + " of the source.";
    $("compare-diff").textContent = "";
    $("compare-legend").hidden = true;
  }
  renderCompareAlso(report, b);
  renderSentencePairs(b);
  $("compare-reason").textContent = [b.reason ? "Detected as citation: " + b.reason : (b.kind !== b.detected_kind ? "Reclassified by a reviewer" : ""),
    b.excluded ? "Excluded: " + excludedReason(b, report.filters) : ""].filter(Boolean).join(" · ");
  const other = b.kind === "borrowing" ? "citation" : "borrowing";
  const btn = $("compare-reclassify");
  btn.textContent = "Mark as " + other;
  btn.onclick = async () => {
    const r = await editReport({ blocks: [{ id: b.id, kind: other }] });
    if (r) {
      openCompare(b.id);
      announce("Marked as " + other + ". Borrowings " + pct(r.totals.borrowings) + ", citations " + pct(r.totals.citations) + ".");
    }
  };
  const opening = dialog.hidden;
  if (opening) {
    // Where to give the focus back on closing: the passage (or row) that opened it.
    const from = document.activeElement;
    const inList = from && from.closest ? from.closest("#document, #passages") : null;
    const holder = from && from.closest ? from.closest("[data-block]") : null;
    state.opener = { el: from, list: inList ? inList.id : null, block: holder ? holder.dataset.block : null };
  }
  dialog.hidden = false;
  modal(true);
  // The focus goes to the dialog's heading when it opens, and again when the control
  // that had it was rebuilt (another source's comparison opened from inside).
  if (opening || !dialog.contains(document.activeElement)) $("compare-title").focus();
}

// Tab and Shift+Tab go round the comparison's controls: from the last to the first and
// back, never out of the dialog (inert keeps the page out, not the browser's own stops).
function trapFocus(e) {
  const dialog = $("compare");
  const stops = [...dialog.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]")]
    .filter((x) => x.tabIndex >= 0 && !x.disabled && x.getClientRects().length && !x.closest("[hidden]"));
  if (!stops.length) return;
  const first = stops[0], last = stops[stops.length - 1];
  const at = document.activeElement;
  const inside = dialog.contains(at);
  if (e.shiftKey && (!inside || at === first || at === $("compare-title"))) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && (!inside || at === last)) { e.preventDefault(); first.focus(); }
}

// The comparison is modal: everything behind it is inert (no focus, no clicks, hidden
// from screen readers) while it is open.
function modal(on) {
  for (const c of document.body.children) if (c.id !== "compare" && c.tagName !== "SCRIPT") c.inert = on;
}

function closeCompare() {
  const dialog = $("compare");
  if (dialog.hidden) return;
  dialog.hidden = true;
  modal(false);
  // The focus returns to the passage that opened the comparison; after an edit, which
  // re-renders the text and the list, to the same passage's new element.
  const o = state.opener;
  state.opener = null;
  if (!o) return;
  let back = o.el && o.el.isConnected ? o.el : null;
  if (!back && o.list && o.block != null) {
    const sel = "#" + o.list + ' [data-block="' + o.block + '"]';
    back = document.querySelector(sel + "[tabindex], " + sel + " button");
  }
  if (back && !back.closest("[hidden]")) back.focus();
}
