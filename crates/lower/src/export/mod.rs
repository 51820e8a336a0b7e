//! Lowering to other benchmarks' formats: the `export`s a suite's shape declares, as
//! `casec export SUITE --format NAME` writes them.
//!
//! * `jsonl`: one JSON object per case per line, laid out by the export's layout (in
//!   the layout's key order, as DonnaBench's tasks config is).
//! * `folders`: one folder per case, named by its id, holding the files the export
//!   declares: a text field as is, a layout as JSON or YAML, the world's files
//!   (`seed`), its web references (`web`), and an evaluator (`evaluator`): a program
//!   ([`EVALUATE_PY`]) that grades a run's log and workspace with casec's own checks,
//!   through the Python package, over a copy of the suite's files, and writes the
//!   reward file the export declares.
//!
//! Export runs on a model without errors; a case that cannot be written in the format
//! (a seed without a world, a file path that would leave its folder) is an `export`
//! diagnostic, and nothing is returned then.

pub(crate) mod yaml;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::model::expect::FileStore;
use crate::model::shape::{
    Entry, ExportFile, ExportFormat, FileContent, Layout, LayoutSource, Slot,
};
use crate::model::value::FieldValue;
use crate::model::{Case, Name, Suite, Text};

use super::json_style::to_master_string;
use super::layout::{Cx, View};

/// The program a folder export's evaluator runs (Python 3 with the casec package).
pub const EVALUATE_PY: &str = include_str!("evaluate.py");

/// What an export writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exported {
    /// JSON Lines: one object per case, each line ending in a newline.
    Lines(String),
    /// Files by path relative to the output folder (`TASK-1/task.yaml`), in order.
    Folders(Vec<(String, Vec<u8>)>),
}

/// The names of the exports the suite's shape declares.
pub fn export_names(suite: &Suite) -> Vec<&str> {
    suite
        .shape
        .exports
        .iter()
        .map(|e| e.name.as_str())
        .collect()
}

/// The files of a suite by their path in its folder (`suite.case`, `tasks/t1.case`),
/// which an export's evaluator carries.
pub type SuiteFiles = [(String, Arc<str>)];

/// The folder, inside an evaluator's, that holds the copy of the suite.
const EVALUATOR_SUITE: &str = "suite";

/// The export `name` of `suite`; `None` when its shape declares no such export of its
/// cases (a `turns` export lays out observed conversations: `runtime::observed`).
/// `files` are the suite's own, for an evaluator to carry.
pub fn export(
    suite: &Suite,
    name: &str,
    files: &SuiteFiles,
) -> Option<Result<Exported, Vec<Diagnostic>>> {
    let export = suite
        .shape
        .exports
        .iter()
        .find(|e| e.name.as_str() == name)?;
    Some(match &export.format {
        ExportFormat::JsonLines(layout) => Ok(Exported::Lines(lines(suite, layout))),
        ExportFormat::Folders(folder_files) => {
            folders(suite, name, folder_files, files).map(Exported::Folders)
        }
        ExportFormat::Turns(_) => return None,
    })
}

fn lines(suite: &Suite, layout: &Layout) -> String {
    let mut out = String::new();
    for case in &suite.cases {
        let value = View {
            layout,
            cx: Cx::case(suite, case),
        }
        .to_value();
        out.push_str(&serde_json::to_string(&value).unwrap_or_default());
        out.push('\n');
    }
    out
}

fn folders(
    suite: &Suite,
    export: &str,
    files: &[ExportFile],
    suite_files: &SuiteFiles,
) -> Result<Vec<(String, Vec<u8>)>, Vec<Diagnostic>> {
    let store = crate::model::tool::file_store(&suite.tools).and_then(Result::ok);
    let included = included_files(suite);
    let mut out = Vec::new();
    let mut diags = Vec::new();
    for case in &suite.cases {
        let folder = case.id.as_str();
        for file in files {
            let path = format!("{folder}/{}", file.path.as_str());
            match &file.content {
                FileContent::Text(source) => {
                    let text = match source_value(suite, case, source) {
                        Json::String(s) => s,
                        Json::Null => String::new(),
                        other => to_master_string(&other),
                    };
                    out.push((path, text.into_bytes()));
                }
                FileContent::Json(layout) => {
                    let value = View {
                        layout,
                        cx: Cx::case(suite, case),
                    }
                    .to_value();
                    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
                    text.push('\n');
                    out.push((path, text.into_bytes()));
                }
                FileContent::Yaml(layout) => {
                    let value = View {
                        layout,
                        cx: Cx::case(suite, case),
                    }
                    .to_value();
                    out.push((path, yaml::to_yaml(&value).into_bytes()));
                }
                FileContent::Seed { from } => {
                    match seed(case, store.as_ref(), from.as_ref(), &file.path) {
                        Ok(seeded) => {
                            out.extend(seeded.into_iter().map(|(p, c)| (format!("{path}/{p}"), c)))
                        }
                        Err(d) => diags.push(d),
                    }
                }
                FileContent::Web => {
                    if let Some(text) = web(suite, case) {
                        out.push((format!("{path}/endpoints.json"), text.into_bytes()));
                    }
                }
                FileContent::Evaluator { .. } => {
                    match evaluator(case, export, &file.path, suite_files, &included) {
                        Ok(written) => {
                            out.extend(written.into_iter().map(|(p, c)| (format!("{path}/{p}"), c)))
                        }
                        Err(d) => diags.push(d),
                    }
                }
            }
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

/// The value one source has for a case, as a layout would place it.
fn source_value(suite: &Suite, case: &Case, source: &LayoutSource) -> Json {
    let layout = Layout {
        entries: vec![Entry {
            key: Name::new("value", case.span),
            value: Slot::Source {
                source: source.clone(),
                items: None,
            },
        }],
        span: None,
    };
    let mut value = View {
        layout: &layout,
        cx: Cx::case(suite, case),
    }
    .to_value();
    value.get_mut("value").map(Json::take).unwrap_or_default()
}

fn export_error(case: &Case, message: String, at: &Text, help: &str) -> Diagnostic {
    Diagnostic::new(codes::EXPORT, message)
        .primary(
            case.span,
            format!("case {} cannot be exported", case.id.as_str()),
        )
        .secondary(at.span, "this export writes it")
        .help(help.to_string())
}

/// The world's files, by their path under `from` (all of them without it): relative
/// paths that stay inside the seed folder.
fn seed(
    case: &Case,
    store: Option<&FileStore>,
    from: Option<&Text>,
    at: &Text,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    let (Some(sandbox), Some(store)) = (&case.sandbox, store) else {
        return Err(export_error(
            case,
            format!("case {} has no files to seed", case.id.as_str()),
            at,
            "give the case a `world` with the files of its workspace, and the suite a tool bound to `service files.read` (or `files.write`, `files.list`) over them",
        ));
    };
    let prefix = from.map_or("/", |p| p.as_str()).trim_end_matches('/');
    let mut out = Vec::new();
    for record in sandbox
        .world
        .records
        .iter()
        .filter(|r| r.collection.as_str() == store.collection.as_str())
    {
        let field = |name: &str| {
            record
                .fields
                .iter()
                .find(|(n, _)| n.as_str() == name)
                .map(|(_, v)| v)
        };
        let path = match field(store.path_field.as_str()) {
            Some(FieldValue::Text(t)) => t.clone(),
            _ => continue,
        };
        // The exact bytes: a seeded xlsx is written as the file it is.
        let content: Vec<u8> = match field(store.content_field.as_str()) {
            Some(FieldValue::Text(t)) => t.clone().into_bytes(),
            Some(FieldValue::Bytes(b)) => b.data.to_vec(),
            _ => continue,
        };
        let Some(inside) = path.strip_prefix(prefix).and_then(|p| p.strip_prefix('/')) else {
            continue;
        };
        if inside.is_empty()
            || inside
                .split('/')
                .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return Err(export_error(
                case,
                format!("the file `{path}` of case {} cannot be seeded", case.id.as_str()),
                at,
                "write file paths as absolute paths of names (`/workspace/data/in.csv`), without `.`, `..` or empty parts",
            ));
        }
        out.push((inside.to_string(), content));
    }
    Ok(out)
}

/// `endpoints.json`: the case's web references (see [`endpoints`]). None for a case
/// without a world or a suite without `http` tools: there is nothing to reference.
fn web(suite: &Suite, case: &Case) -> Option<String> {
    let mut text = serde_json::to_string_pretty(&endpoints(suite, case)?).unwrap_or_default();
    text.push('\n');
    Some(text)
}

/// The case's web references, every record of the collection the suite's `http`
/// tools answer from, in world order: `url`, `method` (`null` when the tools do not
/// tell methods apart), `status`, `body`, and the faults the binding reads when it
/// reads them (`failures`, `failure`, `failure_status`, `latency_ms`: `null` where a
/// record says nothing). None without a world or `http` tools.
pub(crate) fn endpoints(suite: &Suite, case: &Case) -> Option<Vec<Json>> {
    let http = suite.tools.iter().find_map(|tool| tool.http())?;
    let sandbox = case.sandbox.as_ref()?;
    let field = |record: &crate::model::world::Record, name: Option<&str>| {
        let value = name.and_then(|name| {
            record
                .fields
                .iter()
                .find(|(n, _)| n.as_str() == name)
                .map(|(_, v)| v.to_json())
        });
        value.unwrap_or(Json::Null)
    };
    let endpoints: Vec<Json> = sandbox
        .world
        .records
        .iter()
        .filter(|r| r.collection.as_str() == http.endpoints_collection.as_str())
        .map(|r| {
            let mut endpoint = json!({
                "url": field(r, Some(http.url_field.as_str())),
                "method": field(r, http.method_field.as_ref().map(|m| m.as_str())),
                "status": field(r, Some(http.status_field.as_str())),
                "body": field(r, Some(http.body_field.as_str())),
            });
            let faults = [
                ("failures", &http.failures_field),
                ("failure", &http.fault_field),
                ("failure_status", &http.failure_status_field),
                ("latency_ms", &http.latency_field),
            ];
            for (key, bound) in faults {
                if let Some(name) = bound {
                    endpoint[key] = field(r, Some(name.as_str()));
                }
            }
            endpoint
        })
        .collect();
    Some(endpoints)
}

/// The case's endpoints that declare a fault or a latency (see [`endpoints`]): the
/// `web_faults` layout source, for a harness that serves the web references itself.
pub(crate) fn web_faults(suite: &Suite, case: &Case) -> Vec<Json> {
    let declares = |e: &Json, key: &str| e[key].as_f64().is_some_and(|n| n > 0.0);
    endpoints(suite, case)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| declares(e, "failures") || declares(e, "latency_ms"))
        .map(|mut e| {
            if let Json::Object(map) = &mut e {
                map.shift_remove("body");
            }
            e
        })
        .collect()
}

/// The evaluator of a case: the program, what it grades (`task.json`: the case, the
/// export whose rewards it writes, where the suite is) and a copy of the suite's files,
/// which the program loads with the casec Python package to replay the run's log over
/// the workspace it left: the checks are casec's own, never a copy of them.
fn evaluator(
    case: &Case,
    export: &str,
    at: &Text,
    files: &SuiteFiles,
    included: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<(String, Vec<u8>)>, Diagnostic> {
    if case.sandbox.is_none() {
        return Err(export_error(
            case,
            format!("case {} has no world to grade a run in", case.id.as_str()),
            at,
            "give the case a `world` with the files of its workspace and `expect` blocks over what it must produce",
        ));
    }
    let task = json!({
        "format": "casec-evaluator/2",
        "case_id": case.id.as_str(),
        "export": export,
        "suite": EVALUATOR_SUITE,
    });
    let mut task = serde_json::to_string_pretty(&task).unwrap_or_default();
    task.push('\n');
    let mut out = vec![
        ("evaluate.py".to_string(), EVALUATE_PY.as_bytes().to_vec()),
        ("task.json".to_string(), task.into_bytes()),
    ];
    out.extend(files.iter().map(|(path, text)| {
        (
            format!("{EVALUATOR_SUITE}/{path}"),
            text.as_bytes().to_vec(),
        )
    }));
    out.extend(
        included
            .iter()
            .map(|(path, bytes)| (format!("{EVALUATOR_SUITE}/{path}"), bytes.clone())),
    );
    Ok(out)
}

/// The files the suite's worlds include (`content from "seed/sales.xlsx"`), by their
/// path in the suite folder: the copy of the suite an evaluator loads needs them.
fn included_files(suite: &Suite) -> BTreeMap<String, Vec<u8>> {
    suite
        .cases
        .iter()
        .filter_map(|case| case.sandbox.as_ref())
        .flat_map(|sandbox| &sandbox.world.records)
        .flat_map(|record| &record.fields)
        .filter_map(|(_, value)| match value {
            FieldValue::Bytes(bytes) => {
                let from = bytes.from.as_ref()?;
                Some((from.as_str().to_string(), bytes.data.to_vec()))
            }
            _ => None,
        })
        .collect()
}
