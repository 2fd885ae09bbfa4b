//! Character properties that hide text in a Word document: direct
//! formatting (CHPX runs), character styles and paragraph styles (the style
//! sheet, STSH), and which paragraph style each paragraph has (PAPX runs).

use super::{u16_at, u32_at, usize_at};
use crate::Trick;

/// Style chains longer than this are cut (a loop in a damaged style sheet).
const MAX_STYLE_DEPTH: usize = 16;

/// Styles read at most.
const MAX_STYLES: usize = 4096;

/// The sprms of a `grpprl`, each with its operand.
pub(super) fn sprms(grpprl: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let sprm = u16_at(grpprl, at)?;
        at += 2;
        let size = match sprm >> 13 {
            0 | 1 => 1,
            2 | 4 | 5 => 2,
            3 => 4,
            7 => 3,
            _ => usize::from(*grpprl.get(at)?) + 1,
        };
        let operand = grpprl.get(at..at + size)?;
        at += size;
        Some((sprm, operand))
    })
}

/// What a `grpprl` sets among the properties we look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Delta {
    /// `sprmCFVanish` (0x083C; 0x0835 is `sprmCFBold`): 0 off, 1 on, 0x80
    /// as the style, 0x81 the opposite of the style.
    vanish: Option<u8>,
    white: Option<bool>,
    tiny: Option<bool>,
    /// `sprmCIstd`: the character style.
    pub(super) istd: Option<u16>,
}

impl Delta {
    pub(super) fn parse(grpprl: &[u8]) -> Self {
        let mut delta = Self::default();
        for (sprm, operand) in sprms(grpprl) {
            let word = || u16::from_le_bytes([operand[0], operand.get(1).copied().unwrap_or(0)]);
            match sprm {
                0x083C => delta.vanish = Some(operand[0]),
                // sprmCCv: a COLORREF, red green blue and fAuto.
                0x6870 => delta.white = Some(operand.get(..4) == Some(&[0xFF, 0xFF, 0xFF, 0x00])),
                // sprmCIco: 8 is white.
                0x2A42 => delta.white = Some(operand[0] == 8),
                // sprmCHps: half-points.
                0x4A43 => delta.tiny = Some(word() <= 4),
                0x4A30 => delta.istd = Some(word()),
                _ => {}
            }
        }
        delta
    }

    /// `base` with this delta applied; `style` is what 0x80/0x81 refer to.
    pub(super) fn apply(self, base: Props, style: Props) -> Props {
        Props {
            hidden: match self.vanish {
                Some(0) => false,
                Some(1) => true,
                Some(0x80) => style.hidden,
                Some(0x81) => !style.hidden,
                _ => base.hidden,
            },
            white: self.white.unwrap_or(base.white),
            tiny: self.tiny.unwrap_or(base.tiny),
        }
    }
}

/// The resolved properties of some text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Props {
    hidden: bool,
    white: bool,
    tiny: bool,
}

impl Props {
    /// Both sets: a character style over a paragraph style.
    pub(super) fn or(self, other: Props) -> Props {
        Props { hidden: self.hidden || other.hidden, white: self.white || other.white, tiny: self.tiny || other.tiny }
    }

    pub(super) fn trick(self) -> Option<Trick> {
        if self.hidden {
            Some(Trick::HiddenText)
        } else if self.white {
            Some(Trick::WhiteText)
        } else if self.tiny {
            Some(Trick::TinyText)
        } else {
            None
        }
    }
}

/// The style sheet, resolved: each style's character properties with its
/// base styles applied.
#[derive(Debug, Default)]
pub(super) struct Styles {
    props: Vec<Props>,
}

impl Styles {
    /// Reads an STSH. Anything unreadable leaves the styles it concerns
    /// without properties.
    pub(super) fn parse(stsh: &[u8]) -> Self {
        let Some(cb_stshi) = u16_at(stsh, 0).map(usize::from) else { return Self::default() };
        let cstd = u16_at(stsh, 2).map_or(0, usize::from).min(MAX_STYLES);
        let base_size = u16_at(stsh, 4).map_or(10, usize::from);
        // (istdBase, own character delta) per style.
        let mut styles: Vec<(Option<usize>, Delta)> = Vec::with_capacity(cstd);
        let mut at = 2 + cb_stshi;
        for _ in 0..cstd {
            let Some(cb_std) = u16_at(stsh, at).map(usize::from) else { break };
            let std = stsh.get(at + 2..at + 2 + cb_std).unwrap_or_default();
            at += 2 + cb_std;
            styles.push(read_std(std, base_size).unwrap_or((None, Delta::default())));
        }
        let mut props = Vec::with_capacity(styles.len());
        for istd in 0..styles.len() {
            props.push(resolve(&styles, istd, 0));
        }
        Self { props }
    }

    /// The properties of style `istd` (none for an unknown style).
    pub(super) fn props(&self, istd: u16) -> Props {
        self.props.get(usize::from(istd)).copied().unwrap_or_default()
    }
}

fn resolve(styles: &[(Option<usize>, Delta)], istd: usize, depth: usize) -> Props {
    let Some(&(base, delta)) = styles.get(istd) else { return Props::default() };
    let base = match base {
        Some(base) if depth < MAX_STYLE_DEPTH && base != istd => resolve(styles, base, depth + 1),
        _ => Props::default(),
    };
    delta.apply(base, base)
}

/// One STD: its base style and its character properties (the last UPX:
/// `UpxChpx` of paragraph and character styles).
fn read_std(std: &[u8], base_size: usize) -> Option<(Option<usize>, Delta)> {
    if std.is_empty() {
        return None;
    }
    let word1 = u16_at(std, 2)?;
    let stk = word1 & 0x000F;
    let istd_base = usize::from(word1 >> 4);
    let base = (istd_base != 0x0FFF).then_some(istd_base);
    let cupx = u16_at(std, 4)? & 0x000F;
    // The name: a length, that many UTF-16 units and a terminating zero.
    let cch = usize::from(u16_at(std, base_size)?);
    let mut at = base_size + 2 + cch * 2 + 2;
    let mut chpx = None;
    for i in 0..cupx {
        at += at % 2;
        let cb = usize::from(u16_at(std, at)?);
        let upx = std.get(at + 2..at + 2 + cb)?;
        at += 2 + cb;
        // Paragraph styles: UpxPapx then UpxChpx; character styles: UpxChpx.
        if (stk == 1 && i == 1) || (stk == 2 && i == 0) {
            chpx = Some(upx);
        }
    }
    Some((base, chpx.map(Delta::parse).unwrap_or_default()))
}

/// A run of paragraphs with one paragraph style.
#[derive(Debug, Clone, Copy)]
pub(super) struct ParagraphRun {
    pub(super) fc: usize,
    pub(super) fc_end: usize,
    pub(super) istd: u16,
}

/// The paragraph style runs of the FKP pages listed in `PlcBtePapx`.
pub(super) fn read_papx_runs(word: &[u8], plc: &[u8]) -> Vec<ParagraphRun> {
    if plc.len() < 4 {
        return Vec::new();
    }
    let n = (plc.len() - 4) / 8;
    let mut runs = Vec::new();
    for i in 0..n {
        let Some(pn) = u32_at(plc, (n + 1) * 4 + i * 4) else { break };
        let page_at = usize::try_from(pn & 0x003F_FFFF).unwrap_or(usize::MAX).saturating_mul(512);
        let Some(page) = word.get(page_at..page_at.saturating_add(512)) else { continue };
        let cpara = usize::from(page[511]);
        for r in 0..cpara {
            let (Some(fc), Some(fc_end)) = (usize_at(page, r * 4), usize_at(page, (r + 1) * 4)) else { break };
            // BX entries are 13 bytes; their first byte is the PapxInFkp's
            // offset in words.
            let Some(&offset) = page.get((cpara + 1) * 4 + r * 13) else { break };
            let at = usize::from(offset) * 2;
            let istd = match page.get(at) {
                Some(0) => u16_at(page, at + 2),
                Some(_) => u16_at(page, at + 1),
                None => None,
            };
            if let Some(istd) = istd
                && fc_end > fc
                && offset != 0
            {
                runs.push(ParagraphRun { fc, fc_end, istd });
            }
        }
    }
    runs.sort_by_key(|r| r.fc);
    let mut end = 0;
    runs.retain(|r| {
        let keep = r.fc >= end;
        if keep {
            end = r.fc_end;
        }
        keep
    });
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trick(grpprl: &[u8]) -> Option<Trick> {
        Delta::parse(grpprl).apply(Props::default(), Props::default()).trick()
    }

    #[test]
    fn sprms_mark_hidden_white_and_tiny_runs() {
        assert_eq!(trick(&[0x3C, 0x08, 0x01]), Some(Trick::HiddenText));
        assert_eq!(trick(&[0x3C, 0x08, 0x00]), None);
        assert_eq!(trick(&[0x35, 0x08, 0x01]), None);
        assert_eq!(trick(&[0x70, 0x68, 0xFF, 0xFF, 0xFF, 0x00]), Some(Trick::WhiteText));
        assert_eq!(trick(&[0x42, 0x2A, 0x08]), Some(Trick::WhiteText));
        assert_eq!(trick(&[0x43, 0x4A, 0x04, 0x00]), Some(Trick::TinyText));
        assert_eq!(trick(&[0x43, 0x4A, 0x18, 0x00, 0x35]), None);
    }

    #[test]
    fn direct_formatting_overrides_and_toggles_the_style() {
        let hidden_style = Props { hidden: true, ..Props::default() };
        let off = Delta::parse(&[0x3C, 0x08, 0x00]);
        assert_eq!(off.apply(hidden_style, hidden_style).trick(), None);
        let toggle = Delta::parse(&[0x3C, 0x08, 0x81]);
        assert_eq!(toggle.apply(hidden_style, hidden_style).trick(), None);
        assert_eq!(toggle.apply(Props::default(), Props::default()).trick(), Some(Trick::HiddenText));
        assert_eq!(Delta::default().apply(hidden_style, hidden_style).trick(), Some(Trick::HiddenText));
    }
}
