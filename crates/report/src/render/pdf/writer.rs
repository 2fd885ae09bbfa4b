//! The laid-out pages written as a tagged PDF: page contents (with a footer per page),
//! every operation in the marked content of its structure element or of an artifact, the
//! structure tree, the two faces subset to the glyphs used and embedded as CID fonts with
//! `ToUnicode` maps, the document information and its XMP metadata.

use std::collections::BTreeMap;
use std::io::Write;

use pdf_writer::types::{ArtifactSubtype, ArtifactType, CidFontType, FontFlags, SystemInfo, TabOrder, UnicodeCmap};
use pdf_writer::{Content, Date, Filter, Finish, Name, Pdf, Rect, Ref, Settings, Str, TextStr, XRefFilter};

use super::font::{Face, Fonts, MISSING, fit, shown};
use super::layout::Op;
use super::tags::{Tag, Tree, xmp};
use super::{LANG, LINE, MARGIN_X, MUTED, PAGE_H, PAGE_W, TEXT_W, document_heading};
use crate::date::{civil, rfc3339};
use crate::model::Report;

/// A face as used in one PDF: its glyphs renumbered from 0 in order of first use
/// (the subset's glyph ids, which are also the CIDs), and the text of each glyph.
pub(super) struct Used {
    remapper: subsetter::GlyphRemapper,
    text: BTreeMap<u16, char>,
}

impl Used {
    fn new() -> Self {
        Self { remapper: subsetter::GlyphRemapper::new(), text: BTreeMap::new() }
    }

    /// The CID of `c` in the subset (that of [`MISSING`] when the face lacks `c`).
    fn cid(&mut self, face: &Face, c: char) -> u16 {
        let (old, _) = face.glyph(shown(c));
        let new = self.remapper.remap(old);
        if old != 0 {
            self.text.entry(new).or_insert(if face.has(shown(c)) { c } else { MISSING });
        }
        new
    }
}

/// Writes the laid-out pages as a tagged PDF (PDF/UA-1): the ops, each in its marked
/// content, a footer per page (name, page N of M) as a pagination artifact, the
/// structure `tree`, the two faces subset and embedded as CID fonts with `ToUnicode`
/// maps; the catalog says the PDF is tagged, its language, to show its title, and points
/// to the XMP metadata.
pub(super) fn write_pdf(
    report: &Report,
    fonts: &Fonts,
    pages: Vec<Vec<Op>>,
    tree: &Tree,
    checked_at_ms: Option<u64>,
) -> std::io::Result<Vec<u8>> {
    let mut used = [Used::new(), Used::new()];
    let mut next = 1;
    let mut alloc = || {
        let r = Ref::new(next);
        next += 1;
        r
    };
    let catalog_id = alloc();
    let tree_id = alloc();
    let info_id = alloc();
    let struct_id = alloc();
    let metadata_id = alloc();
    let font_ids: Vec<[Ref; 5]> = (0..2).map(|_| [alloc(), alloc(), alloc(), alloc(), alloc()]).collect();

    let total = pages.len();
    let name = document_heading(report);
    let mut contents = Vec::with_capacity(total);
    for (n, mut ops) in pages.into_iter().enumerate() {
        let tag = Tag::Footer;
        ops.push(Op::Rect { x: MARGIN_X, y: PAGE_H - 44.0, w: TEXT_W, h: 0.4, colour: LINE, tag });
        ops.push(Op::Text {
            x: MARGIN_X,
            baseline: PAGE_H - 32.0,
            size: 7.5,
            bold: false,
            colour: MUTED,
            text: fit(&fonts.regular, &format!("Tessera report · {name}"), 7.5, TEXT_W - 80.0),
            tag,
        });
        let label = format!("page {} of {total}", n + 1);
        let w = fonts.regular.width(&label, 7.5);
        ops.push(Op::Text {
            x: PAGE_W - MARGIN_X - w,
            baseline: PAGE_H - 32.0,
            size: 7.5,
            bold: false,
            colour: MUTED,
            text: label,
            tag,
        });

        let mut content = Content::new();
        // The marked content open: consecutive operations of one tag share it.
        let mut open: Option<Tag> = None;
        for op in &ops {
            if open != Some(op.tag()) {
                if open.is_some() {
                    content.end_marked_content();
                }
                begin_marked(&mut content, tree, op.tag());
                open = Some(op.tag());
            }
            match op {
                Op::Rect { x, y, w, h, colour, .. } => {
                    content.set_fill_rgb(unit(colour.0), unit(colour.1), unit(colour.2));
                    content.rect(*x, PAGE_H - y - h, *w, *h);
                    content.fill_nonzero();
                }
                Op::Text { x, baseline, size, bold, colour, text, .. } => {
                    let at = usize::from(*bold);
                    let face = fonts.face(*bold);
                    let mut codes = Vec::with_capacity(text.len() * 2);
                    let mut lacking = false;
                    for c in text.chars() {
                        codes.extend_from_slice(&used[at].cid(face, c).to_be_bytes());
                        lacking |= !face.has(shown(c));
                    }
                    // Characters the face lacks are drawn as a white square; a reader and
                    // a copy get the text itself.
                    if lacking {
                        content
                            .begin_marked_content_with_properties(Name(b"Span"))
                            .properties()
                            .actual_text(TextStr(text));
                    }
                    content.set_fill_rgb(unit(colour.0), unit(colour.1), unit(colour.2));
                    content.begin_text();
                    content.set_font(Name(FONT_NAMES[at].as_bytes()), *size);
                    content.next_line(*x, PAGE_H - baseline);
                    content.show(Str(&codes));
                    content.end_text();
                    if lacking {
                        content.end_marked_content();
                    }
                }
            }
        }
        if open.is_some() {
            content.end_marked_content();
        }
        contents.push(deflate(&content.finish())?);
    }

    let title = format!("Tessera report: {name}");
    // Compact objects: a tagged PDF has an object per structure element.
    let mut pdf = Pdf::with_settings(Settings { pretty: false });
    let mut catalog = pdf.catalog(catalog_id);
    catalog.pages(tree_id);
    catalog.pair(Name(b"StructTreeRoot"), struct_id);
    catalog.mark_info().marked(true);
    catalog.lang(TextStr(LANG));
    catalog.viewer_preferences().display_doc_title(true);
    catalog.metadata(metadata_id);
    catalog.finish();
    let page_ids: Vec<(Ref, Ref)> = (0..total).map(|_| (alloc(), alloc())).collect();
    pdf.pages(tree_id).kids(page_ids.iter().map(|p| p.0)).count(i32::try_from(total).unwrap_or(i32::MAX));
    for (n, ((page_id, content_id), content)) in page_ids.iter().zip(&contents).enumerate() {
        let mut page = pdf.page(*page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_W, PAGE_H));
        page.parent(tree_id);
        page.contents(*content_id);
        page.struct_parents(i32::try_from(n).unwrap_or(i32::MAX));
        page.tab_order(TabOrder::StructureOrder);
        let mut resources = page.resources();
        let mut font_dict = resources.fonts();
        for (at, ids) in font_ids.iter().enumerate() {
            font_dict.pair(Name(FONT_NAMES[at].as_bytes()), ids[0]);
        }
        font_dict.finish();
        resources.finish();
        page.finish();
        pdf.stream(*content_id, content).filter(Filter::FlateDecode);
    }

    for (at, ids) in font_ids.iter().enumerate() {
        embed_font(&mut pdf, fonts.face(at == 1), &used[at], *ids, at == 1)?;
    }

    let page_refs: Vec<Ref> = page_ids.iter().map(|p| p.0).collect();
    tree.write(&mut pdf, struct_id, &mut alloc, &page_refs, LANG);
    let created = checked_at_ms.map(|ms| rfc3339(ms / 1000));
    pdf.metadata(metadata_id, &xmp(&title, LANG, created.as_deref()));

    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&title));
    info.creator(TextStr("Tessera"));
    info.producer(TextStr("Tessera"));
    if let Some(ms) = checked_at_ms {
        let (y, m, d, hh, mm, ss) = civil(ms);
        let date = Date::new(y).month(m).day(d).hour(hh).minute(mm).second(ss).utc_offset_hour(0).utc_offset_minute(0);
        info.creation_date(date);
    }
    info.finish();
    // A cross-reference stream, compressed (PDF 1.5+): in a table, each structure
    // element's entry would take 20 bytes.
    let xref_id = alloc();
    Ok(pdf.finish_with_xref_stream_and_filter(xref_id, |data| match deflate(data) {
        Ok(packed) => (packed, XRefFilter::Single(Filter::FlateDecode)),
        // Compressing into memory does not fail; were it to, the stream stays as it is.
        Err(_) => (data.to_vec(), XRefFilter::Multiple(Vec::new())),
    }))
}

pub(super) const FONT_NAMES: [&str; 2] = ["F1", "F2"];

/// Opens the marked content of `tag`: its element's role with its MCID, or an artifact.
fn begin_marked(content: &mut Content, tree: &Tree, tag: Tag) {
    match tag {
        Tag::Artifact => {
            content.begin_marked_content(Name(b"Artifact"));
        }
        Tag::Footer | Tag::Repeated => {
            let mut marked = content.begin_marked_content_with_properties(Name(b"Artifact"));
            let mut artifact = marked.properties().artifact();
            artifact.kind(ArtifactType::Pagination);
            if tag == Tag::Footer {
                artifact.subtype(ArtifactSubtype::Footer);
            }
        }
        Tag::Content { node, mcid } => {
            content.begin_marked_content_with_properties(tree.role(node).to_name()).properties().identify(mcid);
        }
    }
}

/// Embeds one face: Type0 font, CID font, descriptor, subset font file, `ToUnicode`.
pub(super) fn embed_font(pdf: &mut Pdf, face: &Face, used: &Used, ids: [Ref; 5], bold: bool) -> std::io::Result<()> {
    let [type0_id, cid_id, descriptor_id, file_id, cmap_id] = ids;
    let subset = subsetter::subset(face.data, 0, &used.remapper)
        .map_err(|e| std::io::Error::other(format!("cannot subset the font: {e}")))?;
    // A subset's name starts with a tag of six capitals that depends on its glyphs.
    let mut hash: u32 = 0x811c_9dc5;
    for gid in used.remapper.remapped_gids() {
        for b in gid.to_be_bytes() {
            hash = (hash ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    }
    let tag: String = (0..6).map(|i| char::from(b'A' + ((hash >> (i * 5)) % 26) as u8)).collect();
    let base = format!("{tag}+{}", if bold { "DejaVuSans-Bold" } else { "DejaVuSans" });
    let system = SystemInfo { registry: Str(b"Adobe"), ordering: Str(b"Identity"), supplement: 0 };

    pdf.type0_font(type0_id)
        .base_font(Name(base.as_bytes()))
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_id)
        .to_unicode(cmap_id);

    let scale = 1000.0 / face.units_per_em;
    let widths: Vec<f32> = used
        .remapper
        .remapped_gids()
        .map(|old| f32::from(face.face.glyph_hor_advance(ttf_parser::GlyphId(old)).unwrap_or(0)) * scale)
        .collect();
    let mut cid = pdf.cid_font(cid_id);
    cid.subtype(CidFontType::Type2)
        .base_font(Name(base.as_bytes()))
        .system_info(system)
        .font_descriptor(descriptor_id)
        .cid_to_gid_map_predefined(Name(b"Identity"));
    cid.widths().consecutive(0, widths);
    cid.finish();

    let f = &face.face;
    let bbox = f.global_bounding_box();
    pdf.font_descriptor(descriptor_id)
        .name(Name(base.as_bytes()))
        .flags(FontFlags::NON_SYMBOLIC)
        .bbox(Rect::new(
            f32::from(bbox.x_min) * scale,
            f32::from(bbox.y_min) * scale,
            f32::from(bbox.x_max) * scale,
            f32::from(bbox.y_max) * scale,
        ))
        .italic_angle(0.0)
        .ascent(f32::from(f.ascender()) * scale)
        .descent(f32::from(f.descender()) * scale)
        .cap_height(f32::from(f.capital_height().unwrap_or(f.ascender())) * scale)
        .stem_v(if bold { 140.0 } else { 80.0 })
        .font_file2(file_id);

    let packed = deflate(&subset)?;
    pdf.stream(file_id, &packed)
        .filter(Filter::FlateDecode)
        .pair(Name(b"Length1"), i32::try_from(subset.len()).unwrap_or(i32::MAX));

    let mut cmap = UnicodeCmap::new(Name(b"Custom"), system);
    for (&gid, &c) in &used.text {
        cmap.pair(gid, c);
    }
    let cmap = cmap.finish();
    pdf.cmap(cmap_id, &cmap);
    Ok(())
}

/// A colour channel from 0..=255 to 0..=1.
pub(super) fn unit(c: u8) -> f32 {
    f32::from(c) / 255.0
}

/// Zlib-compressed `data` (a `FlateDecode` stream).
pub(super) fn deflate(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(data)?;
    encoder.finish()
}
