//! JSON: the report's serde form, as `SCHEMA.md` documents it.

use crate::model::Report;
use crate::render::Render;

/// Renders the report as JSON (schema in `SCHEMA.md`, `schema_version` 1).
///
/// Fields come in declaration order; percentages keep full `f64` precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JsonRenderer {
    /// Indent with two spaces and break lines; otherwise one line.
    pub pretty: bool,
}

impl JsonRenderer {
    /// A renderer writing indented JSON.
    #[must_use]
    pub fn pretty() -> Self {
        Self { pretty: true }
    }

    /// A renderer writing one line of JSON.
    #[must_use]
    pub fn compact() -> Self {
        Self { pretty: false }
    }
}

impl Render for JsonRenderer {
    fn render(&self, report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        if self.pretty {
            serde_json::to_writer_pretty(&mut *out, report)?;
        } else {
            serde_json::to_writer(&mut *out, report)?;
        }
        out.write_all(b"\n")
    }
}
