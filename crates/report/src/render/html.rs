//! HTML: one self-contained page (inline CSS, no scripts, no external assets).

use std::fmt::Write as _;
use std::io::Write;

use tessera_core::DocId;

use crate::model::{Block, BlockKind, FoundBy, Report, SentencePair, Source};
use crate::render::{
    BlockFlag, BlockHeading, Mark, PALETTE, Piece, Render, Side, block_excerpt_pieces, block_label, capitalised,
    filters_line, fmt_percent, sentence_pairs_heading, shorten, source_label, source_not_kept, source_range,
};

/// Renders the report as one self-contained HTML page.
///
/// The page has a header with the totals and the extraction notices (in plain words,
/// each location a link to its place in the text), the source list by number (largest
/// share first) with both shares, title and origin, the suspect's text with every
/// counted run filled with its source's colour and a numbered marker where a run of a
/// source starts (borrowings underlined in the source's colour, citations dashed green),
/// the places of bypass tricks underlined in red, and a note per block with the
/// suspect's passage and the source's side by side, word changes marked on both (or,
/// when the source text is not kept, the source's title, origin and character range)
/// and, for a citation, why it is one. A click on a source's number shows only its
/// blocks (CSS `:target`, no script; "show all" restores them). Each highlight carries
/// a tooltip and links to its note. All text is escaped. A print style keeps the
/// colours, markers and the source list, so printing to PDF gives a document to file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HtmlRenderer;

/// Characters of a source passage shown in a highlight's tooltip.
const TOOLTIP_CHARS: usize = 400;

const CSS: &str = r#"
:root{--ink:#1f2328;--muted:#656d76;--line:#d8dee4;--paper:#fff;--wash:#f6f8fa;
--orange:#c2410c;--green:#2f9e44;--grey:#adb5bd;--alert:#e03131}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--wash);color:var(--ink);
font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.page{max-width:72rem;margin:0 auto;padding:2rem 1.5rem 4rem}
header.summary{background:var(--paper);border:1px solid var(--line);border-radius:10px;
padding:1.5rem 1.75rem;margin-bottom:1.5rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .25rem;font-weight:650}
h2{font-size:1.05rem;margin:0 0 .75rem;font-weight:650;letter-spacing:.01em}
.meta{color:var(--muted);margin:0;font-size:.9rem}
.warnings{list-style:none;margin:.75rem 0 0;padding:0}
.warnings li{margin:.25rem 0;padding:.4rem .75rem;border-left:4px solid #868e96;background:#f8f9fa}
.warnings li.bypass{border-left-color:var(--alert);background:#fff5f5}
.warnings .at{color:#495057;font-size:.9em}
.warnings .at a{color:#c92a2a}
.warnings .tech{color:var(--muted);font-size:.85em}
.partial{margin:.75rem 0 0;padding:.5rem .75rem;border-left:4px solid var(--alert);
background:#fff5f5;color:#c92a2a;font-size:.9rem}
.totals{display:flex;flex-wrap:wrap;gap:1rem 2.5rem;margin:1.25rem 0 .75rem}
.total .value{display:block;font-size:1.9rem;font-weight:700;font-variant-numeric:tabular-nums;line-height:1.1}
.total .label{color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.06em}
.total.borrowings .value{color:var(--orange)}
.total.citations .value{color:var(--green)}
.bar{display:flex;height:.6rem;border-radius:99px;overflow:hidden;background:#e9ecef}
.bar span{display:block;height:100%}
.bar .b{background:#f08c00}
.bar .c{background:var(--green)}
section{background:var(--paper);border:1px solid var(--line);border-radius:10px;
padding:1.25rem 1.75rem;margin-bottom:1.5rem}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th{text-align:left;color:var(--muted);font-weight:600;font-size:.8rem;text-transform:uppercase;
letter-spacing:.05em;border-bottom:1px solid var(--line);padding:.4rem .5rem}
td{border-bottom:1px solid #eef1f4;padding:.5rem;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:target td{background:#fff9db}
tr.disabled td{color:var(--muted);text-decoration:line-through}
tr.disabled td.source,tr.disabled td.n{text-decoration:none}
.badge{display:inline-block;min-width:1.5em;padding:0 .35em;border-radius:99px;color:#fff;
font-weight:700;font-size:.8rem;line-height:1.5;text-align:center;text-decoration:none}
tr.disabled .badge{background:#adb5bd!important}
.source .title{font-weight:600}
.source .origin{color:var(--muted);font-size:.85rem;word-break:break-all}
.tag{display:inline-block;font-size:.72rem;padding:0 .4rem;border-radius:99px;
border:1px solid var(--line);color:var(--muted);margin-left:.35rem;vertical-align:.1rem}
.isolate{font-size:.85rem;color:var(--muted);margin:.75rem 0 0}
.text{max-width:62rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:1.02rem;line-height:1.85}
.text a.m{color:inherit;text-decoration:none;border-radius:2px;padding:.1em 0;
border-bottom:2px solid var(--c);background:var(--f);
box-decoration-break:clone;-webkit-box-decoration-break:clone}
.text a.m.citation{border-bottom:2px dashed var(--green)}
.text a.m.off{background:none;border-bottom:2px dashed var(--grey)}
.text a.m:hover{outline:2px solid rgba(0,0,0,.35)}
.text a.m.first::before{content:attr(data-n);display:inline-block;min-width:1.35em;margin-right:.15em;
padding:0 .3em;border-radius:99px;background:var(--c);color:#fff;font:700 .68rem/1.45 system-ui,sans-serif;
text-align:center;vertical-align:.2em}
.text a.m.off.first::before{background:var(--grey)}
.text mark.trick{background:none;color:inherit;text-decoration:underline wavy var(--alert);
text-decoration-thickness:1.5px;text-underline-offset:3px;outline:1px dashed var(--alert);outline-offset:1px}
.text mark.trick:target{background:#ffe3e3}
.text mark.gap::before{content:"\2913 hidden text";font:600 .68rem/1.4 system-ui,sans-serif;color:#fff;
background:var(--alert);border-radius:3px;padding:0 .3em;margin:0 .1em;vertical-align:.2em}
.legend{color:var(--muted);font-size:.85rem;margin:-.25rem 0 1rem}
.legend .chg,.legend ins,.legend del{font-size:.85rem}
ol.notes{list-style:none;margin:0;padding:0}
.note{border-left:4px solid var(--grey);padding:.5rem 0 .5rem 1rem;margin:0 0 1rem}
.note:target{background:#fff9db}
.note.disabled{opacity:.6}
.note-head{font-size:.85rem;color:var(--muted);margin-bottom:.35rem}
.note-head strong{color:var(--ink)}
.note-head .reason{color:var(--green)}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
.pair .loc{margin-top:0}
blockquote{margin:.25rem 0;padding:0;max-width:62rem;white-space:pre-wrap;overflow-wrap:anywhere}
blockquote.from{color:#343a40}
.chg{background:#fff3bf;box-shadow:inset 0 -2px #f59f00;border-radius:2px}
ins{background:#d3f9d8;box-shadow:inset 0 -2px #2f9e44;text-decoration:none;border-radius:2px}
del{background:#ffe3e3;color:#a61e1e;text-decoration:line-through;border-radius:2px}
.moved{background:#e7f5ff;box-shadow:inset 0 -2px #1c7ed6;border-radius:2px}
.moved::before{content:"\21C5";color:#1c7ed6;font-size:.8em;margin-right:1px}
.filters{margin:.5rem 0 0;color:var(--muted)}
.caret{display:inline-block;width:0;border-left:2px solid #e03131;height:1.1em;vertical-align:-.2em;margin:0 1px}
.loc{color:var(--muted);font-size:.9rem;margin:.25rem 0}
details.sentences{margin:0 0 .5rem;max-width:62rem}
details.sentences summary{cursor:pointer;color:var(--muted);font-size:.9rem}
table.sentences{border-collapse:collapse;width:100%;margin-top:.35rem;table-layout:fixed}
table.sentences th{text-align:left;font-size:.8rem;color:var(--muted);font-weight:600;padding:.2rem .5rem}
table.sentences td{vertical-align:top;padding:.35rem .5rem;border-top:1px solid #e9ecef;overflow-wrap:anywhere}
table.sentences td+td{color:#343a40}
table.sentences mark{background:#fff3bf;color:inherit;padding:0 .1em;border-radius:2px}
footer{color:var(--muted);font-size:.8rem;text-align:center}
@media (max-width:48rem){.pair{grid-template-columns:1fr}}
@media print{
@page{margin:16mm 14mm}
body{background:#fff;font-size:10.5pt}
.page{max-width:none;padding:0}
header.summary,section{border:none;border-radius:0;padding:0;margin-bottom:1.25rem}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
tr,.note-head,blockquote{break-inside:avoid}
.note-head{break-after:avoid}
.pair{grid-template-columns:1fr 1fr}
.note:target,tr:target td,.text mark.trick:target{background:none}
.isolate{display:none}
a{color:inherit;text-decoration:none}
h2{break-after:avoid}
}
"#;

/// The strong colour and the fill (a CSS background) of source number `number`.
fn source_colours(number: u32) -> (&'static str, String) {
    let at = (number.max(1) - 1) as usize;
    let (strong, light) = PALETTE[at % PALETTE.len()];
    let fill = match (at / PALETTE.len()) % 3 {
        0 => light.to_owned(),
        1 => format!("repeating-linear-gradient(135deg,{light} 0 6px,#fff 6px 8px)"),
        _ => format!("radial-gradient(circle,#fff 1.2px,transparent 1.6px) 0 0/6px 6px,{light}"),
    };
    (strong, fill)
}

/// Escapes text for HTML content and attribute values (double- or single-quoted).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes text for a `title` attribute, keeping line breaks as line breaks.
fn escape_attr(text: &str) -> String {
    escape(text).replace('\n', "&#10;")
}

/// An origin that is safe to link to (only http and https).
fn link(origin: &str) -> Option<&str> {
    let o = origin.trim();
    let lower = o.to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then_some(o)
}

struct Page<'a> {
    report: &'a Report,
    out: String,
}

/// Where a notice location is drawn in the text: its chars, and its anchor id.
struct TrickMark {
    start: usize,
    end: usize,
    anchor: String,
    title: String,
}

impl Page<'_> {
    fn source(&self, doc: DocId) -> Option<&Source> {
        self.report.sources.iter().find(|s| s.id == doc)
    }

    fn head(&mut self) {
        let s = &self.report.suspect;
        let heading = if s.title.trim().is_empty() { s.name.trim() } else { s.title.trim() };
        let heading = if heading.is_empty() { "Untitled document" } else { heading };
        let o = &mut self.out;
        o.push_str("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n");
        o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        o.push_str("<meta name=\"generator\" content=\"Tessera\">\n");
        let _ = writeln!(o, "<title>Report: {}</title>", escape(heading));
        let _ = writeln!(
            o,
            "<style>{CSS}{}</style>\n</head>\n<body>\n<div class=\"page\" id=\"all\">",
            isolation_css(self.report)
        );

        let t = &self.report.totals;
        o.push_str("<header class=\"summary\">\n");
        let _ = writeln!(o, "<h1>{}</h1>", escape(heading));
        let mut meta = Vec::new();
        if !s.title.trim().is_empty() && !s.name.trim().is_empty() {
            meta.push(escape(s.name.trim()));
        }
        meta.push(format!("{} characters", s.char_len));
        meta.push(format!("{} bytes", s.byte_len));
        meta.push(format!("{} sources, {} blocks", self.report.sources.len(), self.report.blocks.len()));
        let _ = writeln!(o, "<p class=\"meta\">{}</p>", meta.join(" · "));
        if let Some(line) = filters_line(self.report) {
            let _ = writeln!(o, "<p class=\"filters\"><strong>Filters:</strong> {}</p>", escape(&line));
        }
        if s.partial {
            let missing = if s.missing_collections.is_empty() {
                "some collections".to_owned()
            } else {
                escape(&s.missing_collections.join(", "))
            };
            let _ = writeln!(
                o,
                "<p class=\"partial\"><strong>Partial report.</strong> No answer in time from: {missing}. Borrowings may be understated.</p>"
            );
        }
        if !s.warnings.is_empty() {
            o.push_str("<ul class=\"warnings\">\n");
            for (n, notice) in s.warnings.iter().enumerate() {
                let class = if notice.bypass { "bypass" } else { "notice" };
                let label = if notice.bypass { "Attempt to hide copied text" } else { "Note" };
                let places: Vec<String> = notice
                    .locations
                    .iter()
                    .enumerate()
                    .take(MAX_PLACES)
                    .map(|(i, l)| {
                        let place = match (l.page, l.paragraph) {
                            (Some(page), _) => format!("page {page}"),
                            (None, Some(p)) => format!("paragraph {p}"),
                            (None, None) => format!("character {}", l.span.chars.start),
                        };
                        format!("<a href=\"#trick-{n}-{i}\">{place}</a>")
                    })
                    .collect();
                let mut places = if places.is_empty() {
                    String::new()
                } else {
                    format!(" <span class=\"at\">Marked in the text at {}", places.join(", "))
                };
                if notice.locations.len() > MAX_PLACES {
                    let _ = write!(places, " and {} more", notice.locations.len() - MAX_PLACES);
                }
                if !places.is_empty() {
                    places.push_str(".</span>");
                }
                let _ = writeln!(
                    o,
                    "<li class=\"{class}\" data-kind=\"{}\"><strong>{label}:</strong> {}{places}<br><span class=\"tech\">{}</span></li>",
                    escape(&notice.kind),
                    escape(&notice.explain(&s.text)),
                    escape(&notice.message)
                );
            }
            o.push_str("</ul>\n");
        }
        o.push_str("<div class=\"totals\">\n");
        for (class, label, pct, chars) in [
            ("originality", "Originality", t.originality, t.original_chars),
            ("borrowings", "Borrowings", t.borrowings, t.borrowed_chars),
            ("citations", "Citations", t.citations, t.cited_chars),
        ] {
            let _ = writeln!(
                o,
                "<div class=\"total {class}\" title=\"{chars} of {} characters\"><span class=\"value\">{}</span><span class=\"label\">{label}</span></div>",
                t.total_chars,
                fmt_percent(pct)
            );
        }
        o.push_str("</div>\n");
        let _ = writeln!(
            o,
            "<div class=\"bar\" aria-hidden=\"true\"><span class=\"b\" style=\"width:{:.3}%\"></span><span class=\"c\" style=\"width:{:.3}%\"></span></div>",
            t.borrowings, t.citations
        );
        o.push_str("</header>\n");
    }

    fn sources(&mut self) {
        let o = &mut self.out;
        o.push_str("<section class=\"sources\">\n<h2>Sources</h2>\n");
        if self.report.sources.is_empty() {
            o.push_str("<p class=\"meta\">No sources found.</p>\n</section>\n");
            return;
        }
        o.push_str("<table>\n<thead><tr><th class=\"num\">#</th><th class=\"num\">Share in report</th><th class=\"num\">Share in text</th><th class=\"num\">Blocks</th><th>Source</th></tr></thead>\n<tbody>\n");
        for source in &self.report.sources {
            let kind = BlockKind::from_collection(source.kind);
            let (strong, _) = source_colours(source.number);
            let row_class = if source.enabled { "" } else { " class=\"disabled\"" };
            let title = source.title.trim();
            let origin_text = source.origin.trim();
            let label = source_label(title, origin_text, source.id.0);
            let mut origin = if title.is_empty() {
                String::new()
            } else {
                match link(origin_text) {
                    Some(url) => {
                        format!("<a href=\"{}\" rel=\"noreferrer noopener\">{}</a>", escape(url), escape(url))
                    }
                    None => escape(origin_text),
                }
            };
            if !origin.is_empty() {
                origin.push_str(" · ");
            }
            let _ = write!(origin, "{} · id {}", escape(&source.collection), source.id.0);
            if !source.seen_at.is_empty() {
                let places: Vec<String> = source
                    .seen_at
                    .iter()
                    .map(|place| match link(place) {
                        Some(url) => {
                            format!("<a href=\"{}\" rel=\"noreferrer noopener\">{}</a>", escape(url), escape(url))
                        }
                        None => escape(place.trim()),
                    })
                    .collect();
                let _ = write!(origin, "<br>also seen at: {}", places.join(", "));
            }
            for line in super::copy_lines(self.report, source) {
                let _ = write!(origin, "<br><span class=\"copies\">{}</span>", escape(&line));
            }
            let mut tags = String::new();
            if kind == BlockKind::Citation {
                tags.push_str("<span class=\"tag\">citation</span>");
            }
            if !source.enabled {
                tags.push_str("<span class=\"tag\">disabled</span>");
            }
            let _ = writeln!(
                o,
                "<tr{row_class} id=\"src-{n}\" data-source=\"{id}\"><td class=\"num n\"><a class=\"badge\" href=\"#src-{n}\" style=\"background:{strong}\" title=\"Show only the blocks of source {n}\">{n}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"source\"><div class=\"title\">{}{tags}</div><div class=\"origin\">{origin}</div></td></tr>",
                fmt_percent(source.share_in_report),
                fmt_percent(source.share_in_text),
                source.blocks,
                escape(&label),
                n = source.number,
                id = source.id.0,
            );
        }
        o.push_str("</tbody>\n</table>\n");
        o.push_str("<p class=\"isolate\">Click a number to show only that source's blocks in the text; <a href=\"#all\">show all</a>.</p>\n</section>\n");
    }

    /// What a highlight's tooltip says about its block.
    fn tooltip(&self, block: &Block) -> String {
        let mut tip = format!("{} ", capitalised(block.kind));
        if let Some(reason) = block.reason.as_deref().filter(|_| block.kind == BlockKind::Citation) {
            let _ = write!(tip, "({reason}) ");
        }
        match self.source(block.source) {
            Some(s) => {
                let _ = write!(tip, "from source {}: {}", s.number, source_label(&s.title, &s.origin, s.id.0));
                if !s.title.trim().is_empty() && !s.origin.trim().is_empty() {
                    let _ = write!(tip, "\n{}", s.origin.trim());
                }
            }
            None => {
                let _ = write!(tip, "from document {}", block.source.0);
            }
        }
        let _ = write!(
            tip,
            "\nsource characters {}–{} · {}% sure",
            block.source_span.chars.start, block.source_span.chars.end, block.confidence
        );
        if let Some(label) = block_label(block) {
            let _ = write!(tip, " · {label}");
        }
        if let Some(excluded) = block.excluded {
            let _ = write!(tip, "\nexcluded: {}", excluded.describe(&self.report.filters));
        }
        if let Some(excerpt) = &block.source_excerpt {
            let _ = write!(tip, "\n\n{}", shorten(excerpt, TOOLTIP_CHARS));
        }
        tip
    }

    /// The notice locations to mark in the text, by start.
    fn trick_marks(&self) -> Vec<TrickMark> {
        let mut marks = Vec::new();
        for (n, notice) in self.report.suspect.warnings.iter().enumerate() {
            for (i, l) in notice.locations.iter().enumerate() {
                let title = if notice.bypass { notice.kind.replace('_', " ") } else { notice.message.clone() };
                marks.push(TrickMark {
                    start: l.span.chars.start,
                    end: l.span.chars.end.max(l.span.chars.start),
                    anchor: format!("trick-{n}-{i}"),
                    title,
                });
            }
        }
        marks.sort_by_key(|m| (m.start, m.end));
        marks
    }

    fn document(&mut self) {
        let report = self.report;
        let text = report.suspect.text.as_str();
        let segments = &report.segments;
        let tricks = self.trick_marks();

        // Cut the text at every segment and trick boundary; each piece has at most one
        // segment (they never overlap) and the trick marks covering it.
        let mut cuts: Vec<usize> = vec![0, report.suspect.char_len as usize];
        for s in segments {
            cuts.extend([s.span.chars.start, s.span.chars.end]);
        }
        for t in &tricks {
            cuts.extend([t.start, t.end]);
        }
        cuts.sort_unstable();
        cuts.dedup();

        let mut body = String::with_capacity(text.len() * 2);
        let mut chars = text.chars();
        let mut seg_at = 0usize;
        let mut open: Option<usize> = None; // index of the open segment
        let mut last_source: Option<(DocId, usize)> = None; // source and end of the last segment
        let mut anchored = vec![false; tricks.len()];
        for pair in cuts.windows(2) {
            let (start, end) = (pair[0], pair[1]);
            // Empty tricks (text left out here) are drawn at their place.
            for (k, t) in tricks.iter().enumerate() {
                if t.start == start && t.end == start && !anchored[k] {
                    anchored[k] = true;
                    let _ = write!(
                        body,
                        "<mark class=\"trick gap\" id=\"{}\" title=\"{}\"></mark>",
                        t.anchor,
                        escape_attr(&t.title)
                    );
                }
            }
            while segments.get(seg_at).is_some_and(|s| s.span.chars.end <= start) {
                seg_at += 1;
            }
            let segment = segments.get(seg_at).filter(|s| s.span.chars.start <= start && end <= s.span.chars.end);
            if open.is_some() && open != segment.map(|_| seg_at) {
                body.push_str("</a>");
                open = None;
            }
            if let (Some(seg), None) = (segment, open) {
                let source = self.source(seg.source);
                let number = source.map_or(0, |s| s.number);
                let (strong, fill) = source_colours(number);
                let first = last_source != Some((seg.source, seg.span.chars.start));
                let tip = report.block(seg.block).map(|b| self.tooltip(b)).unwrap_or_default();
                let _ = write!(
                    body,
                    "<a class=\"m {kind} src-{number}{first}\" data-n=\"{number}\" href=\"#block-{id}\" style=\"--c:{strong};--f:{fill}\" title=\"{tip}\">",
                    kind = seg.kind.as_str(),
                    first = if first { " first" } else { "" },
                    id = seg.block.0,
                    tip = escape_attr(&tip),
                );
                open = Some(seg_at);
                last_source = Some((seg.source, seg.span.chars.end));
            }
            let piece: String = chars.by_ref().take(end - start).collect();
            let covering = tricks.iter().enumerate().find(|(_, t)| t.start <= start && end <= t.end && t.start < t.end);
            match covering {
                Some((k, t)) => {
                    let id = if anchored[k] { String::new() } else { format!(" id=\"{}\"", t.anchor) };
                    anchored[k] = true;
                    let _ = write!(
                        body,
                        "<mark class=\"trick\"{id} title=\"{}\">{}</mark>",
                        escape_attr(&t.title),
                        escape(&piece)
                    );
                }
                None => body.push_str(&escape(&piece)),
            }
        }
        if open.is_some() {
            body.push_str("</a>");
        }
        for (k, t) in tricks.iter().enumerate() {
            if !anchored[k] {
                let _ = write!(
                    body,
                    "<mark class=\"trick gap\" id=\"{}\" title=\"{}\"></mark>",
                    t.anchor,
                    escape_attr(&t.title)
                );
            }
        }

        let o = &mut self.out;
        o.push_str("<section class=\"document\">\n<h2>Document</h2>\n");
        o.push_str("<p class=\"legend\">Each source has a number and a colour, as in the source list; borrowings are underlined in the source's colour, citations with a dashed green line. Text with a wavy red line is where a trick to hide copied text was found. Hover a passage for its source, click it for the comparison.</p>\n");
        let _ = writeln!(o, "<div class=\"text\">{body}</div>\n</section>");
    }

    fn notes(&mut self) {
        let report = self.report;
        let mut notes = String::new();
        for block in &report.blocks {
            let heading = BlockHeading::of(report, block);
            let border = if heading.disabled { "#dee2e6" } else { source_colours(heading.number).0 };
            let class = if heading.disabled { "note disabled" } else { "note" };
            let mut flags = String::new();
            for flag in &heading.flags {
                match flag {
                    BlockFlag::FoundBy(label) => {
                        let _ = write!(flags, " · <span class=\"found-by\">{label}</span>");
                    }
                    BlockFlag::Reason(reason) => {
                        let _ = write!(flags, " · <span class=\"reason\">{}</span>", escape(reason));
                    }
                    _ => {
                        let _ = write!(flags, " · {}", flag.text());
                    }
                }
            }
            let _ = writeln!(
                notes,
                "<li class=\"{class}\" id=\"block-{id}\" style=\"border-left-color:{border}\">\n<div class=\"note-head\"><strong>{kind}</strong> · {source} · {place} · {sure}{flags}</div>",
                id = block.id.0,
                kind = heading.kind,
                source = escape(&heading.source),
                place = heading.place,
                sure = heading.sure,
            );
            sentence_pairs(&mut notes, block);
            let _ = writeln!(
                notes,
                "<div class=\"pair\"><div><p class=\"loc\">Document:</p><blockquote class=\"suspect\">{}</blockquote></div>",
                marked(block, Side::Suspect),
            );
            if block.source_excerpt.is_some() {
                let _ = writeln!(
                    notes,
                    "<div><p class=\"loc\">Source, {}:</p>\n<blockquote class=\"from\">{}</blockquote></div>",
                    source_range(block),
                    marked(block, Side::Source)
                );
            } else {
                let _ = writeln!(notes, "<div><p class=\"loc\">{}</p></div>", escape(&source_not_kept(report, block)));
            }
            notes.push_str("</div>\n</li>\n");
        }
        let o = &mut self.out;
        o.push_str("<section class=\"blocks\">\n<h2>Blocks</h2>\n");
        if report.blocks.is_empty() {
            o.push_str("<p class=\"meta\">No blocks.</p>\n");
        } else {
            o.push_str("<p class=\"legend\">Words that differ from the source: <span class=\"chg\">changed</span>, <ins>added in the document</ins>, <del>left out of the source</del>, <span class=\"moved\">moved</span> (the same words in another place); <span class=\"caret\"></span> marks where words were added or left out on the other side.</p>\n");
            let _ = write!(o, "<ol class=\"notes\">\n{notes}</ol>\n");
        }
        o.push_str("</section>\n");
    }

    fn foot(&mut self) {
        let _ = writeln!(
            self.out,
            "<footer>Tessera report · schema version {} · characters are Unicode scalar values, whitespace included</footer>\n</div>\n</body>\n</html>",
            self.report.schema_version
        );
    }
}

/// Most notice locations linked from a warning (all are marked in the text).
const MAX_PLACES: usize = 8;

/// One side's excerpt of `block`, escaped, with the word changes marked
/// ([`block_excerpt_pieces`]).
fn marked(block: &Block, side: Side) -> String {
    let mut out = String::new();
    for piece in block_excerpt_pieces(block, side) {
        match piece {
            Piece::Caret => out.push_str("<span class=\"caret\"></span>"),
            Piece::Text(text, mark) => {
                let (open, close) = match mark {
                    Some(Mark::Changed) => ("<span class=\"chg\">", "</span>"),
                    Some(Mark::Added) => ("<ins>", "</ins>"),
                    Some(Mark::LeftOut) => ("<del>", "</del>"),
                    Some(Mark::Moved) => ("<span class=\"moved\" title=\"moved\">", "</span>"),
                    None => ("", ""),
                };
                let _ = write!(out, "{open}{}{close}", escape(&text));
            }
        }
    }
    out
}

/// Rules that show only one source's blocks while its row is the URL's target (a click
/// on its number), with no script: `#all` shows every block again.
fn isolation_css(report: &Report) -> String {
    let mut css = String::new();
    for source in &report.sources {
        let n = source.number;
        let _ = write!(
            css,
            "\n.page:has(#src-{n}:target) .text a.m:not(.src-{n}){{background:none;border-bottom-color:transparent}}.page:has(#src-{n}:target) .text a.m:not(.src-{n})::before{{opacity:.25}}"
        );
    }
    css
}

/// A rewording's or a summary's sentence pairs as a table a reviewer opens above the
/// excerpts: each sentence of the document beside the source sentence it draws on. Open
/// for a summary, whose source excerpt is several times longer than the summary and reads
/// better this way; nothing when the block has no pairs.
fn sentence_pairs(out: &mut String, block: &Block) {
    let rows: Vec<(&SentencePair, &str, &str)> =
        block.pairs.iter().filter_map(|pair| block.pair_texts(pair).map(|(a, b)| (pair, a, b))).collect();
    if rows.is_empty() {
        return;
    }
    // A summary's and a translation's sentence pairs are their evidence: shown open.
    let open = if matches!(block.found_by, Some(FoundBy::Summary | FoundBy::Translation)) { " open" } else { "" };
    let _ = writeln!(
        out,
        "<details class=\"sentences\"{open}><summary>{}</summary>\n<table class=\"sentences\"><thead><tr><th>Document</th><th>Source</th></tr></thead><tbody>",
        sentence_pairs_heading(rows.len())
    );
    for (pair, suspect, source) in rows {
        let marked_suspect = with_marks(suspect, pair.suspect.bytes.start, pair.words.iter().map(|w| w.suspect.bytes));
        let marked_source = with_marks(source, pair.source.bytes.start, pair.words.iter().map(|w| w.source.bytes));
        let _ = writeln!(out, "<tr><td>{}</td><td>{}</td></tr>", marked_suspect.trim(), marked_source.trim());
    }
    out.push_str("</tbody></table>\n</details>\n");
}

/// `text` (which starts at byte `offset` of its document) escaped, with the byte spans
/// `words` (of the document) in `<mark>`: the words of a translated sentence pair whose
/// translations the other side holds. Spans outside the text, or not on its character
/// boundaries, are left unmarked.
fn with_marks(text: &str, offset: usize, words: impl Iterator<Item = tessera_core::Span>) -> String {
    let mut spans: Vec<(usize, usize)> = words
        .filter_map(|w| Some((w.start.checked_sub(offset)?, w.end.checked_sub(offset)?)))
        .filter(|&(a, b)| a < b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b))
        .collect();
    spans.sort_unstable();
    spans.dedup();
    let mut out = String::with_capacity(text.len() + spans.len() * 13);
    let mut at = 0;
    for (a, b) in spans {
        if a < at {
            continue;
        }
        out.push_str(&escape(&text[at..a]));
        out.push_str("<mark>");
        out.push_str(&escape(&text[a..b]));
        out.push_str("</mark>");
        at = b;
    }
    out.push_str(&escape(&text[at..]));
    out
}

impl Render for HtmlRenderer {
    fn render(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        let mut page = Page { report, out: String::new() };
        page.head();
        page.sources();
        page.document();
        page.notes();
        page.foot();
        out.write_all(page.out.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matched_words_are_marked_and_the_rest_escaped() {
        let span = |start, end| tessera_core::Span { start, end };
        // The text starts at byte 10 of its document.
        let text = "a <doctor> sat";
        assert_eq!(with_marks(text, 10, [span(13, 19)].into_iter()), "a &lt;<mark>doctor</mark>&gt; sat");
        // Out of the text, overlapping or inside a character: left alone.
        let overlapping = [span(2, 5), span(13, 19), span(14, 16), span(30, 31)];
        assert_eq!(with_marks(text, 10, overlapping.into_iter()), "a &lt;<mark>doctor</mark>&gt; sat");
        assert_eq!(with_marks("мир", 0, [span(1, 2)].into_iter()), "мир");
    }

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert('x' & "y")</script>"#),
            "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;"
        );
    }

    #[test]
    fn sources_past_the_palette_keep_the_hue_with_a_pattern() {
        let (strong1, fill1) = source_colours(1);
        let (strong13, fill13) = source_colours(13);
        let (strong25, fill25) = source_colours(25);
        assert_eq!((strong1, strong13, strong25), (PALETTE[0].0, PALETTE[0].0, PALETTE[0].0));
        assert_eq!(fill1, PALETTE[0].1);
        assert!(fill13.starts_with("repeating-linear-gradient(") && fill13.contains(PALETTE[0].1));
        assert!(fill25.starts_with("radial-gradient(") && fill25.contains(PALETTE[0].1));
        // Twelve distinct hues, and number 0 (a report without numbers) does not panic.
        let mut strong: Vec<&str> = PALETTE.iter().map(|p| p.0).collect();
        strong.sort_unstable();
        strong.dedup();
        assert_eq!(strong.len(), 12);
        assert_eq!(source_colours(0).0, PALETTE[0].0);
    }

    #[test]
    fn only_web_origins_are_links() {
        assert_eq!(link(" https://a.example/x "), Some("https://a.example/x"));
        assert_eq!(link("javascript:alert(1)"), None);
        assert_eq!(link("/home/u/thesis.pdf"), None);
    }
}
