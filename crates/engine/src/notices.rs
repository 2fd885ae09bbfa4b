//! Extraction warnings as report notices: the engine is where the two stages
//! meet, so the conversion (with byte offsets turned into characters) lives here.

use tessera_extract::{Extracted, Warning};
use tessera_normalize::{CharIndex, Span};
use tessera_report::{Notice, NoticeLocation, TextSpan};

/// The report notices for an extracted document's warnings, in order.
pub(crate) fn notices(extracted: &Extracted) -> Vec<Notice> {
    if extracted.warnings.is_empty() {
        return Vec::new();
    }
    let index = CharIndex::new(&extracted.text);
    extracted.warnings.iter().map(|w| notice(w, &index)).collect()
}

fn notice(warning: &Warning, index: &CharIndex) -> Notice {
    let message = warning.to_string();
    match warning {
        Warning::Bypass { trick, count, locations } => Notice {
            kind: serde_json::to_value(trick).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            bypass: true,
            message,
            count: *count as u64,
            locations: locations
                .iter()
                .map(|l| NoticeLocation {
                    span: TextSpan {
                        bytes: Span { start: l.start, end: l.end },
                        chars: Span { start: index.byte_to_char(l.start), end: index.byte_to_char(l.end) },
                    },
                    page: l.place.page.or(l.place.slide),
                    paragraph: l.place.paragraph,
                })
                .collect(),
        },
        other => Notice {
            kind: serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_owned))
                .unwrap_or_default(),
            bypass: false,
            message,
            count: match other {
                Warning::InvalidBytes { count, .. } | Warning::Skipped { count, .. } => *count as u64,
                Warning::NoTextLayer { pages, .. } => pages.len() as u64,
                _ => 1,
            },
            locations: Vec::new(),
        },
    }
}
