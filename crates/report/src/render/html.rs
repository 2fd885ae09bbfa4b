//! HTML: one self-contained page (inline CSS, no scripts, no external assets).

use std::fmt::Write as _;
use std::io::Write;

use tessera_index::DocId;

use crate::model::{Block, BlockKind, Report, Source};
use crate::render::{Render, fmt_percent, shorten, source_label};

/// Renders the report as one self-contained HTML page.
///
/// The page has a header with the totals, the source list with colour swatches and
/// both shares, the suspect's text with every counted run highlighted in its owner's
/// colour (borrowings in the orange family, citations in the green family, one hue per
/// source), and a note per block with the source passage (or, when the source text is
/// not kept, the source's title, origin and character range) and, for a citation, why
/// it is one (a reference, the bibliography, a citation collection). Each highlight carries
/// a tooltip and links to its note. Reading needs no JavaScript; there is none. All
/// text is escaped. A print style drops the colours of the chrome but keeps the
/// highlights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HtmlRenderer;

/// Characters of a source passage shown in a highlight's tooltip.
const TOOLTIP_CHARS: usize = 400;

const CSS: &str = r#"
:root{--ink:#1f2328;--muted:#656d76;--line:#d8dee4;--paper:#fff;--wash:#f6f8fa;
--orange:#f08c00;--green:#2f9e44;--grey:#adb5bd}
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
.warnings li.bypass{border-left-color:#e03131;background:#fff5f5}
.warnings .at{color:#495057;font-size:.9em}
.partial{margin:.75rem 0 0;padding:.5rem .75rem;border-left:4px solid #e03131;
background:#fff5f5;color:#c92a2a;font-size:.9rem}
.totals{display:flex;flex-wrap:wrap;gap:1rem 2.5rem;margin:1.25rem 0 .75rem}
.total .value{display:block;font-size:1.9rem;font-weight:700;font-variant-numeric:tabular-nums;line-height:1.1}
.total .label{color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.06em}
.total.borrowings .value{color:#d9480f}
.total.citations .value{color:var(--green)}
.bar{display:flex;height:.6rem;border-radius:99px;overflow:hidden;background:#e9ecef}
.bar span{display:block;height:100%}
.bar .b{background:var(--orange)}
.bar .c{background:var(--green)}
section{background:var(--paper);border:1px solid var(--line);border-radius:10px;
padding:1.25rem 1.75rem;margin-bottom:1.5rem}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th{text-align:left;color:var(--muted);font-weight:600;font-size:.8rem;text-transform:uppercase;
letter-spacing:.05em;border-bottom:1px solid var(--line);padding:.4rem .5rem}
td{border-bottom:1px solid #eef1f4;padding:.5rem;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.disabled td{color:var(--muted);text-decoration:line-through}
tr.disabled td.source{text-decoration:none}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:3px;
vertical-align:-.1rem;border:1px solid rgba(0,0,0,.15)}
.source .title{font-weight:600}
.source .origin{color:var(--muted);font-size:.85rem;word-break:break-all}
.tag{display:inline-block;font-size:.72rem;padding:0 .4rem;border-radius:99px;
border:1px solid var(--line);color:var(--muted);margin-left:.35rem;vertical-align:.1rem}
.text{max-width:62rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:1.02rem;line-height:1.75}
.text a.m{color:inherit;text-decoration:none;border-radius:2px;padding:.1em 0;
box-decoration-break:clone;-webkit-box-decoration-break:clone}
.text a.m.citation{border-bottom:2px solid var(--green)}
.text a.m.borrowing{border-bottom:2px solid var(--orange)}
.text a.m:hover{outline:2px solid rgba(0,0,0,.35)}
.legend{color:var(--muted);font-size:.85rem;margin:-.25rem 0 1rem}
ol.notes{list-style:none;margin:0;padding:0}
.note{border-left:4px solid var(--grey);padding:.5rem 0 .5rem 1rem;margin:0 0 1rem}
.note:target{background:#fff9db}
.note.disabled{opacity:.6}
.note-head{font-size:.85rem;color:var(--muted);margin-bottom:.35rem}
.note-head strong{color:var(--ink)}
.note-head .reason{color:var(--green)}
blockquote{margin:.25rem 0;padding:0;max-width:62rem;white-space:pre-wrap;overflow-wrap:anywhere}
blockquote.from{color:#343a40;font-style:italic}
.loc{color:var(--muted);font-size:.9rem;margin:.25rem 0}
footer{color:var(--muted);font-size:.8rem;text-align:center}
@media print{
body{background:#fff;font-size:10.5pt}
.page{max-width:none;padding:0}
header.summary,section{border:none;border-radius:0;padding:0;margin-bottom:1.25rem}
.text a.m,.swatch,.bar span{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.note{break-inside:avoid}
.note:target{background:none}
a{color:inherit;text-decoration:none}
}
"#;

/// Hues of the orange family (borrowings) and of the green family (citations), taken in
/// turn by the sources; later rounds use another lightness.
const ORANGE_HUES: [u16; 6] = [32, 18, 44, 8, 26, 50];
const GREEN_HUES: [u16; 6] = [125, 150, 100, 165, 112, 138];

/// The highlight colour of `kind` for the source at position `index` of the list.
fn colour(kind: BlockKind, index: usize) -> String {
    let round = index / ORANGE_HUES.len();
    match kind {
        BlockKind::Borrowing => {
            let hue = ORANGE_HUES[index % ORANGE_HUES.len()];
            let light = [78, 70, 85][round % 3];
            format!("hsl({hue} 95% {light}%)")
        }
        BlockKind::Citation => {
            let hue = GREEN_HUES[index % GREEN_HUES.len()];
            let light = [80, 72, 87][round % 3];
            format!("hsl({hue} 55% {light}%)")
        }
    }
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

impl Page<'_> {
    fn source_index(&self, doc: DocId) -> Option<(usize, &Source)> {
        self.report.sources.iter().enumerate().find(|(_, s)| s.id == doc)
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
        let _ = writeln!(o, "<style>{CSS}</style>\n</head>\n<body>\n<div class=\"page\">");

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
            for notice in &s.warnings {
                let class = if notice.bypass { "bypass" } else { "notice" };
                let label = if notice.bypass { "Bypass attempt" } else { "Note" };
                let places: Vec<String> = notice
                    .locations
                    .iter()
                    .take(5)
                    .map(|l| match (l.page, l.paragraph) {
                        (Some(page), _) => format!("page {page} (char {})", l.span.chars.start),
                        (None, Some(p)) => format!("paragraph {p} (char {})", l.span.chars.start),
                        (None, None) => format!("char {}", l.span.chars.start),
                    })
                    .collect();
                let places = if places.is_empty() {
                    String::new()
                } else {
                    format!(" <span class=\"at\">at {}</span>", places.join(", "))
                };
                let _ = writeln!(
                    o,
                    "<li class=\"{class}\" data-kind=\"{}\"><strong>{label}:</strong> {}{places}</li>",
                    escape(&notice.kind),
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
        o.push_str("<table>\n<thead><tr><th class=\"num\">#</th><th></th><th class=\"num\">Share in report</th><th class=\"num\">Share in text</th><th class=\"num\">Blocks</th><th>Source</th></tr></thead>\n<tbody>\n");
        for (index, source) in self.report.sources.iter().enumerate() {
            let kind = BlockKind::from_collection(source.kind);
            let swatch = if source.enabled { colour(kind, index) } else { "#e9ecef".to_owned() };
            let row_class = if source.enabled { "" } else { " class=\"disabled\"" };
            let label = source_label(&source.title, &source.origin, source.id.0);
            let mut origin = match link(&source.origin) {
                Some(url) => format!("<a href=\"{}\" rel=\"noreferrer noopener\">{}</a>", escape(url), escape(url)),
                None => escape(source.origin.trim()),
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
            let mut tags = String::new();
            if kind == BlockKind::Citation {
                tags.push_str("<span class=\"tag\">citation</span>");
            }
            if !source.enabled {
                tags.push_str("<span class=\"tag\">disabled</span>");
            }
            let _ = writeln!(
                o,
                "<tr{row_class} id=\"source-{}\"><td class=\"num\">{}</td><td><span class=\"swatch\" style=\"background:{swatch}\"></span></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"source\"><div class=\"title\">{}{tags}</div><div class=\"origin\">{origin}</div></td></tr>",
                source.id.0,
                source.rank,
                fmt_percent(source.share_in_report),
                fmt_percent(source.share_in_text),
                source.blocks,
                escape(&label),
            );
        }
        o.push_str("</tbody>\n</table>\n</section>\n");
    }

    /// What a highlight's tooltip says about its block.
    fn tooltip(&self, block: &Block) -> String {
        let mut tip = format!("{} ", capitalised(block.kind));
        if let Some(reason) = block.reason.as_deref().filter(|_| block.kind == BlockKind::Citation) {
            let _ = write!(tip, "({reason}) ");
        }
        match self.source_index(block.source) {
            Some((_, s)) => {
                let _ = write!(tip, "from source {}: {}", s.rank, source_label(&s.title, &s.origin, s.id.0));
                if !s.title.trim().is_empty() && !s.origin.trim().is_empty() {
                    let _ = write!(tip, "\n{}", s.origin.trim());
                }
            }
            None => {
                let _ = write!(tip, "from document {}", block.source.0);
            }
        }
        let _ = write!(tip, "\nsource characters {}–{}", block.source_span.chars.start, block.source_span.chars.end);
        if let Some(excerpt) = &block.source_excerpt {
            let _ = write!(tip, "\n\n{}", shorten(excerpt, TOOLTIP_CHARS));
        }
        tip
    }

    fn document(&mut self) {
        let report = self.report;
        let mut body = String::with_capacity(report.suspect.text.len() * 2);
        let text = report.suspect.text.as_str();
        let mut chars = text.char_indices().peekable();
        let mut char_pos = 0usize;
        // Copies characters [char_pos, to) of the text, escaped.
        let mut copy_to = |to: usize, body: &mut String| {
            let mut piece = String::new();
            while char_pos < to {
                let Some((_, c)) = chars.next() else { break };
                piece.push(c);
                char_pos += 1;
            }
            body.push_str(&escape(&piece));
        };
        for segment in report.segments() {
            let start = segment.span.chars.start;
            let end = segment.span.chars.end;
            copy_to(start, &mut body);
            let index = self.source_index(segment.source).map_or(0, |(i, _)| i);
            let tip = report.block(segment.block).map(|b| self.tooltip(b)).unwrap_or_default();
            let _ = write!(
                body,
                "<a class=\"m {kind}\" href=\"#block-{id}\" style=\"background:{bg}\" title=\"{tip}\">",
                kind = segment.kind.as_str(),
                id = segment.block.0,
                bg = colour(segment.kind, index),
                tip = escape_attr(&tip),
            );
            copy_to(end, &mut body);
            body.push_str("</a>");
        }
        copy_to(usize::MAX, &mut body);

        let o = &mut self.out;
        o.push_str("<section class=\"document\">\n<h2>Document</h2>\n");
        o.push_str("<p class=\"legend\">Orange: borrowings. Green: citations. One shade per source; hover a passage for its source, click it for the note.</p>\n");
        let _ = writeln!(o, "<div class=\"text\">{body}</div>\n</section>");
    }

    fn notes(&mut self) {
        let report = self.report;
        let mut notes = String::new();
        for block in &report.blocks {
            let found = self.source_index(block.source);
            let enabled = found.is_none_or(|(_, s)| s.enabled);
            let index = found.map_or(0, |(i, _)| i);
            let border = if enabled { colour(block.kind, index) } else { "#dee2e6".to_owned() };
            let class = if enabled { "note" } else { "note disabled" };
            let source_name = found.map_or_else(
                || format!("document {}", block.source.0),
                |(_, s)| format!("source {}: {}", s.rank, source_label(&s.title, &s.origin, s.id.0)),
            );
            let mut flags = String::new();
            if let Some(reason) = &block.reason {
                let _ = write!(flags, " · <span class=\"reason\">{}</span>", escape(reason));
            }
            if block.kind != block.detected_kind {
                let _ = write!(flags, " · reclassified from {}", block.detected_kind.as_str());
            }
            if !enabled {
                flags.push_str(" · source disabled");
            }
            let _ = writeln!(
                notes,
                "<li class=\"{class}\" id=\"block-{id}\" style=\"border-left-color:{border}\">\n<div class=\"note-head\"><strong>{kind}</strong> · {source} · characters {s0}–{s1} of the document{flags}</div>\n<blockquote class=\"suspect\">{excerpt}</blockquote>",
                id = block.id.0,
                kind = capitalised(block.kind),
                source = escape(&source_name),
                s0 = block.suspect_span.chars.start,
                s1 = block.suspect_span.chars.end,
                excerpt = escape(&block.suspect_excerpt),
            );
            let range =
                format!("characters {}–{} of the source", block.source_span.chars.start, block.source_span.chars.end);
            match &block.source_excerpt {
                Some(excerpt) => {
                    let _ = writeln!(
                        notes,
                        "<p class=\"loc\">Source passage, {range}:</p>\n<blockquote class=\"from\">{}</blockquote>",
                        escape(excerpt)
                    );
                }
                None => {
                    let place = found.map_or_else(String::new, |(_, s)| {
                        let mut p = escape(&source_label(&s.title, &s.origin, s.id.0));
                        if !s.title.trim().is_empty() && !s.origin.trim().is_empty() {
                            p.push_str(", ");
                            p.push_str(&escape(s.origin.trim()));
                        }
                        p.push_str(", ");
                        p
                    });
                    let _ = writeln!(notes, "<p class=\"loc\">Source text not kept: {place}{range}.</p>");
                }
            }
            notes.push_str("</li>\n");
        }
        let o = &mut self.out;
        o.push_str("<section class=\"blocks\">\n<h2>Blocks</h2>\n");
        if report.blocks.is_empty() {
            o.push_str("<p class=\"meta\">No blocks.</p>\n");
        } else {
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

fn capitalised(kind: BlockKind) -> &'static str {
    match kind {
        BlockKind::Borrowing => "Borrowing",
        BlockKind::Citation => "Citation",
    }
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
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert('x' & "y")</script>"#),
            "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;"
        );
    }

    #[test]
    fn only_web_origins_are_links() {
        assert_eq!(link(" https://a.example/x "), Some("https://a.example/x"));
        assert_eq!(link("javascript:alert(1)"), None);
        assert_eq!(link("/home/u/thesis.pdf"), None);
    }
}
