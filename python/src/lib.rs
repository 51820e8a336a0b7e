//! `casec._casec`: the compiler and the reference sandbox in-process, for Python.
//!
//! [`load`] compiles a suite folder (diagnostics with an error raise `CompileError`),
//! and its blinded bundles, which must pass the blinding proof as `casec bundle`
//! requires. A [`Session`] is a live sandbox of one case. It drives casec's own
//! JSON-RPC session (`casec serve`'s, see `casec::runtime::serve`) in-process: the
//! tools list, tool results, follow-up replies and the result record are exactly what
//! `casec serve` answers, from the same code. The session owns an `Arc` of the compiled
//! suite it borrows from ([`self_cell`]), so it lives as long as Python keeps it.
//!
//! A suite's programs (its tools' adapters) run only if it was loaded with the user's
//! consent (`load(path, trust=True)`; `trust_outside=True` for programs and paths
//! outside the suite folder): [`Suite::session`], [`Suite::replay`] and
//! [`Suite::labelled_runs`] raise `TrustError` before anything runs otherwise
//! (docs/security.md). A session waits for its programs with the GIL released, so a
//! slow program never stalls the interpreter's other threads.
//!
//! Values cross the boundary as JSON: Python's `json` module turns arguments into JSON
//! text (refusing what is not JSON, NaN included) and answers back into Python values.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyKeyError, PyOSError, PyPermissionError, PyRuntimeError, PyTypeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use serde_json::{json, Value as Json};

use casec::diag::render::{self, HumanStyle};
use casec::judge::calibrate::{self, Sample};
use casec::judge::{
    prompt, record as judged_record, review_items, verdict, ItemKind, Judgement, Settings,
    VerdictSource,
};
use casec::model::expect::Decided;
use casec::model::shape::{Builtin, ExportFormat, FileContent, Verdict};
use casec::model::{Case, Suite as Model};
use casec::runtime::commands::job::{Job, Outcome};
use casec::runtime::commands::{isolation, Executor, Files, Ran};
use casec::runtime::person::{self, Ending};
use casec::runtime::serve::{Ended, Session as Serving};
use casec::runtime::trust::{refusals, Consent, Trust};
use casec::runtime::Runtime;
use casec::{Compilation, Sources};

create_exception!(
    _casec,
    CompileError,
    PyException,
    "A suite that does not compile. `.diagnostics` holds every diagnostic as a dict \
     (code, severity, message, file, line, column, help, …)."
);

create_exception!(
    _casec,
    TrustError,
    PyPermissionError,
    "A suite's programs (its tools' adapters) that the user has not allowed to run: \
     load the suite with `casec.load(path, trust=True)` if you trust them \
     (docs/security.md). Nothing ran."
);

/// How a Python user consents.
const PYTHON: Consent = Consent {
    suite: "load it with `casec.load(path, trust=True)` (the Inspect task: `-T trust=true`)",
    outside: "load it with `trust=True, trust_outside=True` as well (the Inspect task: `-T trust_outside=true`)",
};

/// A compiled suite: its model and its bundles (case id, JSON text), in case order.
struct Loaded {
    compilation: Compilation,
    /// Case id and bundle JSON, or the diagnostics of the blinding proof.
    bundles: Result<Vec<(String, String)>, Json>,
}

impl Loaded {
    fn model(&self) -> &Model {
        // `load` keeps only compilations with a suite.
        self.compilation
            .suite
            .as_ref()
            .expect("a loaded compilation has a suite")
    }
}

/// Every diagnostic as the dict `casec check --format json` prints for it.
fn diagnostics_json(compilation: &Compilation) -> Json {
    Json::Array(
        compilation
            .diagnostics
            .iter()
            .map(|d| render::json_value(d, &compilation.db))
            .collect(),
    )
}

fn compile_error(py: Python<'_>, summary: String, diagnostics: &Json) -> PyErr {
    let err = CompileError::new_err(summary);
    let set = to_py(py, diagnostics).and_then(|d| err.value(py).setattr("diagnostics", d));
    match set {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// JSON text of a Python value, through Python's `json` (no NaN or infinity: they are
/// not JSON).
fn to_json(py: Python<'_>, value: &Bound<'_, PyAny>, what: &str) -> PyResult<Json> {
    let json = py.import("json")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    let text: String = match json.call_method("dumps", (value,), Some(&kwargs)) {
        Ok(text) => text.extract()?,
        Err(e) => {
            return Err(PyTypeError::new_err(format!(
                "{what} must be JSON-serialisable: {}",
                e.value(py)
            )))
        }
    };
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

/// A JSON value as a Python value (dict, list, str, int, float, bool, None).
fn to_py(py: Python<'_>, value: &Json) -> PyResult<PyObject> {
    let json = py.import("json")?;
    Ok(json.call_method1("loads", (value.to_string(),))?.unbind())
}

/// Compiles the suite folder at (or above) `path` and builds its bundles. `trust` lets
/// the suite's programs run (its sessions, replays and labelled runs start them);
/// `trust_outside`, with `trust`, lets them be or reach outside the suite folder.
#[pyfunction]
#[pyo3(signature = (path, *, trust = false, trust_outside = false))]
fn load(py: Python<'_>, path: PathBuf, trust: bool, trust_outside: bool) -> PyResult<Suite> {
    if trust_outside && !trust {
        return Err(PyValueError::new_err(
            "trust_outside=True widens trust=True: give both to let the suite's programs reach outside its folder",
        ));
    }
    let root = casec::driver::suite_folder(&path);
    let compilation = py.allow_threads(|| Compilation::new(Sources::Folder(&root)));
    let diagnostics = diagnostics_json(&compilation);
    if compilation.has_errors() || compilation.suite.is_none() {
        let errors = compilation.error_count();
        let first = compilation
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(|d| {
                render::human(
                    d,
                    &compilation.db,
                    HumanStyle {
                        color: false,
                        width: 100,
                    },
                )
            })
            .unwrap_or_default();
        return Err(compile_error(
            py,
            format!(
                "{} does not compile: {errors} error(s)\n{first}",
                root.display()
            ),
            &diagnostics,
        ));
    }
    // Bundles that fail the blinding proof do not stop the suite from loading (its
    // sandboxes run all the same); `Suite.bundle` raises their diagnostics.
    let bundles = match compilation.bundles() {
        Some(Ok(set)) => Ok(set
            .bundles
            .into_iter()
            .map(|b| (b.case_id, b.json))
            .collect()),
        Some(Err(found)) => Err(Json::Array(
            found
                .iter()
                .map(|d| render::json_value(d, &compilation.db))
                .collect(),
        )),
        None => Ok(Vec::new()),
    };
    Ok(Suite {
        loaded: Arc::new(Loaded {
            compilation,
            bundles,
        }),
        root,
        diagnostics,
        trust: Trust::from_flags(trust, trust_outside),
    })
}

/// A compiled suite.
#[pyclass(module = "casec._casec", frozen)]
struct Suite {
    loaded: Arc<Loaded>,
    root: PathBuf,
    diagnostics: Json,
    /// What the user allowed the suite's programs when loading it.
    trust: Trust,
}

impl Suite {
    /// Raises `TrustError`, before anything runs, when the programs of `cases` are not
    /// all allowed by the trust the suite was loaded with.
    fn require_trust<'a>(&'a self, cases: impl IntoIterator<Item = &'a Case>) -> PyResult<()> {
        let refused = refusals(self.loaded.model(), cases, self.trust);
        let Some(first) = refused.first() else {
            return Ok(());
        };
        let reasons: Vec<String> = refused.iter().map(|r| r.message()).collect();
        Err(TrustError::new_err(format!(
            "{}: {}",
            reasons.join("; "),
            first.help(&PYTHON)
        )))
    }
}

fn find_case<'a>(model: &'a Model, case_id: &str) -> PyResult<(usize, &'a Case)> {
    model
        .cases
        .iter()
        .enumerate()
        .find(|(_, c)| c.id.as_str() == case_id)
        .ok_or_else(|| PyKeyError::new_err(format!("no case `{case_id}` in this suite")))
}

fn decided_str(decided: Decided) -> &'static str {
    decided.as_str()
}

#[pymethods]
impl Suite {
    /// The suite's name.
    #[getter]
    fn name(&self) -> String {
        self.loaded.model().name.as_str().to_string()
    }

    /// The suite folder.
    #[getter]
    fn root(&self) -> PathBuf {
        self.root.clone()
    }

    /// Whether the suite was loaded with `trust=True`: its programs may run.
    #[getter]
    fn trust(&self) -> bool {
        self.trust != Trust::Untrusted
    }

    /// Raises `TrustError` when the programs of the cases `case_ids` (every case by
    /// default) would not all be allowed to run: what `session`, `replay` and
    /// `labelled_runs` raise, asked before any work (the Inspect task asks it first).
    #[pyo3(signature = (case_ids = None))]
    fn check_trust(&self, case_ids: Option<Vec<String>>) -> PyResult<()> {
        let model = self.loaded.model();
        let cases = match case_ids {
            None => model.cases.iter().collect(),
            Some(ids) => ids
                .iter()
                .map(|id| find_case(model, id).map(|(_, c)| c))
                .collect::<PyResult<Vec<_>>>()?,
        };
        self.require_trust(cases)
    }

    /// Whether the suite was loaded with `trust_outside=True` as well.
    #[getter]
    fn trust_outside(&self) -> bool {
        self.trust == Trust::Outside
    }

    /// The ids of its cases, in the suite's order.
    #[getter]
    fn case_ids(&self) -> Vec<String> {
        let model = self.loaded.model();
        model
            .cases
            .iter()
            .map(|c| c.id.as_str().to_string())
            .collect()
    }

    /// The warnings the suite compiled with, as dicts.
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &self.diagnostics)
    }

    /// The suite's names of the outcomes: `passed`, `failed`, `undecided` → name.
    #[getter]
    fn outcomes(&self, py: Python<'_>) -> PyResult<PyObject> {
        let model = self.loaded.model();
        let names: serde_json::Map<String, Json> =
            [Verdict::Passed, Verdict::Failed, Verdict::Undecided]
                .into_iter()
                .map(|v| (v.as_str().to_string(), json!(model.outcome(v))))
                .collect();
        to_py(py, &Json::Object(names))
    }

    /// The keys of a result record that hold the case id, outcome, check results,
    /// triggered critical failures, those pending review and the replies.
    #[getter]
    fn record_keys(&self, py: Python<'_>) -> PyResult<PyObject> {
        let layout = &self.loaded.model().shape.result;
        let keys: serde_json::Map<String, Json> = [
            ("case_id", Builtin::CaseId),
            ("outcome", Builtin::Outcome),
            ("checks", Builtin::CheckResults),
            ("failed_assertions", Builtin::FailedAssertions),
            ("triggered", Builtin::Triggered),
            ("pending_review", Builtin::PendingReview),
            ("trace", Builtin::Trace),
            ("final_state", Builtin::FinalState),
            ("replies", Builtin::Replies),
            ("model", Builtin::Model),
            ("run_id", Builtin::RunId),
        ]
        .into_iter()
        .map(|(k, b)| (k.to_string(), json!(layout.key_of(b))))
        .collect();
        to_py(py, &Json::Object(keys))
    }

    /// The blinded bundle of a case: what the model under test may see.
    fn bundle(&self, py: Python<'_>, case_id: &str) -> PyResult<PyObject> {
        find_case(self.loaded.model(), case_id)?;
        let bundles = match &self.loaded.bundles {
            Ok(bundles) => bundles,
            Err(diagnostics) => {
                let count = diagnostics.as_array().map_or(0, Vec::len);
                return Err(compile_error(
                    py,
                    format!(
                        "{}: the bundles fail the blinding proof ({count} diagnostic(s)); `casec bundle` shows them",
                        self.root.display()
                    ),
                    diagnostics,
                ));
            }
        };
        let Some((_, text)) = bundles.iter().find(|(id, _)| id == case_id) else {
            return Err(PyKeyError::new_err(format!("no bundle of `{case_id}`")));
        };
        let json = py.import("json")?;
        Ok(json.call_method1("loads", (text.as_str(),))?.unbind())
    }

    /// The case's bundle as a chat prompt (`casec::lower::prompt`): `system` (the
    /// suite's system prompt, or None), `context` (the rest of the bundle but the case
    /// id, the conversation and an opening message the conversation says) and
    /// `conversation` (`role`, `content` turns). Only what the bundle holds, so it
    /// raises as `bundle` does when the bundles fail the blinding proof.
    fn prompt(&self, py: Python<'_>, case_id: &str) -> PyResult<PyObject> {
        self.bundle(py, case_id)?;
        let model = self.loaded.model();
        let (_, case) = find_case(model, case_id)?;
        let prompt = casec::lower::prompt::prompt(model, case);
        let turns: Vec<Json> = prompt
            .conversation
            .iter()
            .map(|(role, content)| json!({ "role": role, "content": content }))
            .collect();
        let value = json!({
            "system": prompt.system,
            "context": Json::Object(prompt.context),
            "conversation": turns,
        });
        to_py(py, &value)
    }

    /// The result record of `trace` (trace events as dicts, as `Session.trace` gives
    /// them) replayed in a fresh sandbox of the case: `casec replay`'s record, from the
    /// same code. A malformed event raises `ValueError` naming its line; a case whose
    /// programs the suite was not trusted to run raises `TrustError`.
    ///
    /// With `workspace` (a folder a real run left: `workspace/outputs/a.csv` is
    /// `/outputs/a.csv`), its files become the run's file store after the trace, so the
    /// checks grade what is on disk (`casec replay --workspace`); a folder that cannot be
    /// read raises `OSError`.
    #[pyo3(signature = (case_id, trace, model = None, run_id = None, workspace = None))]
    fn replay(
        &self,
        py: Python<'_>,
        case_id: &str,
        trace: &Bound<'_, PyAny>,
        model: Option<&str>,
        run_id: Option<&str>,
        workspace: Option<PathBuf>,
    ) -> PyResult<PyObject> {
        let suite = self.loaded.model();
        let (_, case) = find_case(suite, case_id)?;
        let Some(sandbox) = case.sandbox.as_ref() else {
            return Err(PyValueError::new_err(format!(
                "case `{case_id}` has no world: no sandbox can replay it"
            )));
        };
        self.require_trust([case])?;
        let events = match to_json(py, trace, "the trace")? {
            Json::Array(events) => events,
            _ => return Err(PyTypeError::new_err("the trace must be a list of events")),
        };
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        let mut db = casec::source::SourceDb::new();
        let file = db.add("trace", text.as_str(), casec::source::Origin::User);
        let events = casec::runtime::trace::parse(file, &text).map_err(|found| {
            let first = found
                .first()
                .map(|d| {
                    render::human(
                        d,
                        &db,
                        HumanStyle {
                            color: false,
                            width: 100,
                        },
                    )
                })
                .unwrap_or_default();
            PyValueError::new_err(format!("the trace does not parse:\n{first}"))
        })?;
        let trust = self.trust;
        let record = py.allow_threads(|| {
            let mut runtime = Runtime::new(suite, case, sandbox).trusting(trust);
            runtime.label = run_label(model, run_id);
            let mut runtime = casec::runtime::replay::play(runtime, &events);
            if let Some(root) = &workspace {
                casec::runtime::workspace::overlay(&mut runtime, root)
                    .map_err(|e| format!("cannot grade the workspace: {e}"))?;
            }
            Ok::<_, String>(casec::runtime::replay::result_record(
                suite,
                &runtime,
                &casec::runtime::replay::findings(&runtime),
            ))
        });
        to_py(py, &record.map_err(PyOSError::new_err)?)
    }

    /// What a harness needs to know of a case beside its bundle: id, title, category,
    /// tags, its file, whether it has a world, how many scripted follow-ups and whether
    /// an unscripted reply is written; and every check and critical failure with its
    /// text and how it is decided (`machine`, `review`, `both`, `unclassified`).
    fn case(&self, py: Python<'_>, case_id: &str) -> PyResult<PyObject> {
        let model = self.loaded.model();
        let (_, case) = find_case(model, case_id)?;
        let db = &self.loaded.compilation.db;
        let decided = |id: &str, inherited: bool| {
            case.sandbox
                .as_ref()
                .map(|s| decided_str(s.decided(id, inherited)))
        };
        let checks: Vec<Json> = case
            .checks
            .iter()
            .map(|c| {
                json!({
                    "id": c.id.as_str(),
                    "dimension": c.dimension.as_str(),
                    "text": c.requirement.as_str(),
                    "evidence": c.evidence.as_ref().map(|e| e.as_str()),
                    "decided": decided(c.id.as_str(), c.inherited),
                })
            })
            .collect();
        let criticals: Vec<Json> = model
            .criticals(case)
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "text": c.text.as_str(),
                    "global": c.global,
                    "decided": decided(&c.id, c.global),
                })
            })
            .collect();
        let value = json!({
            "id": case.id.as_str(),
            "title": case.title.as_str(),
            "category": case.category.as_ref().map(|c| c.as_str()),
            "tags": case.tags.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
            "file": db.file(case.span.file).name,
            "has_world": case.sandbox.is_some(),
            "followups": case.followups.len(),
            "unscripted_reply": case.unscripted_reply.is_some(),
            "runs_commands": model.runs_commands(case),
            "has_person": person::has_person(model, case),
            "checks": checks,
            "critical_failures": criticals,
        });
        to_py(py, &value)
    }

    /// The files a case's world seeds in its workspace: `{path: bytes}` (empty for a
    /// case without a world or files).
    fn workspace_files<'py>(&self, py: Python<'py>, case_id: &str) -> PyResult<Bound<'py, PyDict>> {
        let model = self.loaded.model();
        let (_, case) = find_case(model, case_id)?;
        let files = PyDict::new(py);
        if let Some(sandbox) = case.sandbox.as_ref() {
            for (path, bytes) in casec::runtime::commands::seeded_files(model, sandbox) {
                files.set_item(path, PyBytes::new(py, &bytes))?;
            }
        }
        Ok(files)
    }

    /// The Docker Compose file (YAML) for Inspect's `docker` sandbox when the suite's
    /// tools run workspace commands, else None.
    fn compose_yaml(&self) -> Option<String> {
        casec::lower::compose::compose_yaml(self.loaded.model())
    }

    /// A fresh sandbox session of a case (which must have a world). `model` and
    /// `run_id` name who makes the run, for the result record's `model` and `run_id`
    /// built-ins (empty when not given). A case whose programs the suite was not
    /// trusted to run raises `TrustError`.
    #[pyo3(signature = (case_id, model = None, run_id = None))]
    fn session(
        &self,
        case_id: &str,
        model: Option<&str>,
        run_id: Option<&str>,
    ) -> PyResult<Session> {
        let (index, case) = find_case(self.loaded.model(), case_id)?;
        if case.sandbox.is_none() {
            return Err(PyValueError::new_err(format!(
                "case `{case_id}` has no world: no sandbox can run it"
            )));
        }
        self.require_trust([case])?;
        let trust = self.trust;
        let live = Live::try_new(self.loaded.clone(), |loaded| {
            let case = &loaded.model().cases[index];
            match case.sandbox.as_ref() {
                Some(sandbox) => {
                    let mut serving = Serving::new(loaded.model(), case, sandbox).trusting(trust);
                    serving.label(run_label(model, run_id));
                    Ok(serving)
                }
                None => Err(()),
            }
        })
        .map_err(|()| PyValueError::new_err(format!("case `{case_id}` has no world")))?;
        Ok(Session {
            live: Mutex::new(live),
            case_id: case_id.to_string(),
            followups: case.followups.len(),
        })
    }

    /// The judge's requests for the review items of `record` (a result record of this
    /// suite): one per item, each a dict with `item`, `kind` (`check` or
    /// `critical_failure`), `evidence_digest`, `key` (the cache key), `missing` (why the
    /// item cannot be judged, or None) and `body` (the chat-completions request: its
    /// `messages`, temperature 0, the seed and the verdict's `response_format`).
    #[pyo3(signature = (record, model = "judge", seed = 0))]
    fn judge_requests(
        &self,
        py: Python<'_>,
        record: &Bound<'_, PyAny>,
        model: &str,
        seed: u64,
    ) -> PyResult<PyObject> {
        let suite = self.loaded.model();
        let record = to_json(py, record, "the record")?;
        let case = record_case(suite, &record)?;
        let settings = Settings {
            model: model.to_string(),
            seed,
        };
        let requests: Vec<Json> = review_items(suite, case, &record)
            .iter()
            .map(|item| {
                let r = prompt::request(suite, case, item, &record, &settings);
                json!({
                    "item": item.id,
                    "kind": item.kind.as_str(),
                    "evidence_digest": r.evidence_digest,
                    "key": r.key,
                    "missing": r.missing,
                    "body": r.body,
                })
            })
            .collect();
        to_py(py, &Json::Array(requests))
    }

    /// `record` with `judgements` written in and its outcome recomputed: each judgement a
    /// dict with `item`, `kind`, `met` (True, False or None: no verdict), `reason`,
    /// `evidence_digest`, and optionally `source` (`judge`, `cache` or `human`; `judge`
    /// by default) and `author` (for `human`). The judged record of `casec judge`.
    #[pyo3(signature = (record, judgements, model = "judge", seed = 0))]
    fn judged(
        &self,
        py: Python<'_>,
        record: &Bound<'_, PyAny>,
        judgements: &Bound<'_, PyAny>,
        model: &str,
        seed: u64,
    ) -> PyResult<PyObject> {
        let suite = self.loaded.model();
        let record = to_json(py, record, "the record")?;
        record_case(suite, &record)?;
        let given = to_json(py, judgements, "the judgements")?;
        let judgements = given
            .as_array()
            .ok_or_else(|| PyTypeError::new_err("the judgements must be a list of dicts"))?
            .iter()
            .map(judgement_of)
            .collect::<PyResult<Vec<_>>>()?;
        let settings = Settings {
            model: model.to_string(),
            seed,
        };
        to_py(
            py,
            &judged_record::judged(suite, &record, &judgements, &settings),
        )
    }

    /// The reward file an exported evaluator writes for a result record (`replay`'s):
    /// the keys the `evaluator` of the folder export `export` declares (`reward KEY
    /// VALUE`), computed by the same code as `casec`'s. An unknown export, or a record
    /// that is not one of this suite's, raises `ValueError`.
    fn reward(
        &self,
        py: Python<'_>,
        record: &Bound<'_, PyAny>,
        export: &str,
    ) -> PyResult<PyObject> {
        let suite = self.loaded.model();
        let rewards = suite
            .shape
            .exports
            .iter()
            .filter(|e| e.name.as_str() == export)
            .find_map(|e| match &e.format {
                ExportFormat::Folders(files) => files.iter().find_map(|f| match &f.content {
                    FileContent::Evaluator { rewards } => Some(rewards),
                    _ => None,
                }),
                ExportFormat::JsonLines(_) | ExportFormat::Turns(_) => None,
            })
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "the suite's shape has no folder export `{export}` with an evaluator"
                ))
            })?;
        let text = to_json(py, record, "the record")?.to_string();
        let mut db = casec::source::SourceDb::new();
        let file = db.add("record", text.as_str(), casec::source::Origin::User);
        let read = casec::runtime::report::read_records(file, &text, suite).map_err(|found| {
            let why = found.first().map(|d| d.message.clone()).unwrap_or_default();
            PyValueError::new_err(format!("not a result record of this suite: {why}"))
        })?;
        let [record] = read.as_slice() else {
            return Err(PyValueError::new_err("give one result record"));
        };
        let (_, case) = find_case(suite, &record.case_id)?;
        to_py(
            py,
            &casec::runtime::reward::reward(suite, case, record, rewards),
        )
    }

    /// The suite's labelled runs, replayed: each case's golden trace (every review item
    /// met) and its labelled counter-examples (the items their `violates` lines name).
    /// Each a dict with `case_id`, `run` (`golden` or the label), `record` and `labels`
    /// (`item`, `kind`, `expected_met`, `group`), for calibrating a judge. A suite
    /// whose programs it was not trusted to run raises `TrustError`.
    fn labelled_runs(&self, py: Python<'_>) -> PyResult<PyObject> {
        let suite = self.loaded.model();
        self.require_trust(&suite.cases)?;
        let names = &self.loaded.compilation.db;
        let trust = self.trust;
        let (db, diagnostics, runs) = py.allow_threads(|| {
            let case_file = |case: &Case| PathBuf::from(&names.file(case.span.file).name);
            let mut db = casec::source::SourceDb::new();
            let mut diagnostics = Vec::new();
            let runs =
                calibrate::labelled_runs(suite, &case_file, trust, &mut db, &mut diagnostics);
            (db, diagnostics, runs)
        });
        if !diagnostics.is_empty() {
            let found = Json::Array(
                diagnostics
                    .iter()
                    .map(|d| serde_json::from_str(&render::json_line(d, &db)).unwrap_or(Json::Null))
                    .collect(),
            );
            return Err(compile_error(
                py,
                "a labelled trace does not parse".into(),
                &found,
            ));
        }
        let out: Vec<Json> = runs
            .iter()
            .map(|r| {
                let labels: Vec<Json> =
                    calibrate::labelled(suite, r.case, &r.record, r.violates.as_deref())
                        .into_iter()
                        .map(|(item, expected)| {
                            json!({
                                "item": item.id,
                                "kind": item.kind.as_str(),
                                "expected_met": expected,
                                "group": item.dimension.unwrap_or("critical"),
                            })
                        })
                        .collect();
                json!({ "case_id": r.case.id.as_str(), "run": r.name, "record": r.record, "labels": labels })
            })
            .collect();
        to_py(py, &Json::Array(out))
    }

    fn __repr__(&self) -> String {
        let model = self.loaded.model();
        format!(
            "<casec.Suite {:?}: {} case(s) at {}>",
            model.name.as_str(),
            model.cases.len(),
            self.root.display()
        )
    }
}

type ServingSession<'a> = Serving<'a>;

self_cell::self_cell!(
    /// A serve session and the compiled suite it borrows.
    struct Live {
        owner: Arc<Loaded>,
        #[not_covariant]
        dependent: ServingSession,
    }
);

/// A live sandbox of one case. Any thread may use it, one call at a time (a lock
/// guards it: its adapter programs' pipes are not shared). Every method takes the lock
/// with the GIL released, so a call that waits for a program (up to its 10 s timeout)
/// stalls neither the interpreter's other threads nor a thread waiting for the lock.
#[pyclass(module = "casec._casec", frozen)]
struct Session {
    live: Mutex<Live>,
    case_id: String,
    followups: usize,
}

impl Session {
    /// Runs `f` on the live session, holding its lock, with the GIL released.
    fn with_live<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Live) -> T + Send,
    ) -> PyResult<T> {
        py.allow_threads(|| match self.live.lock() {
            Ok(mut live) => Ok(f(&mut live)),
            Err(_) => Err(()),
        })
        .map_err(|()| PyRuntimeError::new_err("the session failed in an earlier call"))
    }

    /// Runs one event on the live session (a typed call of the runtime's session, as
    /// `casec serve` makes them): its answer, or, once the session has ended, an error.
    fn event<T: Send>(
        &self,
        py: Python<'_>,
        event: impl FnOnce(&mut Serving) -> Result<T, Ended> + Send,
    ) -> PyResult<T> {
        self.with_live(py, |live| {
            live.with_dependent_mut(|_, session| event(session))
        })?
        .map_err(|Ended| {
            PyRuntimeError::new_err(format!("the session of {} has ended", self.case_id))
        })
    }

    fn ended(&self, py: Python<'_>) -> PyResult<bool> {
        self.with_live(py, |live| live.with_dependent(|_, s| s.ended))
    }

    /// How many scripted follow-ups were asked so far.
    fn asked(&self, py: Python<'_>) -> PyResult<usize> {
        self.with_live(py, |live| {
            live.with_dependent(|_, s| {
                s.events
                    .iter()
                    .filter(|e| {
                        matches!(
                            e,
                            casec::runtime::trace::TraceEvent::Asked {
                                followup: Some(_),
                                ..
                            }
                        )
                    })
                    .count()
            })
        })
    }
}

#[pymethods]
impl Session {
    /// The case's id.
    #[getter]
    fn case_id(&self) -> String {
        self.case_id.clone()
    }

    /// The case's tools as MCP `tools/list` gives them: name, description, inputSchema.
    #[getter]
    fn tools(&self, py: Python<'_>) -> PyResult<PyObject> {
        let tools = self.with_live(py, |live| live.with_dependent(|_, s| s.listed_tools()))?;
        to_py(py, &Json::Array(tools))
    }

    /// Runs the session's workspace commands with `executor` (see the Python package's
    /// Inspect harness): `executor(job, files, folders) -> (outcome, files)`.
    fn set_executor(&self, py: Python<'_>, executor: Py<PyAny>) -> PyResult<()> {
        self.with_live(py, move |live| {
            live.with_dependent_mut(|_, session| {
                session.set_executor(Box::new(PyExecutor(executor)))
            })
        })
    }

    /// Calls a tool with `arguments` (a dict, JSON-serialisable); the tool's result
    /// (`status` `ok`, `not_found` or `error`). A tool the case does not offer is
    /// answered by the sandbox (`UNKNOWN_TOOL`), as it would be for a model.
    #[pyo3(signature = (name, arguments = None))]
    fn call(
        &self,
        py: Python<'_>,
        name: &str,
        arguments: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObject> {
        let arguments = match arguments {
            None => json!({}),
            Some(a) if a.is_none() => json!({}),
            Some(a) if a.downcast::<PyDict>().is_ok() => to_json(py, a, "the arguments")?,
            Some(a) => {
                return Err(PyTypeError::new_err(format!(
                    "the arguments must be a dict of argument name to value, not {}",
                    a.get_type().name()?
                )))
            }
        };
        let result = self.event(py, |s| s.call_tool(name.to_string(), arguments))?;
        to_py(py, &result)
    }

    /// The assistant asks the user a clarifying question; the user's reply. With
    /// `followup` (from 1), the question is that scripted follow-up; without, it is the
    /// next scripted follow-up not asked yet, or, once all are asked (or the case has
    /// none), an unscripted question answered with the case's unscripted reply.
    #[pyo3(signature = (question, followup = None))]
    fn ask(&self, py: Python<'_>, question: &str, followup: Option<usize>) -> PyResult<String> {
        let followup = match followup {
            Some(0) => {
                return Err(PyValueError::new_err(
                    "follow-ups are numbered from 1".to_string(),
                ))
            }
            Some(n) if n > self.followups => {
                return Err(PyValueError::new_err(format!(
                    "case {} has {} scripted follow-up(s), not {n}",
                    self.case_id, self.followups
                )))
            }
            Some(n) => Some(n),
            None => Some(self.asked(py)? + 1).filter(|n| *n <= self.followups),
        };
        self.event(py, |s| s.ask(question.to_string(), followup))
    }

    /// The requests that ask a judge whether `question` is one of the case's scripted
    /// follow-ups not asked yet, in order: each a dict with `followup` (its number,
    /// from 1) and `body` (a chat-completions request whose verdict's `met` says it
    /// is). A harness asks them in turn and, at the first met, calls `ask(question,
    /// followup=n)`; when none is met, `question(question)`.
    #[pyo3(signature = (question, model = "judge", seed = 0))]
    fn followup_requests(
        &self,
        py: Python<'_>,
        question: &str,
        model: &str,
        seed: u64,
    ) -> PyResult<PyObject> {
        let settings = Settings {
            model: model.to_string(),
            seed,
        };
        let asked = self.asked(py)?;
        let case_id = &self.case_id;
        let requests: Vec<Json> = self.with_live(py, |live| {
            live.with_dependent(|loaded, _| {
                let suite = loaded.model();
                let Some(case) = suite.cases.iter().find(|c| c.id.as_str() == case_id) else {
                    return Vec::new();
                };
                (asked + 1..=case.followups.len())
                    .filter_map(|n| {
                        prompt::followup_request(case, n, question, &settings)
                            .map(|r| json!({ "followup": n, "body": r.body }))
                    })
                    .collect()
            })
        })?;
        to_py(py, &Json::Array(requests))
    }

    /// An unscripted question: answered with the case's unscripted reply.
    fn question(&self, py: Python<'_>, question: &str) -> PyResult<String> {
        self.event(py, |s| s.ask(question.to_string(), None))
    }

    /// Records the assistant's reply to the user.
    fn reply(&self, py: Python<'_>, text: &str) -> PyResult<()> {
        self.event(py, |s| s.reply(text.to_string()))
    }

    /// Records a user turn, with what the person privately thinks (a simulated
    /// person's: never shown to the assistant).
    #[pyo3(signature = (text, thought = None))]
    fn user(&self, py: Python<'_>, text: &str, thought: Option<&str>) -> PyResult<()> {
        let thought = thought.map(str::to_string);
        self.event(py, |s| s.user(text.to_string(), thought))
    }

    /// The request that asks a model to play the case's simulated person's next turn
    /// (a chat-completions body, as `Suite.judge_requests` gives them): built from the
    /// person's fields and the conversation so far, and nothing else.
    #[pyo3(signature = (model = "person", seed = 0))]
    fn person_request(&self, py: Python<'_>, model: &str, seed: u64) -> PyResult<PyObject> {
        let body = self.with_live(py, |live| {
            live.with_dependent(|_, s| s.person_request(model, seed))
        })?;
        to_py(py, &body)
    }

    /// Records how the conversation ended: `reason` (goal_met, refused, transferred,
    /// out_of_scope, gave_up, turn_limit), the person's `satisfaction` (1 to 5) and
    /// `verdict`; ValueError for anything else.
    #[pyo3(signature = (reason, satisfaction = None, verdict = None))]
    fn end_conversation(
        &self,
        py: Python<'_>,
        reason: &str,
        satisfaction: Option<u8>,
        verdict: Option<&str>,
    ) -> PyResult<()> {
        let given = json!({ "reason": reason, "satisfaction": satisfaction, "verdict": verdict });
        let ending = match &given {
            Json::Object(map) => Ending::from_json(map).map_err(PyValueError::new_err)?,
            _ => return Err(PyValueError::new_err("an ending")),
        };
        self.event(py, |s| s.end_conversation(ending))
    }

    /// The result record of the run so far, without ending the session.
    fn result_record(&self, py: Python<'_>) -> PyResult<PyObject> {
        let record = self.with_live(py, |live| live.with_dependent(|_, s| s.result_record()))?;
        to_py(py, &record)
    }

    /// Ends the session; its result record.
    fn end(&self, py: Python<'_>) -> PyResult<PyObject> {
        let record = self.event(py, |s| s.end())?;
        to_py(py, &record)
    }

    /// Whether the session has ended.
    #[getter(ended)]
    fn is_ended(&self, py: Python<'_>) -> PyResult<bool> {
        self.ended(py)
    }

    /// The events so far, as lines of a trace file (`casec replay` reproduces the
    /// result record from them).
    #[getter]
    fn trace(&self, py: Python<'_>) -> PyResult<PyObject> {
        let events = self.with_live(py, |live| {
            live.with_dependent(|_, s| Json::Array(s.events.iter().map(|e| e.to_json()).collect()))
        })?;
        to_py(py, &events)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<casec.Session {}{}>",
            self.case_id,
            if self.ended(py).unwrap_or(false) {
                " (ended)"
            } else {
                ""
            }
        )
    }
}

/// Who makes a run, as the harness names it.
fn run_label(model: Option<&str>, run_id: Option<&str>) -> casec::lower::layout::RunLabel {
    casec::lower::layout::RunLabel {
        model: model.unwrap_or_default().to_string(),
        run_id: run_id.unwrap_or_default().to_string(),
    }
}

/// The case a result record names.
fn record_case<'a>(suite: &'a Model, record: &Json) -> PyResult<&'a Case> {
    let key = casec::judge::key(suite, Builtin::CaseId);
    let id = record
        .get(key)
        .and_then(Json::as_str)
        .ok_or_else(|| PyValueError::new_err(format!("the record has no string `{key}`")))?;
    Ok(find_case(suite, id)?.1)
}

fn item_kind(text: &str) -> PyResult<ItemKind> {
    ItemKind::named(text).ok_or_else(|| {
        PyValueError::new_err(format!(
            "`kind` is `check` or `critical_failure`, not `{text}`"
        ))
    })
}

/// A judgement given from Python.
fn judgement_of(value: &Json) -> PyResult<Judgement> {
    let text = |key: &str| -> PyResult<String> {
        value
            .get(key)
            .and_then(Json::as_str)
            .map(str::to_string)
            .ok_or_else(|| PyValueError::new_err(format!("a judgement needs a string `{key}`")))
    };
    let met = match value.get("met") {
        None | Some(Json::Null) => None,
        Some(Json::Bool(b)) => Some(*b),
        Some(_) => return Err(PyValueError::new_err("`met` is True, False or None")),
    };
    let source = match (met, value.get("source").and_then(Json::as_str)) {
        (None, _) => None,
        (Some(_), None | Some("judge")) => Some(VerdictSource::Judge),
        (Some(_), Some("cache")) => Some(VerdictSource::Cache),
        (Some(_), Some("human")) => Some(VerdictSource::Human {
            author: text("author")?,
        }),
        (Some(_), Some(other)) => {
            return Err(PyValueError::new_err(format!(
                "`source` is `judge`, `cache` or `human`, not `{other}`"
            )))
        }
    };
    Ok(Judgement {
        kind: item_kind(&text("kind")?)?,
        item: text("item")?,
        met,
        reason: text("reason")?,
        source,
        evidence_digest: text("evidence_digest")?,
    })
}

/// The verdict in a judge's message text: a dict with `met` and `reason`. Anything but
/// one clear verdict raises ValueError with what is wrong (fail closed: the item stays
/// for review).
#[pyfunction]
fn parse_verdict(py: Python<'_>, content: &str) -> PyResult<PyObject> {
    let found = verdict::from_content(content).map_err(PyValueError::new_err)?;
    to_py(py, &json!({ "met": found.met, "reason": found.reason }))
}

/// The calibration report (as `casec calibrate --format json` prints it, without the
/// settings) of `samples`: dicts with `case`, `run`, `item`, `kind`, `group`,
/// `expected_met`, `met` (True, False or None) and `reason`.
#[pyfunction]
fn agreement(py: Python<'_>, samples: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let given = to_json(py, samples, "the samples")?;
    let samples = given
        .as_array()
        .ok_or_else(|| PyTypeError::new_err("the samples must be a list of dicts"))?
        .iter()
        .map(|s| {
            let text = |key: &str| {
                s.get(key)
                    .and_then(Json::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!("a sample needs a string `{key}`"))
                    })
            };
            let mut judgement = s.clone();
            if let Json::Object(map) = &mut judgement {
                map.entry("evidence_digest").or_insert(json!(""));
            }
            Ok(Sample {
                case: text("case")?,
                run: text("run")?,
                item: text("item")?,
                group: text("group")?,
                kind: item_kind(&text("kind")?)?,
                expected: s
                    .get("expected_met")
                    .and_then(Json::as_bool)
                    .ok_or_else(|| {
                        PyValueError::new_err("a sample needs a boolean `expected_met`")
                    })?,
                judgement: judgement_of(&judgement)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    to_py(py, &calibrate::report(&samples))
}

/// The arguments of the `bwrap` command that runs a workspace job with `root` as the
/// file system's root, `program` (the casec executable) inside: how the harness
/// isolates a command in Inspect's `local` sandbox (see `casec::runtime::commands`).
#[pyfunction]
fn bubblewrap_arguments(root: PathBuf, program: PathBuf) -> Vec<String> {
    isolation::bubblewrap_arguments(&root, &program)
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Makes the folder `root` hold exactly `files` (`{path: bytes}`), never writing
/// through a link a command left: casec's own exchange, for a harness whose sandbox is
/// a folder of this machine (Inspect's `local`). OSError when it cannot.
#[pyfunction]
fn flush_workspace(
    root: PathBuf,
    files: std::collections::BTreeMap<String, Vec<u8>>,
) -> PyResult<()> {
    casec::runtime::commands::flush(&root, &files).map_err(PyOSError::new_err)
}

/// The regular files under the folder `root` by store path (`/outputs/a.csv`), links
/// not followed, system folders skipped, as casec reads a workspace. OSError when it
/// cannot.
#[pyfunction]
fn read_workspace(py: Python<'_>, root: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let files = casec::runtime::workspace::files_under(&root)
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    for (path, bytes) in files {
        out.set_item(path, PyBytes::new(py, &bytes))?;
    }
    Ok(out)
}

/// The casec executable a workspace job runs (`CASEC_JOB_PROGRAM`, or `casec` on
/// `PATH`); `OSError` says how to provide one.
#[pyfunction]
fn job_program() -> PyResult<String> {
    isolation::job_program()
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(PyOSError::new_err)
}

/// The simulated person's turn in a model's answer (`message`, `thought`, `end`: None
/// or `{reason, satisfaction, verdict}`), read as casec reads it, failing closed:
/// ValueError saying what is wrong otherwise.
#[pyfunction]
fn parse_person_turn(py: Python<'_>, content: &str) -> PyResult<PyObject> {
    let turn = person::parse_turn(content).map_err(PyValueError::new_err)?;
    let value = json!({
        "message": turn.message,
        "thought": turn.thought,
        "end": turn.end.as_ref().map(Ending::to_json),
    });
    to_py(py, &value)
}

/// A session's commands run by a Python callable (the Inspect harness's sandbox):
/// `executor(job, files, folders)` gets the job (a dict: `command`, `directory`,
/// `limits`, `web`), the store's files (`{path: bytes}`) and the workspace's top
/// folders, and returns `(outcome, files)`: the job program's outcome (a dict) and the
/// workspace's files after it. It is called with the GIL held, from the thread that
/// made the tool call.
struct PyExecutor(Py<PyAny>);

impl Executor for PyExecutor {
    fn run(&mut self, job: &Job, files: &Files, folders: &[String]) -> Result<Ran, String> {
        Python::with_gil(|py| -> PyResult<Ran> {
            let job =
                serde_json::to_value(job).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let given = PyDict::new(py);
            for (path, bytes) in files {
                given.set_item(path, PyBytes::new(py, bytes))?;
            }
            let answer = self
                .0
                .call1(py, (to_py(py, &job)?, given, folders.to_vec()))?;
            let (outcome, after): (Bound<'_, PyAny>, Bound<'_, PyDict>) = answer.extract(py)?;
            let outcome = to_json(py, &outcome, "the outcome")?;
            let outcome: Outcome = serde_json::from_value(outcome).map_err(|e| {
                PyValueError::new_err(format!("the outcome is not a job's outcome: {e}"))
            })?;
            let mut left = Files::new();
            for (path, bytes) in after.iter() {
                left.insert(path.extract()?, bytes.extract::<Vec<u8>>()?);
            }
            Ok(Ran {
                outcome,
                files: Ok(left),
            })
        })
        .map_err(|e| format!("the harness's sandbox failed: {e}"))
    }
}

#[pymodule]
fn _casec(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(bubblewrap_arguments, m)?)?;
    m.add_function(wrap_pyfunction!(job_program, m)?)?;
    m.add_function(wrap_pyfunction!(flush_workspace, m)?)?;
    m.add_function(wrap_pyfunction!(read_workspace, m)?)?;
    m.add_function(wrap_pyfunction!(parse_person_turn, m)?)?;
    m.add_function(wrap_pyfunction!(parse_verdict, m)?)?;
    m.add_function(wrap_pyfunction!(agreement, m)?)?;
    m.add_class::<Suite>()?;
    m.add_class::<Session>()?;
    m.add("CompileError", m.py().get_type::<CompileError>())?;
    m.add("TrustError", m.py().get_type::<TrustError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
