//! `casec judge RESULT… --suite DIR --endpoint URL --model NAME -o DIR` (judged result
//! records) and `casec calibrate SUITE --endpoint URL --model NAME` (the judge against
//! the suite's labelled runs): the library's judge over an OpenAI-compatible endpoint.
//!
//! The API key is read from an environment variable (`--api-key-env`, default
//! `OPENAI_API_KEY`), never from the command line. Requests go out `--jobs` at a time;
//! results come back in input order, so the outputs do not depend on the threads.

mod progress;

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use crate::diag::{codes, Diagnostic};
use crate::judge::cache::Cache;
use crate::judge::calibrate::{self, Sample};
use crate::judge::endpoint::OpenAi;
use crate::judge::overrides::{self, Overrides};
use crate::judge::record::{judged, unjudged};
use crate::judge::{review_items, Item, Judge, Judgement, Settings, Tally};
use crate::load;
use crate::model::{Case, Suite};
use crate::parallel;
use crate::runtime::report::read_record_values;
use crate::runtime::trust::Trust;
use crate::source::{SourceDb, Span};

use super::{
    clean_suite, output, read_given, write_folder_atomically, DiagnosticOptions, Format, Reporter,
    EXIT_ERRORS, EXIT_OK, EXIT_USAGE,
};

/// How to reach the judge, shared by both commands.
pub struct JudgeArgs<'a> {
    pub endpoint: &'a str,
    pub model: &'a str,
    /// The environment variable holding the API key (unset: no key is sent).
    pub api_key_env: &'a str,
    pub cache: Option<&'a Path>,
    pub seed: u64,
    pub jobs: usize,
    pub timeout: Duration,
}

/// The endpoint and the cache, or the diagnostic that stops the run (`casec serve`
/// reaches its person model with the judge's settings too).
pub(crate) fn connect(
    args: &JudgeArgs,
    whose: &str,
) -> Result<(OpenAi, Option<Cache>), Diagnostic> {
    let key = std::env::var(args.api_key_env)
        .ok()
        .filter(|k| !k.is_empty());
    let endpoint = OpenAi::new(args.endpoint, key, args.timeout);
    let cache = match args.cache {
        None => None,
        Some(dir) => Some(Cache::open(dir).map_err(|e| {
            Diagnostic::new(codes::IO, format!("cannot open the {whose} cache: {e}"))
                .at_path(load::display(dir))
                .help(format!("give a folder of your own to keep the {whose}'s answers in (created, readable by you only, if absent; its parent must exist)"))
        })?),
    };
    Ok((endpoint, cache))
}

/// The endpoint and cache of the arguments, once the inputs read without errors
/// (`diagnostics`); else the exit code: a usage error when the cache cannot be opened
/// (its diagnostic added), an error when an input had one.
fn connect_after(
    args: &JudgeArgs,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(OpenAi, Option<Cache>), u8> {
    let found = connect(args, "judge").map_err(|d| {
        diagnostics.push(d);
        EXIT_USAGE
    })?;
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(EXIT_ERRORS);
    }
    Ok(found)
}

/// The judge the arguments describe, over a connection and people's verdicts.
fn judge_of<'a>(
    args: &JudgeArgs,
    endpoint: &'a OpenAi,
    cache: Option<&'a Cache>,
    overrides: &'a Overrides,
) -> Judge<'a> {
    Judge {
        settings: Settings {
            model: args.model.to_string(),
            seed: args.seed,
        },
        endpoint,
        cache,
        overrides,
    }
}

/// One item to judge: which record it belongs to.
struct Work<'a> {
    record: usize,
    case: &'a Case,
    item: Item<'a>,
}

/// Judges every item of `work`, `jobs` at a time; judgements in the order of `work`.
/// A progress bar counts the items done while standard error is a terminal
/// ([`progress`]), `doing` what.
fn judge_all(
    judge: &Judge,
    suite: &Suite,
    records: &[&Json],
    work: Vec<Work>,
    jobs: usize,
    doing: &str,
    options: DiagnosticOptions,
) -> (Vec<Judgement>, Tally) {
    let bar = progress::bar(work.len(), doing, options);
    let parts = parallel::split(work, jobs.max(1));
    let done = parallel::each_part(parts, |part| {
        part.into_iter()
            .map(|w| {
                let judged = judge.judge(suite, w.case, &w.item, records[w.record]);
                bar.inc(1);
                judged
            })
            .collect::<Vec<_>>()
    });
    bar.finish_and_clear();
    let mut tally = Tally::default();
    let judgements = done
        .into_iter()
        .flatten()
        .map(|(j, t)| {
            tally.add(t);
            j
        })
        .collect();
    (judgements, tally)
}

/// The files `casec judge` is given: what a record says, and where it was read.
struct Input {
    records: Vec<(Span, Json)>,
}

/// What `casec judge` reads beside the records: people's verdicts, and a calibration
/// report that gates the judge's (with the κ an item needs).
pub struct JudgeInputs<'a> {
    pub overrides: Option<&'a Path>,
    pub calibration: Option<(&'a Path, f64)>,
}

/// `casec judge RESULT… --suite DIR … -o DIR`.
pub fn judge_results(
    results: &[PathBuf],
    suite: &Path,
    inputs_given: JudgeInputs,
    output: &Path,
    args: &JudgeArgs,
    reporter: &Reporter,
) -> u8 {
    let (mut db, model, mut diagnostics) = match clean_suite(suite, reporter) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let db = &mut db;
    let names = match output_names(results) {
        Ok(names) => names,
        Err(d) => return reporter.report(db, &[d], 0),
    };
    // Before anything is asked: judging costs requests, and its records are written last.
    if let Err(d) = output_is_free(output) {
        return reporter.report(db, &[d], 0);
    }
    let people = read_overrides(inputs_given.overrides, &model, db, &mut diagnostics);
    let gate = inputs_given
        .calibration
        .and_then(|(path, kappa)| read_calibration(path, kappa, args.model, db, &mut diagnostics));
    let inputs: Vec<Input> = results
        .iter()
        .filter_map(|path| read_input(path, &model, db, &mut diagnostics))
        .collect();
    let (endpoint, cache) = match connect_after(args, &mut diagnostics) {
        Ok(found) => found,
        Err(code) => return reporter.report_compiled(db, &diagnostics).max(code),
    };
    let judge = judge_of(args, &endpoint, cache.as_ref(), &people);
    let all: Vec<(Span, &Json)> = inputs
        .iter()
        .flat_map(|i| i.records.iter().map(|(s, j)| (*s, j)))
        .collect();
    let records: Vec<&Json> = all.iter().map(|(_, j)| *j).collect();
    let work = work_of(&model, &records);
    let items = work.len();
    let owners: Vec<usize> = work.iter().map(|w| w.record).collect();
    let (judgements, mut tally) = judge_all(
        &judge,
        &model,
        &records,
        work,
        args.jobs,
        "judging",
        reporter.options,
    );
    let mut per_record: Vec<Vec<Judgement>> = vec![Vec::new(); all.len()];
    for (owner, mut j) in owners.into_iter().zip(judgements) {
        if let Some(gate) = &gate {
            let decided = j.met.is_some();
            gate.apply(&mut j);
            tally.unjudged += usize::from(decided && j.met.is_none());
        }
        per_record[owner].push(j);
    }
    for ((span, record), judged) in all.iter().zip(&per_record) {
        diagnostics.extend(unjudged(*span, &model, record, judged));
    }
    let code = reporter.report_compiled(db, &diagnostics);
    if code != EXIT_OK {
        return code;
    }
    let files = judged_files(&model, &inputs, names, &per_record, &judge.settings);
    if let Err(e) = write_with_parents(output, &files) {
        let d = Diagnostic::new(codes::IO, format!("cannot write the judged records: {e}"))
            .at_path(load::display(output))
            .help("choose a new or empty output folder");
        return reporter.report(db, &[d], 0);
    }
    if reporter.options.format == Format::Human {
        let _ = writeln!(
            io::stderr(),
            "casec judge: {} record(s), {} review item(s): {} asked of {}, {} from the cache, {} decided by people, {} left for review; wrote {}",
            all.len(),
            items,
            tally.requests,
            endpoint.url(),
            tally.cached,
            tally.human,
            tally.unjudged,
            load::display(output)
        );
    }
    code
}

/// The output folder of `casec judge` can take the judged records: absent, or an
/// empty folder (checked again when it is written).
fn output_is_free(output: &Path) -> Result<(), Diagnostic> {
    let target = output::resolve(output).unwrap_or_else(|_| output.to_path_buf());
    let taken = match std::fs::read_dir(&target) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => target.exists(),
    };
    if !taken {
        return Ok(());
    }
    Err(Diagnostic::new(
        codes::IO,
        "the output folder exists and is not empty: nothing was asked",
    )
    .at_path(load::display(output))
    .help("choose a new or empty output folder"))
}

/// Writes the judged files as the folder `dir` (atomically), creating the folders
/// above it that do not exist; if the write fails, the folders it created are
/// removed again.
fn write_with_parents(dir: &Path, files: &[(String, Vec<u8>)]) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut above = dir.parent();
    while let Some(folder) = above.filter(|p| !p.as_os_str().is_empty()) {
        if folder.exists() {
            break;
        }
        missing.push(folder);
        above = folder.parent();
    }
    let result = missing
        .iter()
        .rev()
        .try_for_each(std::fs::create_dir)
        .and_then(|()| write_folder_atomically(dir, files));
    if result.is_err() {
        for folder in &missing {
            let _ = std::fs::remove_dir(folder);
        }
    }
    result
}

/// The review items of every record, in record order.
fn work_of<'a>(suite: &'a Suite, records: &[&Json]) -> Vec<Work<'a>> {
    let mut work = Vec::new();
    for (n, record) in records.iter().enumerate() {
        let Some(case) = case_of(suite, record) else {
            continue;
        };
        work.extend(
            review_items(suite, case, record)
                .into_iter()
                .map(|item| Work {
                    record: n,
                    case,
                    item,
                }),
        );
    }
    work
}

/// The judged files, one per input under its output name: one record as pretty JSON,
/// several as JSON Lines, as they were given.
fn judged_files(
    suite: &Suite,
    inputs: &[Input],
    names: Vec<String>,
    per_record: &[Vec<Judgement>],
    settings: &Settings,
) -> Vec<(String, Vec<u8>)> {
    let mut judgements = per_record.iter();
    inputs
        .iter()
        .zip(names)
        .map(|(input, name)| {
            let mut text = String::new();
            for (_, record) in &input.records {
                let out = judged(
                    suite,
                    record,
                    judgements.next().map_or(&[][..], |j| j),
                    settings,
                );
                if input.records.len() == 1 {
                    text = serde_json::to_string_pretty(&out).unwrap_or_default();
                } else {
                    text.push_str(&out.to_string());
                }
                text.push('\n');
            }
            (name, text.into_bytes())
        })
        .collect()
}

/// One output file name per input; two inputs with one name would overwrite each other.
fn output_names(results: &[PathBuf]) -> Result<Vec<String>, Diagnostic> {
    let mut seen = BTreeSet::new();
    let mut names = Vec::new();
    for path in results {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "results.json".into());
        if !seen.insert(name.clone()) {
            return Err(Diagnostic::new(
                codes::IO,
                format!("two result files are named `{name}`"),
            )
            .at_path(load::display(path))
            .help("each judged file is written under its input's name: rename one, or judge them in two runs"));
        }
        names.push(name);
    }
    Ok(names)
}

fn read_overrides(
    path: Option<&Path>,
    suite: &Suite,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Overrides {
    let Some(path) = path else {
        return Overrides::default();
    };
    let Some((file, text)) = read_given(
        path,
        "the overrides",
        "give a JSON Lines file of verdicts (docs/judge.md)",
        db,
        diagnostics,
    ) else {
        return Overrides::default();
    };
    overrides::read(file, &text, suite).unwrap_or_else(|found| {
        diagnostics.extend(found);
        Overrides::default()
    })
}

fn read_calibration(
    path: &Path,
    min_kappa: f64,
    model: &str,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<calibrate::Gate> {
    let (file, text) = read_given(
        path,
        "the calibration",
        "give the JSON report of `casec calibrate … -o FILE`",
        db,
        diagnostics,
    )?;
    calibrate::read_gate(file, &text, model, min_kappa)
        .map_err(|d| diagnostics.push(d))
        .ok()
}

fn read_input(
    path: &Path,
    suite: &Suite,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Input> {
    let (file, text) = super::report::read_result_file(
        path,
        "give the paths of result records written by `casec replay`, `casec serve` or a harness",
        db,
        diagnostics,
    )?;
    match read_record_values(file, &text, suite) {
        Ok(found) => Some(Input {
            records: found
                .into_iter()
                .map(|(r, j)| (r.span.first_line(&text), j))
                .collect(),
        }),
        Err(found) => {
            diagnostics.extend(found);
            None
        }
    }
}

/// The case a record names (read_record_values has checked that it exists).
fn case_of<'a>(suite: &'a Suite, record: &Json) -> Option<&'a Case> {
    let id = record
        .get(crate::judge::key(
            suite,
            crate::model::shape::Builtin::CaseId,
        ))
        .and_then(Json::as_str)?;
    suite.cases.iter().find(|c| c.id.as_str() == id)
}

/// `casec calibrate SUITE --endpoint URL --model NAME [-o FILE]`: judges the golden
/// traces (positives) and the labelled counter-examples (negatives) of every case
/// with a world, and reports agreement with the labels.
///
/// Replaying runs the suite's programs as `trust` allows; a suite whose programs it
/// does not allow, or whose programs ask for the judge's key, is refused first.
pub fn calibrate(
    suite: &Path,
    output: Option<&Path>,
    args: &JudgeArgs,
    trust: Trust,
    reporter: &Reporter,
) -> u8 {
    let (mut db, model, mut diagnostics) = match clean_suite(suite, reporter) {
        Ok(clean) => clean,
        Err(code) => return code,
    };
    let allowed = super::trust::require(&db, &diagnostics, &model, &model.cases, trust, reporter)
        .and_then(|()| {
            let key = (args.api_key_env, "judge", "--api-key-env");
            super::trust::withhold(&db, &model, &model.cases, key, reporter)
        });
    if let Err(code) = allowed {
        return code;
    }
    // The names of the files read so far, by file id (the traces are added after them).
    let names: Vec<PathBuf> = db.files().map(|(_, f)| PathBuf::from(&f.name)).collect();
    let case_file = |case: &Case| {
        names
            .get(case.span.file.0 as usize)
            .cloned()
            .unwrap_or_default()
    };
    let runs = calibrate::labelled_runs(&model, &case_file, trust, &mut db, &mut diagnostics);
    let (endpoint, cache) = match connect_after(args, &mut diagnostics) {
        Ok(found) => found,
        Err(code) => return reporter.report_compiled(&db, &diagnostics).max(code),
    };
    let people = Overrides::default();
    let judge = judge_of(args, &endpoint, cache.as_ref(), &people);
    let records: Vec<&Json> = runs.iter().map(|r| &r.record).collect();
    let mut work = Vec::new();
    let mut labels = Vec::new();
    for (n, r) in runs.iter().enumerate() {
        for (item, expected) in
            calibrate::labelled(&model, r.case, &r.record, r.violates.as_deref())
        {
            labels.push((
                n,
                expected,
                item.dimension.unwrap_or("critical").to_string(),
            ));
            work.push(Work {
                record: n,
                case: r.case,
                item,
            });
        }
    }
    let (judgements, _) = judge_all(
        &judge,
        &model,
        &records,
        work,
        args.jobs,
        "calibrating",
        reporter.options,
    );
    let samples: Vec<Sample> = labels
        .into_iter()
        .zip(judgements)
        .map(|((n, expected, group), judgement)| Sample {
            case: runs[n].case.id.as_str().to_string(),
            run: runs[n].name.clone(),
            item: judgement.item.clone(),
            group,
            kind: judgement.kind,
            expected,
            judgement,
        })
        .collect();
    let mut calibration = calibrate::report(&samples);
    if let Json::Object(map) = &mut calibration {
        map.insert("settings".into(), judge.settings.to_json());
    }
    let code = reporter.report_compiled(&db, &diagnostics);
    let text = match (reporter.options.format, output) {
        (Format::Json, _) | (_, Some(_)) => {
            format!(
                "{}\n",
                serde_json::to_string_pretty(&calibration).unwrap_or_default()
            )
        }
        _ => human(&calibration),
    };
    let written = match output.filter(|p| !output::is_stdout(p)) {
        Some(path) => output::write_atomically(path, text.as_bytes()),
        None => output::print(text.as_bytes()),
    };
    if let Err(e) = written {
        return reporter.report(&db, &[output::write_error(output, &e)], 0);
    }
    if output.is_some() && reporter.options.format == Format::Human {
        let _ = io::stderr().write_all(human(&calibration).as_bytes());
    }
    code
}

/// The calibration report for people: overall, per group, per item, then the
/// disagreements and the cases without a negative.
fn human(report: &Json) -> String {
    // A negative zero (a kappa of -0.0) prints as 0.
    let figure = |a: &Json, key: &str| match a.get(key).and_then(Json::as_f64) {
        Some(x) => format!("{:.3}", x + 0.0),
        None => "-".into(),
    };
    let count = |a: &Json, key: &str| a.get(key).and_then(Json::as_u64).unwrap_or(0);
    let row = |name: &str, a: &Json| {
        format!(
            "{name:<24} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8}\n",
            count(a, "samples"),
            count(a, "negatives"),
            count(a, "unjudged"),
            figure(a, "accuracy"),
            figure(a, "balanced_accuracy"),
            figure(a, "kappa")
        )
    };
    let mut out = format!(
        "{:<24} {:>7} {:>9} {:>8} {:>8} {:>8} {:>8}\n",
        "", "samples", "negatives", "unjudged", "accuracy", "balanced", "kappa"
    );
    out.push_str(&row("overall", &report["overall"]));
    for (section, title) in [("per_group", "by group"), ("per_item", "by item")] {
        if let Some(map) = report[section].as_object() {
            out.push_str(&format!("{title}\n"));
            for (name, a) in map {
                out.push_str(&row(&format!("  {name}"), a));
            }
        }
    }
    let disagreements = report["disagreements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for d in &disagreements {
        out.push_str(&format!(
            "disagrees: {} {} {}: labelled met={}, judged {}: {}\n",
            d["case"].as_str().unwrap_or_default(),
            d["run"].as_str().unwrap_or_default(),
            d["item"].as_str().unwrap_or_default(),
            d["expected_met"],
            match d["judged_met"].as_bool() {
                Some(m) => format!("met={m}"),
                None => "no verdict".into(),
            },
            d["reason"].as_str().unwrap_or_default()
        ));
    }
    let without: Vec<&str> = report["cases_without_negative"]
        .as_array()
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    if !without.is_empty() {
        out.push_str(&format!(
            "cases without a labelled negative: {}\n",
            without.join(", ")
        ));
    }
    out.push_str(&format!(
        "casec calibrate: {} labelled item(s), {} disagreement(s)\n",
        report["overall"]["samples"],
        disagreements.len()
    ));
    out
}
