//! The keys every block accepts, by place: what the language server completes and
//! explains at the cursor.
//!
//! A place is the path of enclosing statement keys, outermost first, as the cursor
//! reads it (`["case", "override"]`). The language's own keys come from the tables of
//! the phases that read them; the fields of the suite block, categories, profiles and
//! cases come from the suite's shape, so completion offers exactly what the resolver
//! accepts. Without a shape (a suite whose shape does not read), only the language's
//! own keys are offered.

use crate::model::shape::{Kind, Shape};

use super::case::CASE_KEYS;
use super::defaults::{layer_keys, APPLY};
use super::fields::key_specs;
use super::keys::{self, KeySpec};
use super::suite::SUITE_KEYS;

/// The keys of the block opened by the statements `path`; `None` for a free-form block
/// (a data block, a layout) or one the language does not have.
pub fn block_specs<'a>(path: &[&str], shape: Option<&'a Shape>) -> Option<Vec<KeySpec<'a>>> {
    let fixed = |tables: &[&[KeySpec<'static>]]| {
        Some(tables.iter().flat_map(|t| t.iter().copied()).collect())
    };
    match path {
        [] => fixed(&[keys::TOP_LEVEL]),
        ["tool"] | ["schema", "tool"] => fixed(&[super::tools::TOOL_KEYS]),
        ["tool", "adapter"] | ["schema", "tool", "adapter"] => fixed(&[super::tools::ADAPTER_KEYS]),
        ["tool", "argument"] | ["schema", "tool", "argument"] => {
            fixed(&[super::tools::arguments::ARGUMENT_KEYS])
        }
        ["tool", "read"] | ["schema", "tool", "read"] => {
            fixed(&[super::tools::behavior::READ_KEYS])
        }
        ["tool", "create" | "update" | "delete"]
        | ["schema", "tool", "create" | "update" | "delete"] => {
            fixed(&[super::tools::behavior::WRITE_KEYS])
        }
        ["tool", "respond"] | ["schema", "tool", "respond"] => {
            fixed(&[super::tools::behavior::RESPOND_KEYS])
        }
        ["schema"] => fixed(&[super::world::schema::SCHEMA_KEYS]),
        ["schema", "collection"] => fixed(&[super::world::schema::COLLECTION_KEYS]),
        ["shape"] => fixed(&[super::shape::SHAPE_KEYS]),
        ["shape", "field" | "suite_field"] => fixed(&[super::shape::FIELD_KEYS]),
        ["shape", "grading"] => fixed(&[super::shape::GRADING_KEYS]),
        ["shape", "import"] => fixed(&[super::shape::IMPORT_KEYS]),
        ["shape", "export", "evaluator"] => fixed(&[super::shape::REWARD_KEYS]),
        ["case", "expect" | "forbid", rest @ ..] => assertion_block(rest),
        ["case", "world"] => fixed(&[super::world::shared::WORLD_KEYS]),
        ["world"] => fixed(&[super::world::shared::SHARED_WORLD_KEYS]),
        ["suite", rest @ ..] => Some(suite_block(rest, shape)),
        ["category"] | ["profile"] => Some(shape.map_or_else(|| vec![APPLY], layer_keys)),
        ["case", rest @ ..] => case_block(rest, shape),
        _ => None,
    }
}

/// A block inside `expect` or `forbid`: assertions (in `any` and `not` too), and the
/// blocks of a `file` assertion by the formats they read.
fn assertion_block(rest: &[&str]) -> Option<Vec<KeySpec<'static>>> {
    use super::world::expect as e;
    let tables: &[&[KeySpec<'static>]] = match rest {
        [] | [.., "any" | "not"] => &[e::ASSERTIONS],
        [.., "file"] => &[e::FILE_KEYS],
        [.., "file", "csv"] => &[e::CSV_KEYS],
        [.., "file", "xlsx"] => &[e::XLSX_KEYS, e::CSV_KEYS, e::CELL_KEYS],
        [.., "file", "xlsx", "sheet"] => &[e::CSV_KEYS, e::CELL_KEYS],
        [.., "file", "document"] => &[e::DOCUMENT_KEYS],
        [.., "file", "image"] => &[e::IMAGE_KEYS],
        _ => return None,
    };
    Some(tables.iter().flat_map(|t| t.iter().copied()).collect())
}

/// The suite block, or a block nested in it by a dotted field key (`scoring`).
fn suite_block<'a>(rest: &[&str], shape: Option<&'a Shape>) -> Vec<KeySpec<'a>> {
    let Some(shape) = shape else {
        return if rest.is_empty() {
            SUITE_KEYS.to_vec()
        } else {
            Vec::new()
        };
    };
    if rest.is_empty() {
        let mut specs = key_specs(shape.suite_fields.iter(), "", SUITE_KEYS);
        for key in layer_keys(shape) {
            if !specs.iter().any(|s| s.key == key.key) {
                specs.push(key);
            }
        }
        return specs;
    }
    key_specs(shape.suite_fields.iter(), &rest.join("."), &[])
}

/// A case block, a block nested in it by a dotted key, or the block of an override,
/// a follow-up or a check.
fn case_block<'a>(rest: &[&str], shape: Option<&'a Shape>) -> Option<Vec<KeySpec<'a>>> {
    let Some(shape) = shape else {
        return rest.is_empty().then(|| CASE_KEYS.to_vec());
    };
    if rest.is_empty() {
        return Some(key_specs(shape.case_fields.iter(), "", CASE_KEYS));
    }
    let key = rest.join(".");
    match shape
        .case_field_named(&key)
        .map(|f| shape.case_fields[f].kind)
    {
        Some(Kind::Override) => Some(keys::OVERRIDE.to_vec()),
        Some(Kind::Followup) => Some(keys::FOLLOWUP.to_vec()),
        Some(Kind::Checks) => Some(keys::CHECK.to_vec()),
        Some(_) => None,
        None => {
            let nested = key_specs(shape.case_fields.iter(), &key, &[]);
            (!nested.is_empty()).then_some(nested)
        }
    }
}
