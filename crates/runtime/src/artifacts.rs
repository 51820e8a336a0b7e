//! Reading artifacts in their formats, for `file` expectations: the text of a document
//! (DOCX, PPTX, ODF: XML inside a zip; PDF), and an image's format and size from its
//! header. Readers only: what a check asks of what they read is decided in
//! [`super::eval`]. A run's artifacts are untrusted: every reader of a format runs
//! through [`guarded`], so a file that trips a reader fails its check rather than the
//! grading.

use std::io::{Cursor, Read};

use quick_xml::events::Event;

use crate::model::expect::ImageExpectation;

/// The largest XML part of a document read (64 MiB): a zip may expand far beyond the
/// file's size, and a run's artifacts are untrusted.
const PART_LIMIT: u64 = 64 << 20;

/// The text of a document: its paragraphs, each on a line. A DOCX's body, a PPTX's
/// slides in order, an ODF document's body, or the content itself when it is UTF-8 text
/// (a Markdown report).
pub fn document_text(data: &[u8]) -> Result<String, String> {
    if data.starts_with(b"%PDF-") {
        return guarded(|| pdf_text(data));
    }
    guarded(|| zipped_text(data))
}

/// The format of a document's bytes, as `document { type … }` names it: `pdf`, `docx`,
/// `pptx`, `odt`, `odp`, `text` (UTF-8 that is none of these); `None` for other bytes
/// (a zip of something else, an image).
pub fn document_kind(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(b"%PDF-") {
        return Some("pdf");
    }
    let kind = guarded(|| {
        let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(data)) else {
            return Ok(std::str::from_utf8(data).ok().map(|_| "text"));
        };
        let names: Vec<String> = archive
            .file_names()
            .filter_map(|n| n.ok().map(|n| n.to_string()))
            .collect();
        if names.iter().any(|n| n == "word/document.xml") {
            return Ok(Some("docx"));
        }
        if names.iter().any(|n| n.starts_with("ppt/slides/slide")) {
            return Ok(Some("pptx"));
        }
        // An ODF package names its type in its first entry, `mimetype`.
        let mut mimetype = String::new();
        if let Ok(entry) = archive.by_name("mimetype") {
            let _ = entry.take(256).read_to_string(&mut mimetype);
        }
        Ok(match mimetype.trim() {
            "application/vnd.oasis.opendocument.text" => Some("odt"),
            "application/vnd.oasis.opendocument.presentation" => Some("odp"),
            _ => None,
        })
    });
    kind.ok().flatten()
}

/// A reader's answer, or a failure when it panics on the file.
pub fn guarded<T>(read: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read))
        .unwrap_or_else(|_| Err("a file its reader cannot read".into()))
}

/// The text of a PDF's pages, in order (lopdf's extraction: runs of text drawn apart
/// may join without a space).
fn pdf_text(data: &[u8]) -> Result<String, String> {
    let document =
        lopdf::Document::load_mem(data).map_err(|e| format!("not a readable PDF: {e}"))?;
    let pages: Vec<u32> = document.get_pages().keys().copied().collect();
    document
        .extract_text(&pages)
        .map_err(|e| format!("a PDF whose text cannot be read: {e}"))
}

/// The text of a DOCX, PPTX or ODF document, or of text content.
fn zipped_text(data: &[u8]) -> Result<String, String> {
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(data)) else {
        return std::str::from_utf8(data)
            .map(str::to_string)
            .map_err(|_| "not a document (DOCX, PPTX, ODF, PDF) nor text".to_string());
    };
    let names: Vec<String> = archive
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.to_string()))
        .collect();
    let parts: Vec<String> = if names.iter().any(|n| n == "word/document.xml") {
        vec!["word/document.xml".into()]
    } else if names.iter().any(|n| n.starts_with("ppt/slides/slide")) {
        let mut slides: Vec<(u32, String)> = names
            .iter()
            .filter_map(|n| {
                let number = n.strip_prefix("ppt/slides/slide")?.strip_suffix(".xml")?;
                Some((number.parse().ok()?, n.clone()))
            })
            .collect();
        slides.sort();
        slides.into_iter().map(|(_, n)| n).collect()
    } else if names.iter().any(|n| n == "content.xml") {
        vec!["content.xml".into()]
    } else {
        return Err("a zip, but not a DOCX, PPTX or ODF document".into());
    };
    let mut text = String::new();
    for part in parts {
        let mut xml = Vec::new();
        archive
            .by_name(&part)
            .map_err(|e| e.to_string())?
            .take(PART_LIMIT)
            .read_to_end(&mut xml)
            .map_err(|e| e.to_string())?;
        paragraphs(&xml, &mut text).map_err(|e| format!("`{part}` is not XML: {e}"))?;
    }
    Ok(text)
}

/// Appends the text of an XML part: the text of its elements, a line break after each
/// paragraph (`w:p`, `a:p`, `text:p`, `text:h`).
fn paragraphs(xml: &[u8], text: &mut String) -> Result<(), quick_xml::Error> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf)? {
            Event::Text(t) => text.push_str(&t.xml10_content()),
            // `&amp;`, `&#233;` and the like inside a text.
            Event::GeneralRef(r) => match r.resolve_char_ref()? {
                Some(c) => text.push(c),
                None => text.push_str(
                    quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                        .unwrap_or_default(),
                ),
            },
            Event::End(e) if matches!(e.local_name().as_ref(), "p" | "h") => text.push('\n'),
            Event::Eof => return Ok(()),
            _ => {}
        }
        buf.clear();
    }
}

/// Why the content is not the image expected: not an image, or another format or size.
pub fn image_miss(expected: &ImageExpectation, data: &[u8]) -> Option<String> {
    let (Ok(kind), Ok(size)) = (imagesize::image_type(data), imagesize::blob_size(data)) else {
        return Some("not an image (PNG, JPEG, GIF, WebP, …)".into());
    };
    let kind = format!("{kind:?}").to_lowercase();
    let (width, height) = (size.width as u64, size.height as u64);
    let wrong = expected.kind.as_ref().is_some_and(|k| k.as_str() != kind)
        || expected.width.is_some_and(|w| w != width)
        || expected.height.is_some_and(|h| h != height);
    wrong.then(|| format!("an image {kind} of {width}×{height} pixels"))
}
