//! Text for a terminal: summary, sources table, blocks with short excerpts.

use std::io::Write;

use crate::model::{BlockKind, Report, Source};
use crate::render::{Render, fmt_percent, shorten, source_label};

/// Renders the report as plain text for a terminal.
///
/// Lines never exceed `width` characters (excerpts and titles are shortened in the
/// middle); `color` adds ANSI escapes (orange borrowings, green citations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRenderer {
    /// Add ANSI colour escapes.
    pub color: bool,
    /// Maximum line width in characters (at least 40 is used).
    pub width: usize,
}

impl Default for TextRenderer {
    fn default() -> Self {
        Self { color: false, width: 100 }
    }
}

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const ORANGE: &str = "\x1b[38;5;208m";
const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";

impl TextRenderer {
    fn paint(&self, style: &str, text: &str) -> String {
        if self.color { format!("{style}{text}{RESET}") } else { text.to_owned() }
    }

    fn kind_color(kind: BlockKind) -> &'static str {
        match kind {
            BlockKind::Borrowing => ORANGE,
            BlockKind::Citation => GREEN,
        }
    }

    fn write_summary(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        let s = &report.suspect;
        let t = &report.totals;
        writeln!(out, "{}", self.paint(BOLD, "Tessera report"))?;
        let doc = match (s.title.trim(), s.name.trim()) {
            ("", name) => name.to_owned(),
            (title, "") => title.to_owned(),
            (title, name) => format!("{title} ({name})"),
        };
        writeln!(out, "Document:     {}", shorten(&doc, self.width().saturating_sub(14)))?;
        writeln!(out, "Length:       {} characters, {} bytes", s.char_len, s.byte_len)?;
        if let Some(line) = super::filters_line(report) {
            for (i, part) in wrap(&line, self.width().saturating_sub(14)).iter().enumerate() {
                writeln!(out, "{:<13} {part}", if i == 0 { "Filters:" } else { "" })?;
            }
        }
        if s.partial {
            let missing = if s.missing_collections.is_empty() {
                "some collections did not answer".to_owned()
            } else {
                format!("no answer from {}", s.missing_collections.join(", "))
            };
            let line = shorten(&format!("PARTIAL: {missing}"), self.width().saturating_sub(14));
            writeln!(out, "Status:       {}", self.paint(RED, &line))?;
        }
        for notice in &s.warnings {
            let label = if notice.bypass { "Bypass:" } else { "Warning:" };
            let mut line = notice.explain(&s.text);
            if let Some(first) = notice.locations.first() {
                line.push_str(&format!(" [at char {}", first.span.chars.start));
                if let Some(page) = first.page {
                    line.push_str(&format!(", page {page}"));
                }
                line.push(']');
            }
            // Wrapped, not shortened: the explanation is a sentence to read whole.
            let style = if notice.bypass { RED } else { BOLD };
            for (i, part) in wrap(&line, self.width().saturating_sub(14)).iter().enumerate() {
                let label = if i == 0 { label } else { "" };
                writeln!(out, "{label:<13} {}", self.paint(style, part))?;
            }
        }
        writeln!(out)?;
        let rows = [
            ("Originality", t.originality, t.original_chars, BOLD),
            ("Borrowings", t.borrowings, t.borrowed_chars, ORANGE),
            ("Citations", t.citations, t.cited_chars, GREEN),
        ];
        for (name, pct, chars, style) in rows {
            let value = format!("{:>7}", fmt_percent(pct));
            writeln!(
                out,
                "{name:<13} {}  {DIMMED}{chars} of {} characters{UNDIM}",
                self.paint(style, &value),
                t.total_chars,
                DIMMED = if self.color { DIM } else { "" },
                UNDIM = if self.color { RESET } else { "" },
            )?;
        }
        Ok(())
    }

    fn write_sources(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out)?;
        writeln!(out, "{}", self.paint(BOLD, &format!("Sources ({})", report.sources.len())))?;
        if report.sources.is_empty() {
            writeln!(out, "  none")?;
            return Ok(());
        }
        let head = "   # In report  In text  Blocks  Source";
        writeln!(out, "{}", self.paint(DIM, head))?;
        let prefix_width = 33;
        for source in &report.sources {
            // The title on the source's line, where it came from on the next (as the page
            // shows them); a source without a title is named by its origin alone.
            let (label, origin) = match (source.title.trim(), source.origin.trim()) {
                ("", _) | (_, "") => (describe_source(source), None),
                (title, origin) => {
                    let disabled = if source.enabled { "" } else { " (disabled)" };
                    (format!("{title}{disabled}"), Some(format!("{origin} [{}]", source.collection)))
                }
            };
            let label = shorten(&label, self.width().saturating_sub(prefix_width));
            let in_report = format!("{:>9}", fmt_percent(source.share_in_report));
            let in_report = if source.enabled {
                self.paint(Self::kind_color(BlockKind::from_collection(source.kind)), &in_report)
            } else {
                in_report
            };
            writeln!(
                out,
                "{:>4} {in_report} {:>8} {:>7}  {label}",
                source.number,
                fmt_percent(source.share_in_text),
                source.blocks,
            )?;
            if let Some(origin) = origin {
                let origin = shorten(&origin, self.width().saturating_sub(prefix_width));
                writeln!(out, "{:prefix_width$}{}", "", self.paint(DIM, &origin))?;
            }
            if !source.seen_at.is_empty() {
                let seen = format!("also seen at: {}", source.seen_at.join(", "));
                let seen = shorten(&seen, self.width().saturating_sub(prefix_width));
                writeln!(out, "{:prefix_width$}{}", "", self.paint(DIM, &seen))?;
            }
            for line in super::copy_lines(report, source) {
                writeln!(out, "{:prefix_width$}{}", "", self.paint(DIM, &line))?;
            }
        }
        Ok(())
    }

    fn write_blocks(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out)?;
        writeln!(out, "{}", self.paint(BOLD, &format!("Blocks ({})", report.blocks.len())))?;
        if report.blocks.is_empty() {
            writeln!(out, "  none")?;
        }
        let excerpt_width = self.width().saturating_sub(10);
        for block in &report.blocks {
            let source = report.source(block.source);
            let enabled = source.is_none_or(|s| s.enabled);
            let kind = format!("{:<9}", block.kind.as_str());
            let kind = if enabled { self.paint(Self::kind_color(block.kind), &kind) } else { kind };
            let mut notes = String::new();
            if block.kind != block.detected_kind {
                notes.push_str(" (reclassified)");
            }
            if let Some(of) = block.copy_of {
                notes.push_str(&format!(" ({})", super::copy_of_label(report, of)));
            }
            if !enabled {
                notes.push_str(" (source disabled)");
            }
            if let Some(excluded) = block.excluded {
                notes.push_str(&format!(" (excluded: {})", excluded.describe(&report.filters)));
            }
            let number = source.map_or_else(|| "?".to_owned(), |s| s.number.to_string());
            let found_by = block
                .label
                .map(crate::Label::as_str)
                .or_else(|| block.found_by.map(crate::FoundBy::as_str))
                .map_or_else(String::new, |l| format!(", {l}"));
            writeln!(
                out,
                "  #{:<4} {kind} chars {}-{}  from source {number}, chars {}-{}, {}% sure{found_by}{notes}",
                block.id.0,
                block.suspect_span.chars.start,
                block.suspect_span.chars.end,
                block.source_span.chars.start,
                block.source_span.chars.end,
                block.confidence,
            )?;
            if let Some(reason) = &block.reason {
                writeln!(out, "        why:    {}", shorten(reason, excerpt_width))?;
            }
            writeln!(out, "        text:   «{}»", shorten(&block.suspect_excerpt, excerpt_width.saturating_sub(6)))?;
            match (&block.source_excerpt, source) {
                (Some(excerpt), _) => {
                    writeln!(out, "        source: «{}»", shorten(excerpt, excerpt_width.saturating_sub(6)))?
                }
                (None, Some(s)) => {
                    let line = format!("text not kept: {}", describe_source(s));
                    writeln!(out, "        source: {}", self.paint(DIM, &shorten(&line, excerpt_width)))?;
                }
                (None, None) => writeln!(out, "        source: unknown document")?,
            }
        }
        Ok(())
    }

    fn width(&self) -> usize {
        self.width.max(40)
    }
}

/// `text` in lines of at most `width` characters, broken at spaces (a longer word gets
/// a line of its own); whitespace runs become one space.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count();
        if len > 0 && len + 1 + n > width {
            lines.push(std::mem::take(&mut line));
            len = 0;
        }
        if len > 0 {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += n;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `Title — origin [collection]`, with `(disabled)` when the reviewer disabled it.
fn describe_source(source: &Source) -> String {
    let mut label = source_label(&source.title, &source.origin, source.id.0);
    if !source.title.trim().is_empty() && !source.origin.trim().is_empty() {
        label.push_str(" — ");
        label.push_str(source.origin.trim());
    }
    label.push_str(" [");
    label.push_str(&source.collection);
    label.push(']');
    if !source.enabled {
        label.push_str(" (disabled)");
    }
    label
}

impl Render for TextRenderer {
    fn render(&self, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
        self.write_summary(report, out)?;
        self.write_sources(report, out)?;
        self.write_blocks(report, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(wrap("один два три четыре", 9), vec!["один два", "три", "четыре"]);
        assert_eq!(wrap("  a   b ", 10), vec!["a b"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("длинноеслово x", 4), vec!["длинноеслово", "x"]);
    }
}
