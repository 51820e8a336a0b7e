//! Which kind of name a place in a statement holds: the value slots that refer to a
//! declared name (`category medication`, `tools note_add …`, `profile std.…`) and
//! the headers that declare one (`tool note_add { … }`).
//!
//! A place is the path of enclosing block keys, the statement's key and the index of
//! the value, as [`cursor`](super::cursor) reads them. Keys not valid in the block are
//! no place at all, so free-form data blocks never offer names.

use crate::model::shape::{Kind, Shape};
use crate::resolve::blocks::block_specs;

use super::index::NameKind;

/// Whether `key` is a statement the block at `path` accepts.
fn accepts(path: &[&str], key: &str, shape: Option<&Shape>) -> bool {
    block_specs(path, shape).is_some_and(|specs| specs.iter().any(|s| s.key == key))
}

/// The kind of a field the block at `path` holds under `key`: the suite's fields in the
/// suite block, the case's elsewhere (categories and profiles set case fields).
fn field_kind(path: &[&str], key: &str, shape: Option<&Shape>) -> Option<Kind> {
    let shape = shape?;
    let inner = path.get(1..).unwrap_or_default();
    let dotted = inner
        .iter()
        .copied()
        .chain([key])
        .collect::<Vec<_>>()
        .join(".");
    let suite = (path.first() == Some(&"suite"))
        .then(|| {
            shape
                .suite_field_named(&dotted)
                .map(|f| shape.suite_fields[f].kind)
        })
        .flatten();
    suite.or_else(|| {
        shape
            .case_field_named(&dotted)
            .map(|f| shape.case_fields[f].kind)
    })
}

/// The kind of name the value `index` of a `key` statement in the block at `path`
/// refers to.
pub fn reference(
    path: &[&str],
    key: &str,
    index: usize,
    shape: Option<&Shape>,
) -> Option<NameKind> {
    if !accepts(path, key, shape) {
        return None;
    }
    let in_case = path == ["case"];
    match (key, index) {
        ("profile", 0) if !path.is_empty() => return Some(NameKind::Profile),
        ("order", _) => return Some(NameKind::Case),
        ("dimension", 0) if path.last() == Some(&"check") => return Some(NameKind::Dimension),
        _ => {}
    }
    match (field_kind(path, key, shape)?, index) {
        (Kind::Category, 0) if in_case => Some(NameKind::Category),
        (Kind::Tags, _) if in_case => Some(NameKind::Tag),
        (Kind::Tools, _) | (Kind::Override, 0) => Some(NameKind::Tool),
        (Kind::Revisions, 0) => Some(NameKind::Case),
        (Kind::Evidence, 0) => Some(NameKind::Dimension),
        _ => None,
    }
}

/// The kind of name the value `index` of a `key` statement in the block at `path`
/// declares.
pub fn declaration(path: &[&str], key: &str, index: usize) -> Option<NameKind> {
    match (path, key, index) {
        ([], "tool", 0) => Some(NameKind::Tool),
        ([], "category", 0) => Some(NameKind::Category),
        ([], "profile", 0) => Some(NameKind::Profile),
        ([], "case", 0) => Some(NameKind::Case),
        (["suite"], "tags", _) => Some(NameKind::Tag),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_follow_the_block_and_the_shape() {
        let shape = crate::resolve::stdlib_shape("std.tujora").expect("the Tujora shape reads");
        let shape = Some(&*shape);
        assert_eq!(
            reference(&["case"], "category", 0, shape),
            Some(NameKind::Category)
        );
        assert_eq!(
            reference(&["category"], "tools", 3, shape),
            Some(NameKind::Tool)
        );
        assert_eq!(
            reference(&["suite"], "profile", 0, shape),
            Some(NameKind::Profile)
        );
        assert_eq!(
            reference(&["case", "check"], "dimension", 0, shape),
            Some(NameKind::Dimension)
        );
        assert_eq!(
            reference(&["suite"], "revision", 0, shape),
            Some(NameKind::Case)
        );
        assert_eq!(reference(&[], "profile", 0, shape), None);
        // Free-form data names nothing, even under a key that names tools elsewhere.
        let data = shape
            .and_then(|s| s.suite_fields.iter().find(|f| f.kind == Kind::Data))
            .expect("the shape has a data field");
        assert_eq!(
            reference(&["suite", data.key.as_str()], "tools", 0, shape),
            None
        );
        assert_eq!(reference(&["suite"], "tags", 0, shape), None);
        assert_eq!(reference(&["case"], "category", 0, None), None);
        assert_eq!(declaration(&["suite"], "tags", 2), Some(NameKind::Tag));
        assert_eq!(declaration(&[], "tool", 0), Some(NameKind::Tool));
    }
}
