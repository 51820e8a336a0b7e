//! Lowering to blinded model bundles: per case, exactly what the model under test may
//! see (the suite's use instructions: the assistant system instruction, the case's
//! `model_input` and the contracts of its available tools), plus an index of case ids
//! and file names.
//!
//! Nothing here reads `harness_only` or `evaluator_only` fields; [`super::blinding`]
//! then proves, on the bundles actually built, that none of their text reached a
//! bundle. Bundles are only returned when that proof holds.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::diag::{codes, Diagnostic};
use crate::model::tool::Tool;
use crate::model::{Case, Suite, Text};

use super::blinding;
use super::json_style::to_master_string;
use super::layout::{Cx, View};
use crate::model::shape::{Builtin, Kind, Layout, LayoutSource, Slot};
use crate::model::texts::{Labelled, What};

/// The file, beside the bundles, that lists them.
pub const INDEX_FILE: &str = "index.json";

/// One case's bundle: its id, its file name and its JSON text (master style, one line,
/// no trailing newline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub case_id: String,
    pub file_name: String,
    pub json: String,
}

/// Every bundle of a suite, in the suite's case order, and the index JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleSet {
    pub bundles: Vec<Bundle>,
    pub index_json: String,
}

impl BundleSet {
    /// The bundle folder's files as `(relative path, bytes)`: the index first.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = vec![(INDEX_FILE.to_string(), self.index_json.clone().into_bytes())];
        files.extend(
            self.bundles
                .iter()
                .map(|b| (b.file_name.clone(), b.json.clone().into_bytes())),
        );
        files
    }

    /// JSON Lines: each bundle's JSON (the same bytes as its file) and a newline.
    pub fn jsonl(&self) -> String {
        let mut out = String::with_capacity(self.bundles.iter().map(|b| b.json.len() + 1).sum());
        for bundle in &self.bundles {
            out.push_str(&bundle.json);
            out.push('\n');
        }
        out
    }
}

/// Builds the bundles of a suite that compiled without errors, or the diagnostics that
/// stop them: case ids that cannot name distinct files, or hidden text that leaked.
pub fn bundles(suite: &Suite) -> Result<BundleSet, Vec<Diagnostic>> {
    let mut diagnostics = file_name_clashes(suite);
    let values: Vec<Value> = suite.cases.iter().map(|c| bundle_value(suite, c)).collect();
    diagnostics.extend(blinding::prove(suite, &values));
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    let bundles = suite
        .cases
        .iter()
        .zip(&values)
        .map(|(case, value)| Bundle {
            case_id: case.id.as_str().to_string(),
            file_name: file_name(case),
            json: to_master_string(value),
        })
        .collect::<Vec<_>>();
    let index_json = to_master_string(&index(&bundles));
    Ok(BundleSet {
        bundles,
        index_json,
    })
}

/// The bundle of one case as a JSON value: the shape's bundle layout over the case.
pub fn bundle_value(suite: &Suite, case: &Case) -> Value {
    View {
        layout: &suite.shape.bundle,
        cx: Cx::case(suite, case),
    }
    .to_value()
}

/// Every model text a case's bundle is built from, with what it is, so that a leak can
/// be pointed at where it was written: the texts of the sources the bundle layout
/// holds (its shape's reader allows only model-visible ones). A tool's argument list is
/// derived from its declaration: each entry is placed at the argument's name.
pub fn model_facing_texts(suite: &Suite, case: &Case) -> Vec<(Shown, Text)> {
    let shared = SuiteModelTexts::of(suite);
    let case_texts = crate::model::texts::case_texts(suite, case);
    model_texts_of(suite, case, &case_texts, &shared)
        .into_iter()
        .map(|(what, text)| {
            let quotable = matches!(what, What::Field { field, .. } if suite.shape.quotable(field));
            let shown = Shown {
                what: what.to_string(),
                quotable,
            };
            (shown, text.into_owned())
        })
        .collect()
}

/// What a model-facing text is, for messages, and whether it is of a field the shape
/// declares `quotable` (which the leak rule does not read).
pub struct Shown {
    pub what: String,
    pub quotable: bool,
}

/// What every case's model texts draw on, made once per suite: the suite's texts and
/// the entries of its tools' argument lists.
pub struct SuiteModelTexts<'a> {
    suite_texts: Vec<Labelled<'a>>,
    /// For each tool of the suite, its argument list's entries.
    tool_entries: Vec<Vec<Text>>,
}

impl<'a> SuiteModelTexts<'a> {
    pub fn of(suite: &'a Suite) -> SuiteModelTexts<'a> {
        let tool_entries = suite
            .tools
            .iter()
            .map(|tool| {
                let listed = super::tools::argument_list(tool);
                tool.arguments
                    .iter()
                    .zip(listed)
                    .map(|(argument, entry)| Text::new(entry, argument.name.span))
                    .collect()
            })
            .collect();
        SuiteModelTexts {
            suite_texts: crate::model::texts::suite_texts(suite),
            tool_entries,
        }
    }
}

/// [`model_facing_texts`] of a case whose texts are `case_texts`. A text is borrowed
/// when it lives in the model or in `shared` (so it is the same value in every case that
/// has it), owned when it was made for this call (a data block's strings).
pub fn model_texts_of<'t>(
    suite: &'t Suite,
    case: &'t Case,
    case_texts: &[Labelled<'t>],
    shared: &'t SuiteModelTexts<'t>,
) -> Vec<(What<'t>, Cow<'t, Text>)> {
    let mut sources = Vec::new();
    sources_of(&suite.shape.bundle, &mut sources);
    // Most of a case's texts are shown, with its tools' and the suite's.
    let mut texts: Vec<(What<'t>, Cow<'t, Text>)> = Vec::with_capacity(2 * case_texts.len());
    let labelled = |t: &Labelled<'t>| (t.what(), t.text.clone());
    // A layout may show the tools twice (the case's `tools` field and the builtin
    // list); their texts are listed once, where they are first shown: every reader
    // takes a text's first place.
    let mut tools_listed = false;
    let mut list_tools = |texts: &mut Vec<(What<'t>, Cow<'t, Text>)>| {
        if !std::mem::replace(&mut tools_listed, true) {
            tool_texts(suite, case, shared, texts);
        }
    };
    for source in sources {
        match source {
            LayoutSource::Field(id) if suite.shape.case_fields[*id].kind == Kind::Tools => {
                list_tools(&mut texts)
            }
            LayoutSource::Field(id) => {
                let key = suite.shape.case_fields[*id].key.as_str();
                texts.extend(case_texts.iter().filter(|t| t.field == key).map(labelled));
                if suite.shape.case_fields[*id].kind == Kind::Conversation {
                    for turn in &case.conversation {
                        texts.push((What::Named("conversation role"), Cow::Borrowed(&turn.role)));
                        texts.push((
                            What::Named("conversation turn"),
                            Cow::Borrowed(&turn.content),
                        ));
                    }
                }
            }
            LayoutSource::SuiteField(id) => {
                let key = suite.shape.suite_fields[*id].key.as_str();
                let suite_texts = shared.suite_texts.iter();
                texts.extend(suite_texts.filter(|t| t.field == key).map(labelled));
            }
            LayoutSource::Builtin(Builtin::CaseId) => {
                texts.push((What::Named("case id"), Cow::Borrowed(&case.id)));
            }
            LayoutSource::Builtin(Builtin::Tools) => list_tools(&mut texts),
            LayoutSource::Builtin(_) | LayoutSource::Part(_) => {}
        }
    }
    texts
}

/// The texts of the contracts of the tools a case offers: names, arguments, behavior.
fn tool_texts<'t>(
    suite: &'t Suite,
    case: &Case,
    shared: &'t SuiteModelTexts<'t>,
    texts: &mut Vec<(What<'t>, Cow<'t, Text>)>,
) {
    let tools = suite.tools.iter().zip(&shared.tool_entries);
    for (tool, entries) in tools.filter(|(t, _)| offers(case, t)) {
        texts.push((What::Named("tool name"), Cow::Borrowed(&tool.name)));
        for (argument, entry) in tool.arguments.iter().zip(entries) {
            texts.push((What::Named("tool argument"), Cow::Borrowed(entry)));
            texts.push((What::Named("tool argument"), Cow::Borrowed(&argument.name)));
            texts.extend(
                argument
                    .doc
                    .iter()
                    .map(|d| (What::Named("tool argument description"), Cow::Borrowed(d))),
            );
        }
        texts.push((What::Named("tool behavior"), Cow::Borrowed(&tool.behavior)));
    }
}

/// Every source a layout holds, nested layouts and item layouts included.
fn sources_of<'l>(layout: &'l Layout, out: &mut Vec<&'l LayoutSource>) {
    for entry in &layout.entries {
        match &entry.value {
            Slot::Object(inner) => sources_of(inner, out),
            Slot::Source { source, items } => {
                out.push(source);
                if let Some(items) = items {
                    sources_of(items, out);
                }
            }
        }
    }
}

/// Whether a case lists the tool among its available tools.
fn offers(case: &Case, tool: &Tool) -> bool {
    case.tools.iter().any(|n| n.as_str() == tool.name.as_str())
}

fn file_name(case: &Case) -> String {
    format!("{}.json", case.id.as_str())
}

/// Case ids name files: an id `index` (in any letter case) would overwrite the index.
/// (Two ids equal but for letter case are `case_file_name` errors of resolution, so a
/// suite that compiled has none.)
fn file_name_clashes(suite: &Suite) -> Vec<Diagnostic> {
    suite
        .cases
        .iter()
        .filter(|case| file_name(case).eq_ignore_ascii_case(INDEX_FILE))
        .map(|case| {
            Diagnostic::new(
                codes::BUNDLE_FILE_NAME,
                format!(
                    "case id `{}` would overwrite the bundle index",
                    case.id.as_str()
                ),
            )
            .primary(case.id.span, format!("its bundle would be {INDEX_FILE}"))
            .help("rename the case: bundles are written as <case_id>.json beside index.json")
        })
        .collect()
}

/// `index.json` of `casec bundle`: the bundles in case order, by case id and file name
/// only (no titles, categories or tags, which can hint at answers). Its contract is
/// `schemas/bundle-index.schema.json`, which the derived schema is held to.
#[derive(Serialize, JsonSchema)]
pub struct BundleIndex<'a> {
    pub bundles: Vec<IndexEntry<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct IndexEntry<'a> {
    pub case_id: &'a str,
    /// The bundle's file name in the same folder: `<case_id>.json`.
    pub file: &'a str,
}

fn index(bundles: &[Bundle]) -> BundleIndex<'_> {
    BundleIndex {
        bundles: bundles
            .iter()
            .map(|b| IndexEntry {
                case_id: &b.case_id,
                file: &b.file_name,
            })
            .collect(),
    }
}
