//! Which kind of name a place in a statement holds: the value slots that refer to a
//! declared name (`category medication`, `tools get_clock …`, `profile std.…`) and
//! the headers that declare one (`tool write_record { … }`).
//!
//! A place is the path of enclosing block keys, the statement's key and the index of
//! the value, as [`cursor`](super::cursor) reads them. Keys not valid in the block are
//! no place at all, so free-form data blocks never offer names.

use crate::resolve::keys;

use super::index::NameKind;

/// Whether `key` is a statement the block at `path` accepts.
fn accepts(path: &[&str], key: &str) -> bool {
    keys::block_specs(path)
        .is_some_and(|tables| tables.iter().flat_map(|t| t.iter()).any(|s| s.key == key))
}

/// The kind of name the value `index` of a `key` statement in the block at `path`
/// refers to.
pub fn reference(path: &[&str], key: &str, index: usize) -> Option<NameKind> {
    if !accepts(path, key) {
        return None;
    }
    let in_case = path == ["case"];
    match (key, index) {
        ("category", 0) if in_case => Some(NameKind::Category),
        ("tags", _) if in_case => Some(NameKind::Tag),
        ("tools", _) => Some(NameKind::Tool),
        ("override", 0) => Some(NameKind::Tool),
        ("profile", 0) if !path.is_empty() => Some(NameKind::Profile),
        ("revision", 0) | ("order", _) => Some(NameKind::Case),
        ("evidence", 0) | ("dimension", 0) => Some(NameKind::Dimension),
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
    fn references_follow_the_block() {
        assert_eq!(
            reference(&["case"], "category", 0),
            Some(NameKind::Category)
        );
        assert_eq!(reference(&["category"], "tools", 3), Some(NameKind::Tool));
        assert_eq!(reference(&["suite"], "profile", 0), Some(NameKind::Profile));
        assert_eq!(
            reference(&["case", "check"], "dimension", 0),
            Some(NameKind::Dimension)
        );
        assert_eq!(reference(&[], "profile", 0), None);
        assert_eq!(reference(&["suite", "design_reference"], "tools", 0), None);
        assert_eq!(reference(&["suite"], "tags", 0), None);
        assert_eq!(declaration(&["suite"], "tags", 2), Some(NameKind::Tag));
        assert_eq!(declaration(&[], "tool", 0), Some(NameKind::Tool));
    }
}
