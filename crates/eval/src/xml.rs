//! PAN's XML files: reading cases and detections, writing detections.
//!
//! A file holds `<document reference="suspicious-documentX.txt">` with `<feature>`
//! children; a case or detection is a feature whose `name` is `plagiarism` (ground
//! truth) or `detected-plagiarism` (a detector's output) with the attributes
//! `this_offset`, `this_length`, `source_reference`, `source_offset`, `source_length`.
//! Other features (`about`, `md5`, ...) and other attributes are ignored; attribute
//! order and whitespace do not matter.

use std::fmt::Write as _;
use std::path::Path;

use quick_xml::XmlVersion;
use quick_xml::escape::escape;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use crate::annotation::{Annotation, pair_file_name};
use crate::error::{Error, Result};

/// Feature name of a ground-truth case.
pub const CASE_FEATURE: &str = "plagiarism";
/// Feature name of a detection.
pub const DETECTION_FEATURE: &str = "detected-plagiarism";

/// Reads the detections of one XML file: features named `detected-plagiarism`, and
/// also `plagiarism` (so a ground-truth file reads as a perfect detection file).
pub fn read_detections(path: &Path) -> Result<Vec<Annotation>> {
    read_annotations(path, &[DETECTION_FEATURE, CASE_FEATURE])
}

/// Reads the features of one XML file whose `name` is one of `names`.
pub fn read_annotations(path: &Path, names: &[&str]) -> Result<Vec<Annotation>> {
    let bytes = fs_err::read(path).map_err(|e| Error::io(path, e))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::NotUtf8 { path: path.to_path_buf(), valid_up_to: e.valid_up_to() })?;
    parse_annotations(text, path, names)
}

/// Parses XML text; `origin` only names the text in errors.
pub fn parse_annotations(xml: &str, origin: &Path, names: &[&str]) -> Result<Vec<Annotation>> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().trim_text(true);
    let mut out = Vec::new();
    // Reference of each open <document>, innermost last.
    let mut documents: Vec<Option<String>> = Vec::new();
    loop {
        let position = reader.buffer_position();
        let event = reader.read_event().map_err(|e| Error::Xml {
            path: origin.to_path_buf(),
            position: reader.error_position(),
            message: e.to_string(),
        })?;
        match event {
            Event::Start(e) if e.local_name().as_ref() == "document" => {
                documents.push(attribute(&e, "reference", origin, position)?);
            }
            Event::Start(e) | Event::Empty(e) if e.local_name().as_ref() == "feature" => {
                feature(&e, &documents, names, origin, position, &mut out)?;
            }
            Event::End(e) if e.local_name().as_ref() == "document" => {
                documents.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

fn feature(
    e: &BytesStart<'_>,
    documents: &[Option<String>],
    names: &[&str],
    origin: &Path,
    position: u64,
    out: &mut Vec<Annotation>,
) -> Result<()> {
    let Some(name) = attribute(e, "name", origin, position)? else {
        return Ok(());
    };
    if !names.contains(&name.as_str()) {
        return Ok(());
    }
    let Some(Some(suspicious)) = documents.last() else {
        return Err(Error::NoDocument { path: origin.to_path_buf(), position });
    };
    let required = |key: &str| -> Result<String> {
        attribute(e, key, origin, position)?.ok_or_else(|| Error::MissingAttribute {
            path: origin.to_path_buf(),
            position,
            element: "feature".into(),
            attribute: key.into(),
        })
    };
    let number = |key: &str| -> Result<u64> {
        let value = required(key)?;
        value.trim().parse::<u64>().map_err(|_| Error::BadNumber {
            path: origin.to_path_buf(),
            position,
            attribute: key.into(),
            value,
        })
    };
    out.push(Annotation {
        suspicious: suspicious.clone(),
        source: required("source_reference")?,
        this_offset: number("this_offset")?,
        this_length: number("this_length")?,
        source_offset: number("source_offset")?,
        source_length: number("source_length")?,
    });
    Ok(())
}

/// The unescaped value of attribute `key` of `e`, if present.
fn attribute(e: &BytesStart<'_>, key: &str, origin: &Path, position: u64) -> Result<Option<String>> {
    let bad = |message: String| Error::Xml { path: origin.to_path_buf(), position, message };
    for attr in e.attributes() {
        let attr = attr.map_err(|err| bad(err.to_string()))?;
        if attr.key.local_name().as_ref() == key {
            let value = attr.normalized_value(XmlVersion::Implicit1_0).map_err(|err| bad(err.to_string()))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// Writes the detections of one (suspicious, source) pair as PAN does: one file
/// `<out_dir>/<suspicious stem>-<source stem>.xml` (see [`pair_file_name`]) holding
/// `<document reference="{suspicious}">` with one `detected-plagiarism` feature per
/// detection. `out_dir` is created if needed; an existing file is replaced. A pair
/// without detections still gets a file (an empty document).
///
/// Every detection must belong to the pair ([`Error::PairMismatch`] otherwise), and
/// names must be plain file names ([`Error::InvalidName`]).
pub fn write_detections(out_dir: &Path, suspicious: &str, source: &str, detections: &[Annotation]) -> Result<()> {
    check_name(suspicious)?;
    check_name(source)?;
    if let Some(d) = detections.iter().find(|d| d.suspicious != suspicious || d.source != source) {
        return Err(Error::PairMismatch {
            pair_suspicious: suspicious.into(),
            pair_source: source.into(),
            det_suspicious: d.suspicious.clone(),
            det_source: d.source.clone(),
        });
    }
    let xml = detections_xml(suspicious, source, detections);
    fs_err::create_dir_all(out_dir).map_err(|e| Error::io(out_dir, e))?;
    let path = out_dir.join(pair_file_name(suspicious, source));
    fs_err::write(&path, xml).map_err(|e| Error::io(&path, e))
}

/// The XML text [`write_detections`] writes.
pub fn detections_xml(suspicious: &str, source: &str, detections: &[Annotation]) -> String {
    let mut xml = String::with_capacity(64 + detections.len() * 160);
    let source = escape(source);
    // Writing to a String cannot fail.
    let _ = writeln!(xml, "<document reference=\"{}\">", escape(suspicious));
    for d in detections {
        let _ = writeln!(
            xml,
            "<feature name=\"{DETECTION_FEATURE}\" this_offset=\"{}\" this_length=\"{}\" \
             source_reference=\"{source}\" source_offset=\"{}\" source_length=\"{}\"/>",
            d.this_offset, d.this_length, d.source_offset, d.source_length
        );
    }
    xml.push_str("</document>\n");
    xml
}

fn check_name(name: &str) -> Result<()> {
    let message = if name.is_empty() {
        "empty"
    } else if name.contains(['/', '\\', '\0']) {
        "contains a path separator or NUL"
    } else if name == "." || name == ".." {
        "is a relative directory"
    } else {
        return Ok(());
    };
    Err(Error::InvalidName { name: name.into(), message: message.into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> Result<Vec<Annotation>> {
        parse_annotations(xml, Path::new("t.xml"), &[DETECTION_FEATURE, CASE_FEATURE])
    }

    #[test]
    fn reads_any_attribute_order_and_whitespace() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<document  reference="suspicious-document00001.txt">
	<feature  name="about" authors="DUC2006" title="news" language="en" />
	<feature source_length = "698" source_offset="1300"
	  source_reference='source-document01090.txt' this_length="698" this_offset="3593" name="plagiarism" />
	<feature name="detected-plagiarism" this_offset="1" this_length="2" source_reference="b&amp;c.txt" source_offset="3" source_length="4"></feature>
</document>"#;
        let got = parse(xml).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            Annotation {
                suspicious: "suspicious-document00001.txt".into(),
                source: "source-document01090.txt".into(),
                this_offset: 3593,
                this_length: 698,
                source_offset: 1300,
                source_length: 698,
            }
        );
        assert_eq!(got[1].source, "b&c.txt");
        assert_eq!(got[1].this_offset, 1);
    }

    #[test]
    fn filters_by_feature_name() {
        let xml = r#"<document reference="s.txt">
<feature name="plagiarism" this_offset="1" this_length="2" source_reference="r.txt" source_offset="3" source_length="4"/>
<feature name="detected-plagiarism" this_offset="5" this_length="2" source_reference="r.txt" source_offset="3" source_length="4"/>
</document>"#;
        let cases = parse_annotations(xml, Path::new("t.xml"), &[CASE_FEATURE]).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].this_offset, 1);
        assert_eq!(parse(xml).unwrap().len(), 2);
    }

    #[test]
    fn empty_document() {
        assert!(parse("<document reference=\"s.txt\">\n</document>\n").unwrap().is_empty());
        assert!(parse("").unwrap().is_empty());
    }

    #[test]
    fn bad_xml_is_an_error_naming_the_file() {
        let bad = [
            "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_offset=\"1\"",
            "<document reference=\"s.txt\"></wrong>",
            "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_offset=\"x\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/></document>",
            "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_offset=\"-1\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/></document>",
            "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/></document>",
            "<feature name=\"plagiarism\" this_offset=\"1\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/>",
            "<document><feature name=\"plagiarism\" this_offset=\"1\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/></document>",
            "<document reference=\"s&bogus;\"><feature name=\"plagiarism\" this_offset=\"1\" this_length=\"2\" source_reference=\"r\" source_offset=\"3\" source_length=\"4\"/></document>",
        ];
        for xml in bad {
            let err = parse(xml).expect_err(xml);
            assert!(err.to_string().contains("t.xml"), "{err}");
        }
    }

    #[test]
    fn missing_attribute_is_named() {
        let xml = "<document reference=\"s.txt\"><feature name=\"plagiarism\" this_offset=\"1\" this_length=\"2\" source_offset=\"3\" source_length=\"4\"/></document>";
        let err = parse(xml).unwrap_err().to_string();
        assert!(err.contains("source_reference"), "{err}");
    }

    #[test]
    fn write_then_read_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let d = |o| Annotation {
            suspicious: "suspicious-document00005.txt".into(),
            source: "source-document01090.txt".into(),
            this_offset: o,
            this_length: 10,
            source_offset: 7,
            source_length: 12,
        };
        let dets = vec![d(0), d(100)];
        let out = dir.path().join("nested");
        write_detections(&out, "suspicious-document00005.txt", "source-document01090.txt", &dets).unwrap();
        let path = out.join("suspicious-document00005-source-document01090.xml");
        assert_eq!(read_detections(&path).unwrap(), dets);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("name=\"detected-plagiarism\""));
        // Only detected-plagiarism features, so the ground-truth reader sees none.
        assert!(read_annotations(&path, &[CASE_FEATURE]).unwrap().is_empty());
    }

    #[test]
    fn write_rejects_foreign_detections_and_bad_names() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = Annotation { suspicious: "a.txt".into(), source: "c.txt".into(), ..Default::default() };
        assert!(matches!(write_detections(dir.path(), "a.txt", "b.txt", &[foreign]), Err(Error::PairMismatch { .. })));
        assert!(matches!(write_detections(dir.path(), "../a.txt", "b.txt", &[]), Err(Error::InvalidName { .. })));
        write_detections(dir.path(), "a.txt", "b.txt", &[]).unwrap();
        assert!(read_detections(&dir.path().join("a-b.xml")).unwrap().is_empty());
    }

    #[test]
    fn missing_file_error_names_it() {
        let err = read_detections(Path::new("/nonexistent/x.xml")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/x.xml"));
    }
}
