//! Renderers: one per output format, behind the [`Render`] trait.

mod html;
mod json;
mod pdf;
mod text;

pub use html::HtmlRenderer;
pub use json::JsonRenderer;
pub use pdf::PdfRenderer;
pub use text::TextRenderer;

use crate::model::Report;

/// Draws a report in one format.
///
/// Implementations are deterministic: the same report gives the same bytes.
pub trait Render {
    /// Writes `report` to `out`.
    ///
    /// # Errors
    ///
    /// Fails only when writing to `out` fails.
    fn render(&self, report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()>;

    /// Renders `report` into a string.
    ///
    /// # Errors
    ///
    /// Never for the renderers of this crate (they write valid UTF-8 to memory).
    fn render_to_string(&self, report: &Report) -> std::io::Result<String> {
        let mut buf = Vec::new();
        self.render(report, &mut buf)?;
        String::from_utf8(buf).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// The source colours: a strong colour (number badges, underlines; white text on it
/// has a contrast of at least 4.5:1) and a light fill (dark text on it at least 9:1),
/// twelve hues that stay apart; the web page uses the same list (`app.js`), and so does the PDF. Source 13
/// and on take the colours again with a striped fill, 25 and on with a dotted one, and
/// the number on each block still tells them apart.
pub(crate) const PALETTE: [(&str, &str); 12] = [
    ("#c2410c", "#ffd8a8"),
    ("#1864ab", "#a5d8ff"),
    ("#a61e4d", "#fcc2d7"),
    ("#5f3dc4", "#d0bfff"),
    ("#0b7285", "#99e9f2"),
    ("#8a5a00", "#ffe066"),
    ("#862e9c", "#eebefa"),
    ("#4d7c0f", "#d8f5a2"),
    ("#c92a2a", "#ffc9c9"),
    ("#364fc7", "#bac8ff"),
    ("#7c4a2d", "#ecd5c0"),
    ("#495057", "#dee2e6"),
];

/// A percentage as shown to people: two decimals, no rounding before this point.
fn fmt_percent(p: f64) -> String {
    format!("{p:.2}%")
}

/// `text` cut to at most `max` characters, with an ellipsis in the middle when cut, and
/// line breaks and tabs shown as spaces.
fn shorten(text: &str, max: usize) -> String {
    let flat: Vec<char> = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    if flat.len() <= max {
        return flat.into_iter().collect();
    }
    let keep = max.saturating_sub(1);
    let head = keep - keep / 2;
    let tail = keep / 2;
    let mut out: String = flat[..head].iter().collect();
    out.push('…');
    out.extend(&flat[flat.len() - tail..]);
    out
}

/// How a source is named: its title, else its origin, else its id.
fn source_label(title: &str, origin: &str, id: u64) -> String {
    if !title.trim().is_empty() {
        title.trim().to_owned()
    } else if !origin.trim().is_empty() {
        origin.trim().to_owned()
    } else {
        format!("document {id}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_cuts_in_the_middle() {
        assert_eq!(shorten("abcdef", 10), "abcdef");
        assert_eq!(shorten("abcdefghij", 5), "ab…ij");
        assert_eq!(shorten("один\nдва три", 7), "оди…три");
    }

    #[test]
    fn percent_rounds_at_render_time() {
        assert_eq!(fmt_percent(100.0 / 3.0), "33.33%");
        assert_eq!(fmt_percent(0.0), "0.00%");
    }
}
