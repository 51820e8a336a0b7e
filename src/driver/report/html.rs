//! `casec report --html FILE`: the required reporting as one page a person reads in a
//! browser.
//!
//! The page is self-contained: inline CSS, charts drawn as inline SVG, no script, no
//! font, image or style sheet from anywhere else, so it opens the same from a disk, a
//! CI artifact or a mail. Its numbers are the JSON report's ([`report`]'s aggregation:
//! the same tallies, pass rates and coverage), never recomputed here; the page only
//! lays them out, and adds what a reader needs to act on them: the texts of the
//! critical failures and of each case's failed or undecided checks, the judge's reasons
//! when the records were judged, and each run's trace.
//!
//! **Traces.** A result record carries its run's trace (the key the shape's `layout
//! result` gives it), while the file the trace was read from is named nowhere in the
//! record; so each case links to an anchor (`#trace-ID`) of a section at the end of the
//! page that shows the trace's events inline, and the page stays whole when it is moved
//! or mailed.
//!
//! Every text the page shows (case texts, record values, judge reasons, file names) is
//! escaped by maud's templates; the same records give the same bytes.
//!
//! [`report`]: crate::runtime::report::report

use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::Value as Json;

use crate::judge::ItemKind;
use crate::lower::record_schema::JUDGEMENTS;
use crate::model::shape::{Builtin, Verdict};
use crate::model::{Case, Suite};
use crate::runtime::replay::Status;
use crate::runtime::report::{dimensions, triggered_failures, CheckCounts, ResultRecord};

/// One record to show: as read, its JSON, and the file it was read from.
pub(super) struct Run<'a> {
    pub record: &'a ResultRecord,
    pub json: &'a Json,
    pub file: &'a str,
}

/// The page, over the JSON `summary` that [`crate::runtime::report::report`] computed
/// from the same `runs` (at most one per case).
pub(super) fn page(suite: &Suite, summary: &Json, runs: &[Run]) -> String {
    let records: Vec<ResultRecord> = runs.iter().map(|r| r.record.clone()).collect();
    let view = View { suite, runs };
    let title = format!("{} — casec report", suite.name.as_str());
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="generator" content="casec report --html";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    p.kicker { "casec report" }
                    h1 { (suite.name.as_str()) }
                    p.sub {
                        (count(runs.len(), "result record")) " for "
                        (count(suite.cases.len(), "case")) " · "
                        a href="#categories" { "categories" } " · "
                        a href="#dimensions" { "checks" } " · "
                        a href="#critical" { "critical failures" } " · "
                        a href="#cases" { "cases" } " · "
                        a href="#traces" { "traces" }
                    }
                }
                main {
                    (view.overall(&summary["overall"]))
                    (view.categories(&summary["categories"]))
                    (view.dimensions(&dimensions(suite, &records)))
                    (view.required(summary))
                    (view.critical(&records))
                    (view.cases())
                    (view.traces())
                }
                footer {
                    p { "Pass rates are over every case of the suite (or category), as the suite's scoring rules define them: a partial run shows its coverage beside its rate. Written by " code { "casec report --html" } "." }
                }
            }
        }
    };
    let mut page = markup.into_string();
    page.push('\n');
    page
}

/// The segments of a stacked bar: passed, failed, undecided, not run.
const OUTCOME_CLASSES: [&str; 4] = ["passed", "failed", "undecided", "not-run"];
/// The segments of a dimension's bar: pass, fail, needs review.
const STATUS_CLASSES: [&str; 3] = ["passed", "failed", "undecided"];

struct View<'a> {
    suite: &'a Suite,
    runs: &'a [Run<'a>],
}

/// What one tally of the report holds.
struct Tally {
    cases: u64,
    attempted: u64,
    /// Passed, failed, undecided.
    outcomes: [u64; 3],
    not_run: u64,
    pass_rate: Option<f64>,
    coverage: String,
}

impl Tally {
    fn of(suite: &Suite, json: &Json) -> Tally {
        let n = |key: &str| json.get(key).and_then(Json::as_u64).unwrap_or(0);
        Tally {
            cases: n("cases"),
            attempted: n("attempted"),
            outcomes: [Verdict::Passed, Verdict::Failed, Verdict::Undecided]
                .map(|v| n(suite.outcome(v))),
            not_run: n("not_run"),
            pass_rate: json.get("pass_rate").and_then(Json::as_f64),
            coverage: json
                .get("coverage")
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_string(),
        }
    }

    fn rate(&self) -> String {
        self.pass_rate
            .map_or_else(|| "–".to_string(), |r| format!("{r:.1}%"))
    }

    fn segments(&self) -> [u64; 4] {
        let [p, f, u] = self.outcomes;
        [p, f, u, self.not_run]
    }
}

impl View<'_> {
    fn outcome(&self, verdict: Verdict) -> &str {
        self.suite.outcome(verdict)
    }

    fn legend(&self) -> Markup {
        let names = [
            self.outcome(Verdict::Passed).to_string(),
            self.outcome(Verdict::Failed).to_string(),
            self.outcome(Verdict::Undecided).to_string(),
            "not run".to_string(),
        ];
        legend(&OUTCOME_CLASSES, &names)
    }

    fn overall(&self, json: &Json) -> Markup {
        let t = Tally::of(self.suite, json);
        let names = [
            self.outcome(Verdict::Passed),
            self.outcome(Verdict::Failed),
            self.outcome(Verdict::Undecided),
        ];
        html! {
            section #overall {
                h2 { "Overall" }
                div.headline {
                    div.figure {
                        span #overall-pass-rate.rate { (t.rate()) }
                        span.caption { "pass rate" }
                    }
                    dl.facts {
                        div { dt { (names[0]) } dd.passed { (t.outcomes[0]) } }
                        div { dt { (names[1]) } dd.failed { (t.outcomes[1]) } }
                        div { dt { (names[2]) } dd.undecided { (t.outcomes[2]) } }
                        div { dt { "not run" } dd { (t.not_run) } }
                        div { dt { "coverage" } dd { (t.coverage) } }
                    }
                }
                (bar("overall", &t.segments(), &self.segment_names(), 16))
                (self.legend())
                @if t.attempted < t.cases {
                    p.note { (count((t.cases - t.attempted) as usize, "case")) " of the suite " (if t.cases - t.attempted == 1 { "has" } else { "have" }) " no record: the pass rate counts " (if t.cases - t.attempted == 1 { "it" } else { "them" }) " as not passed." }
                }
            }
        }
    }

    fn segment_names(&self) -> [String; 4] {
        [
            self.outcome(Verdict::Passed).to_string(),
            self.outcome(Verdict::Failed).to_string(),
            self.outcome(Verdict::Undecided).to_string(),
            "not run".to_string(),
        ]
    }

    fn categories(&self, json: &Json) -> Markup {
        let categories: Vec<(&str, Tally)> = self
            .suite
            .categories
            .iter()
            .map(|c| {
                let name = c.name.as_str();
                (name, Tally::of(self.suite, &json[name]))
            })
            .collect();
        html! {
            section #categories {
                h2 { "By category" }
                @if categories.is_empty() {
                    p.note { "The suite declares no categories." }
                } @else {
                    table.chart {
                        thead { tr {
                            th { "category" } th.barcell { "outcomes" } th.num { "pass rate" }
                            th.num { (self.outcome(Verdict::Passed)) } th.num { "cases" } th.num { "coverage" }
                        } }
                        tbody {
                            @for (name, t) in &categories {
                                tr {
                                    th scope="row" { (name) }
                                    td.barcell { (bar(name, &t.segments(), &self.segment_names(), 14)) }
                                    td.num.strong { (t.rate()) }
                                    td.num { (t.outcomes[0]) }
                                    td.num { (t.cases) }
                                    td.num { (t.coverage) }
                                }
                            }
                        }
                    }
                    (self.legend())
                }
            }
        }
    }

    fn dimensions(&self, dimensions: &[(String, CheckCounts)]) -> Markup {
        let statuses = [Status::Pass, Status::Fail, Status::NeedsReview];
        let names = statuses.map(|s| s.as_str().replace('_', " "));
        html! {
            section #dimensions {
                h2 { "Checks by dimension" }
                p.note { "Every check of every record, by the dimension its id belongs to." }
                @if dimensions.is_empty() {
                    p.note { "The suite's grading declares no dimensions." }
                } @else {
                    table.chart {
                        thead { tr {
                            th { "dimension" } th.barcell { "checks" }
                            @for n in &names { th.num { (n) } }
                        } }
                        tbody {
                            @for (name, counts) in dimensions {
                                @let n = [counts.pass, counts.fail, counts.needs_review].map(|n| n as u64);
                                tr {
                                    th scope="row" { (name.replace('_', " ")) }
                                    td.barcell { (bar(name, &n, &names, 14)) }
                                    td.num { (n[0]) } td.num { (n[1]) } td.num { (n[2]) }
                                }
                            }
                        }
                    }
                    (legend(&STATUS_CLASSES, &names))
                }
            }
        }
    }

    /// The suite's `report` lines with what each computed.
    fn required(&self, summary: &Json) -> Markup {
        let lines = summary["required_reporting"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        html! {
            @if !lines.is_empty() {
                section #required {
                    h2 { "Required reporting" }
                    table.lines {
                        tbody {
                            @for line in &lines {
                                tr {
                                    th scope="row" { (line["line"].as_str().unwrap_or_default()) }
                                    td { (self.line_value(line)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn line_value(&self, line: &Json) -> Markup {
        let status = |checks: &Json, s: Status| checks[s.as_str()].as_u64().unwrap_or(0);
        if let Some(tally) = line.get("outcomes") {
            let t = Tally::of(self.suite, tally);
            let tag = line["tag"].as_str().unwrap_or_default();
            return html! {
                "cases tagged " code { (tag) } ": " strong { (t.rate()) } " pass rate, "
                (t.outcomes[0]) " of " (t.cases) " " (self.outcome(Verdict::Passed))
                " (coverage " (t.coverage) ")"
            };
        }
        if line.get("overall").is_some() {
            let t = Tally::of(self.suite, &line["overall"]);
            return html! {
                strong { (t.rate()) } " pass rate overall; per category "
                a href="#categories" { "above" }
            };
        }
        if let Some(checks) = line.get("checks") {
            return html! {
                (status(checks, Status::Pass)) " pass, " (status(checks, Status::Fail)) " fail, "
                (status(checks, Status::NeedsReview)) " need review"
            };
        }
        if let Some(failures) = line.get("critical_failures") {
            let n = failures["count"].as_u64().unwrap_or(0);
            return html! {
                (count(n as usize, "critical failure")) " triggered"
                @if n > 0 { " (" a href="#critical" { "listed below" } ")" }
            };
        }
        html! { span.muted { "not computed" } }
    }

    fn case(&self, id: &str) -> Option<&Case> {
        self.suite.cases.iter().find(|c| c.id.as_str() == id)
    }

    fn critical(&self, records: &[ResultRecord]) -> Markup {
        // The report's list, in the suite's case order (the same records in any order
        // give the same page).
        let mut failures: Vec<(&str, &str)> = triggered_failures(records).collect();
        let position = |id: &str| self.suite.cases.iter().position(|c| c.id.as_str() == id);
        failures.sort_by_key(|(case, _)| position(case));
        html! {
            section #critical {
                h2 { "Critical failures" }
                @if failures.is_empty() {
                    p.ok { "No critical failure was triggered." }
                } @else {
                    p { (count(failures.len(), "critical failure")) " triggered in "
                        (count(distinct(failures.iter().map(|(c, _)| *c)), "case")) "." }
                    table.items {
                        thead { tr { th { "case" } th { "failure" } th { "what it forbids" } } }
                        tbody {
                            @for (case_id, id) in &failures {
                                tr.failed {
                                    td { a href=(format!("#case-{case_id}")) { (case_id) } }
                                    td { code { (id) } }
                                    td {
                                        (self.critical_text(case_id, id))
                                        @if let Some(r) = self.run_of(case_id) {
                                            (reason(r.json, ItemKind::CriticalFailure, id))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                @let shared = self.suite_criticals();
                @if !shared.is_empty() {
                    h3 #suite-critical { "The suite's critical failures" }
                    p.note { "Every case shares these; a case still to rule them out names them only." }
                    table.items {
                        tbody {
                            @for (id, text) in &shared {
                                tr { td { code { (id) } } td { (text) } }
                            }
                        }
                    }
                }
            }
        }
    }

    fn run_of(&self, case_id: &str) -> Option<&Run<'_>> {
        self.runs.iter().find(|r| r.record.case_id == case_id)
    }

    fn critical_text(&self, case_id: &str, id: &str) -> Markup {
        let found = self.case(case_id).and_then(|case| {
            self.suite
                .criticals(case)
                .into_iter()
                .find(|c| c.id == id)
                .map(|c| (c.text.as_str().to_string(), c.global))
        });
        match found {
            Some((text, global)) => html! {
                (text) @if global { " " span.badge { "suite-wide" } }
            },
            None => html! { span.muted { "not a critical failure of this case" } },
        }
    }

    /// Whether `id` is one of the suite's critical failures, which every case shares.
    fn is_global(&self, case_id: &str, id: &str) -> bool {
        self.case(case_id).is_some_and(|case| {
            self.suite
                .criticals(case)
                .iter()
                .any(|c| c.id == id && c.global)
        })
    }

    /// A critical failure's text, for a tooltip.
    fn critical_plain(&self, case_id: &str, id: &str) -> String {
        self.case(case_id)
            .and_then(|case| {
                self.suite
                    .criticals(case)
                    .into_iter()
                    .find(|c| c.id == id)
                    .map(|c| c.text.as_str().to_string())
            })
            .unwrap_or_default()
    }

    /// The suite's own critical failures, shared by every case, with their texts.
    fn suite_criticals(&self) -> Vec<(String, String)> {
        let Some(case) = self.suite.cases.first() else {
            return Vec::new();
        };
        self.suite
            .criticals(case)
            .into_iter()
            .filter(|c| c.global)
            .map(|c| (c.id, c.text.as_str().to_string()))
            .collect()
    }

    fn check_text(&self, case: Option<&Case>, id: &str) -> Markup {
        match case.and_then(|c| c.checks.iter().find(|k| k.id.as_str() == id)) {
            Some(check) => html! {
                (check.requirement.as_str()) " " span.dim { (check.dimension.as_str().replace('_', " ")) }
            },
            None => html! { span.muted { "not a check of this case" } },
        }
    }

    /// The runs in the suite's case order.
    fn in_case_order(&self) -> Vec<&Run<'_>> {
        let mut runs: Vec<&Run> = self.runs.iter().collect();
        let position = |id: &str| self.suite.cases.iter().position(|c| c.id.as_str() == id);
        runs.sort_by_key(|r| position(&r.record.case_id));
        runs
    }

    fn cases(&self) -> Markup {
        let runs = self.in_case_order();
        let with = |v: Verdict| -> Vec<&Run> {
            runs.iter()
                .copied()
                .filter(|r| r.record.verdict == v)
                .collect()
        };
        let (failed, undecided, passed) = (
            with(Verdict::Failed),
            with(Verdict::Undecided),
            with(Verdict::Passed),
        );
        let not_run: Vec<&Case> = self
            .suite
            .cases
            .iter()
            .filter(|c| self.run_of(c.id.as_str()).is_none())
            .collect();
        html! {
            section #cases {
                h2 { "Cases" }
                p.note { "Each case's failed and undecided items with their texts (and, for judged records, the judge's reasons), in the suite's order; every case links to its run's trace." }
                @if !failed.is_empty() {
                    h3 { (self.outcome(Verdict::Failed)) " " span.count { (failed.len()) } }
                    @for run in &failed { (self.case_card(run)) }
                }
                @if !undecided.is_empty() {
                    h3 { (self.outcome(Verdict::Undecided)) " " span.count { (undecided.len()) } }
                    @for run in &undecided { (self.case_card(run)) }
                }
                @if !passed.is_empty() {
                    h3 { (self.outcome(Verdict::Passed)) " " span.count { (passed.len()) } }
                    table.items.passed-list {
                        tbody {
                            @for run in &passed {
                                @let case = self.case(&run.record.case_id);
                                tr id=(format!("case-{}", run.record.case_id)) {
                                    td { strong { (run.record.case_id) } }
                                    td { (case.map_or("", |c| c.title.as_str())) }
                                    td.dim { (case.and_then(|c| c.category.as_ref()).map_or("", |c| c.as_str())) }
                                    td { a href=(format!("#trace-{}", run.record.case_id)) { "trace" } }
                                }
                            }
                        }
                    }
                }
                @if !not_run.is_empty() {
                    details.not-run {
                        summary { "Not run " span.count { (not_run.len()) } }
                        p {
                            @for (i, case) in not_run.iter().enumerate() {
                                @if i > 0 { ", " }
                                span title=(case.title.as_str()) { (case.id.as_str()) }
                            }
                        }
                    }
                }
            }
        }
    }

    fn case_card(&self, run: &Run) -> Markup {
        let id = run.record.case_id.as_str();
        let case = self.case(id);
        let status_is = |s: Status| -> Vec<&str> {
            run.record
                .checks
                .iter()
                .filter(|(_, status)| status == s.as_str())
                .map(|(id, _)| id.as_str())
                .collect()
        };
        let (failed, review) = (status_is(Status::Fail), status_is(Status::NeedsReview));
        let pending: Vec<&str> = run
            .json
            .get(self.key(Builtin::PendingReview))
            .and_then(Json::as_array)
            .map(|a| a.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default();
        // The suite's critical failures, the same in every case, are named only; their
        // texts are listed once, under the critical failures. One with a judgement is
        // shown in full, with the judge's reason.
        let (pending_own, pending_shared): (Vec<&str>, Vec<&str>) = pending.iter().partition(|f| {
            !self.is_global(id, f) || has_judgement(run.json, ItemKind::CriticalFailure, f)
        });
        let events = self.events(run.json).len();
        let class = match run.record.verdict {
            Verdict::Failed => "case failed",
            Verdict::Undecided => "case undecided",
            Verdict::Passed => "case passed",
        };
        html! {
            article class=(class) id=(format!("case-{id}")) {
                header {
                    h4 {
                        span.id { (id) } " "
                        (case.map_or("", |c| c.title.as_str()))
                    }
                    span class=(format!("badge {}", run.record.verdict.as_str())) { (self.outcome(run.record.verdict)) }
                }
                p.meta {
                    @if let Some(category) = case.and_then(|c| c.category.as_ref()) {
                        "category " (category.as_str()) " · "
                    }
                    "record " code { (run.file) } " · "
                    a href=(format!("#trace-{id}")) { "trace (" (count(events, "event")) ")" }
                    @if let Some(model) = judge_model(run.json) {
                        " · judged by " code { (model) }
                    }
                }
                @if !run.record.critical_failures.is_empty() {
                    h5 { "Critical failures triggered" }
                    ul.items {
                        @for f in &run.record.critical_failures {
                            li.failed {
                                code { (f) } " " (self.critical_text(id, f))
                                (reason(run.json, ItemKind::CriticalFailure, f))
                            }
                        }
                    }
                }
                @if !failed.is_empty() {
                    h5 { "Failed checks" }
                    ul.items {
                        @for c in &failed {
                            li.failed {
                                code { (c) } " " (self.check_text(case, c))
                                (reason(run.json, ItemKind::Check, c))
                            }
                        }
                    }
                }
                @if !review.is_empty() {
                    h5 { "Checks awaiting review" }
                    ul.items {
                        @for c in &review {
                            li.undecided {
                                code { (c) } " " (self.check_text(case, c))
                                (reason(run.json, ItemKind::Check, c))
                            }
                        }
                    }
                }
                @if !pending_own.is_empty() || !pending_shared.is_empty() {
                    h5 { "Critical failures still to rule out" }
                    ul.items {
                        @for f in &pending_own {
                            li.undecided {
                                code { (f) } " " (self.critical_text(id, f))
                                (reason(run.json, ItemKind::CriticalFailure, f))
                            }
                        }
                        @if !pending_shared.is_empty() {
                            li.undecided {
                                "the suite's "
                                @for (i, f) in pending_shared.iter().enumerate() {
                                    @if i > 0 { ", " }
                                    a.plain href="#suite-critical" title=(self.critical_plain(id, f)) { code { (f) } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn key(&self, builtin: Builtin) -> &str {
        crate::judge::key(self.suite, builtin)
    }

    fn events<'j>(&self, json: &'j Json) -> &'j [Json] {
        json.get(self.key(Builtin::Trace))
            .and_then(Json::as_array)
            .map_or(&[], Vec::as_slice)
    }

    fn traces(&self) -> Markup {
        let runs = self.in_case_order();
        html! {
            section #traces {
                h2 { "Traces" }
                p.note { "What each run did, event by event, as its record holds it." }
                @for run in &runs {
                    @let id = run.record.case_id.as_str();
                    @let events = self.events(run.json);
                    section.trace id=(format!("trace-{id}")) {
                        h3 {
                            span.id { (id) } " "
                            (self.case(id).map_or("", |c| c.title.as_str())) " "
                            span class=(format!("badge {}", run.record.verdict.as_str())) { (self.outcome(run.record.verdict)) }
                        }
                        p.meta {
                            "record " code { (run.file) } " · "
                            @if run.record.verdict == Verdict::Passed {
                                a href=(format!("#case-{id}")) { "back to the case" }
                            } @else {
                                a href=(format!("#case-{id}")) { "back to the case's findings" }
                            }
                        }
                        @if events.is_empty() {
                            p.muted { "The record holds no trace events." }
                        } @else {
                            ol.events {
                                @for event in events { (trace_event(event)) }
                            }
                        }
                        // The replies are in the trace; a record without one still shows them.
                        @if let Some(replies) = run.json.get(self.key(Builtin::Replies)).filter(|r| events.is_empty() && !is_empty(r)) {
                            h5 { "Replies" }
                            div.reply { (value_text(replies)) }
                        }
                    }
                }
            }
        }
    }
}

/// One trace event: its `type`, then its other non-empty fields.
fn trace_event(event: &Json) -> Markup {
    let kind = event.get("type").and_then(Json::as_str).unwrap_or("event");
    let failed = event.get("failed").and_then(Json::as_bool) == Some(true);
    let fields: Vec<(&String, &Json)> = match event {
        Json::Object(map) => map
            .iter()
            .filter(|(k, v)| k.as_str() != "type" && !is_empty(v))
            .collect(),
        other => return html! { li { code { (other.to_string()) } } },
    };
    html! {
        li class=[failed.then_some("failed")] {
            span.kind { (kind) }
            @for (key, value) in fields {
                @if value == &Json::Bool(true) {
                    " " span.field.flag { (key) }
                } @else {
                    " " span.field { span.key { (key) } " " (value_text(value)) }
                }
            }
        }
    }
}

/// Whether a value says nothing worth showing: null, false, "", [] or {}.
fn is_empty(value: &Json) -> bool {
    match value {
        Json::Null | Json::Bool(false) => true,
        Json::String(s) => s.is_empty(),
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        _ => false,
    }
}

/// A value as text: a string as it is, a list of strings one per line, anything
/// else as compact JSON.
fn value_text(value: &Json) -> Markup {
    match value {
        Json::String(s) => html! { span.text { (s) } },
        Json::Array(items) if items.iter().all(Json::is_string) => {
            let items: Vec<&str> = items.iter().filter_map(Json::as_str).collect();
            html! { span.text { (items.join(", ")) } }
        }
        other => html! { code { (other.to_string()) } },
    }
}

/// The judgement of an item in a judged record (the last one, if it was judged again).
fn judgement<'a>(record: &'a Json, kind: ItemKind, id: &str) -> Option<&'a Json> {
    record
        .get(JUDGEMENTS)
        .and_then(|j| j.get("items"))
        .and_then(Json::as_array)
        .and_then(|items| {
            items.iter().rev().find(|j| {
                j.get("item").and_then(Json::as_str) == Some(id)
                    && j.get("kind").and_then(Json::as_str) == Some(kind.as_str())
            })
        })
}

fn has_judgement(record: &Json, kind: ItemKind, id: &str) -> bool {
    judgement(record, kind, id).is_some()
}

/// The judge's word on an item of a judged record, when it has one.
fn reason(record: &Json, kind: ItemKind, id: &str) -> Markup {
    let Some(j) = judgement(record, kind, id) else {
        return html! {};
    };
    let text = j.get("reason").and_then(Json::as_str).unwrap_or_default();
    let source = match (
        j.get("source").and_then(Json::as_str),
        j.get("author").and_then(Json::as_str),
    ) {
        (Some("human"), Some(author)) => format!("{author} (a person)"),
        (Some("cache"), _) => "the judge (cached)".to_string(),
        (Some(_), _) => "the judge".to_string(),
        (None, _) => "no verdict".to_string(),
    };
    let verdict = match (kind, j.get("met").and_then(Json::as_bool)) {
        (_, None) => "left for review",
        (ItemKind::Check, Some(true)) => "met",
        (ItemKind::Check, Some(false)) => "not met",
        (ItemKind::CriticalFailure, Some(true)) => "committed",
        (ItemKind::CriticalFailure, Some(false)) => "not committed",
    };
    html! {
        blockquote.reason {
            span.who { (source) ", " (verdict) ": " }
            (text)
        }
    }
}

/// The judge model of a judged record.
fn judge_model(record: &Json) -> Option<&str> {
    record
        .get(JUDGEMENTS)?
        .get("settings")?
        .get("model")?
        .as_str()
}

/// A stacked horizontal bar of `values`, one segment per class, each with a tooltip.
fn bar(label: &str, values: &[u64], names: &[String], height: u32) -> Markup {
    let total: u64 = values.iter().sum();
    let mut x = 0.0_f64;
    let segments: Vec<(f64, f64, &str, u64, &str)> = values
        .iter()
        .zip(OUTCOME_CLASSES)
        .zip(names)
        .filter(|((v, _), _)| **v > 0)
        .map(|((v, class), name)| {
            let width = 1000.0 * *v as f64 / total.max(1) as f64;
            let at = x;
            x += width;
            (at, width, class, *v, name.as_str())
        })
        .collect();
    let summary: Vec<String> = values
        .iter()
        .zip(names)
        .map(|(v, n)| format!("{v} {n}"))
        .collect();
    html! {
        svg.bar xmlns="http://www.w3.org/2000/svg" viewBox=(format!("0 0 1000 {height}"))
            preserveAspectRatio="none" role="img" height=(height)
            aria-label=(format!("{label}: {}", summary.join(", "))) {
            rect.track x="0" y="0" width="1000" height=(height) {}
            @for (at, width, class, v, name) in &segments {
                rect class=(class) x=(format!("{at:.2}")) y="0" width=(format!("{width:.2}")) height=(height) {
                    title { (format!("{label}: {v} {name}")) }
                }
            }
        }
    }
}

fn legend(classes: &[&str], names: &[String]) -> Markup {
    html! {
        ul.legend {
            @for (class, name) in classes.iter().zip(names) {
                li { span class=(format!("swatch {class}")) {} (name) }
            }
        }
    }
}

fn count(n: usize, noun: &str) -> String {
    crate::diag::count(n, noun)
}

fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> usize {
    let mut seen: Vec<&str> = items.collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

const CSS: &str = r#"
:root {
  --passed: #2e7d32; --failed: #c62828; --undecided: #e0a100; --not-run: #cfd5db;
  --ink: #1d232a; --muted: #5f6b76; --rule: #e3e7eb; --paper: #ffffff; --tint: #f6f8fa;
}
* { box-sizing: border-box; }
html { background: var(--tint); }
body {
  margin: 0 auto; max-width: 68rem; padding: 2rem 1.5rem 4rem; color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
header .kicker { margin: 0; color: var(--muted); text-transform: uppercase; letter-spacing: .08em; font-size: .75rem; }
h1 { margin: .1rem 0 .3rem; font-size: 1.7rem; line-height: 1.25; }
header .sub { margin: 0 0 1.5rem; color: var(--muted); }
main > section { background: var(--paper); border: 1px solid var(--rule); border-radius: 8px; padding: 1.2rem 1.4rem; margin: 0 0 1.25rem; }
h2 { margin: 0 0 .8rem; font-size: 1.2rem; }
h3 { margin: 1.4rem 0 .6rem; font-size: 1.05rem; }
h4 { margin: 0; font-size: 1rem; }
h5 { margin: .8rem 0 .3rem; font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
a { color: #1f5fa8; }
code { font: .85em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--tint); padding: 0 .25em; border-radius: 3px; overflow-wrap: anywhere; }
.note, .muted, .dim { color: var(--muted); }
.dim { font-size: .85em; }
.note { margin-top: 0; }
.ok { color: var(--passed); font-weight: 600; }
.headline { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem 2.5rem; margin-bottom: .9rem; }
.figure { display: flex; flex-direction: column; }
.rate { font-size: 2.8rem; font-weight: 700; line-height: 1; }
.caption { color: var(--muted); }
.facts { display: flex; flex-wrap: wrap; gap: .5rem 1.8rem; margin: 0; }
.facts dt { color: var(--muted); font-size: .8rem; }
.facts dd { margin: 0; font-size: 1.3rem; font-weight: 600; }
dd.passed { color: var(--passed); } dd.failed { color: var(--failed); } dd.undecided { color: #9a6d00; }
svg.bar { display: block; width: 100%; border-radius: 3px; overflow: hidden; }
svg .track { fill: var(--tint); }
svg .passed { fill: var(--passed); } svg .failed { fill: var(--failed); }
svg .undecided { fill: var(--undecided); } svg .not-run { fill: var(--not-run); }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; padding: 0; margin: .6rem 0 0; color: var(--muted); font-size: .85rem; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem; vertical-align: -1px; }
.swatch.passed { background: var(--passed); } .swatch.failed { background: var(--failed); }
.swatch.undecided { background: var(--undecided); } .swatch.not-run { background: var(--not-run); }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--rule); vertical-align: top; }
thead th { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); font-weight: 600; }
tbody th { font-weight: 500; white-space: nowrap; }
table.chart td, table.chart tbody th { vertical-align: middle; }
.barcell { width: 45%; }
.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.strong { font-weight: 700; }
table.lines th { width: 40%; white-space: normal; }
tr.failed td:first-child { border-left: 3px solid var(--failed); }
.count { display: inline-block; min-width: 1.6em; padding: 0 .45em; border-radius: 999px; background: var(--tint); color: var(--muted); font-size: .8em; text-align: center; }
.badge { display: inline-block; padding: .05em .55em; border-radius: 999px; font-size: .75rem; font-weight: 600; background: var(--tint); color: var(--muted); white-space: nowrap; }
.badge.passed { background: #e3f1e4; color: var(--passed); }
.badge.failed { background: #fbe3e3; color: var(--failed); }
.badge.undecided { background: #fdf1cf; color: #7a5700; }
article.case { border: 1px solid var(--rule); border-left: 4px solid var(--not-run); border-radius: 6px; padding: .7rem 1rem .8rem; margin: 0 0 .8rem; }
article.case.failed { border-left-color: var(--failed); }
article.case.undecided { border-left-color: var(--undecided); }
article.case header { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; }
.id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 700; }
.meta { margin: .2rem 0 0; color: var(--muted); font-size: .85rem; }
ul.items { margin: 0; padding-left: 1.2rem; }
ul.items li { margin: .25rem 0; }
ul.items li.failed::marker { color: var(--failed); }
ul.items li.undecided::marker { color: var(--undecided); }
blockquote.reason { margin: .25rem 0 .35rem; padding: .3rem .6rem; border-left: 3px solid var(--rule); background: var(--tint); font-size: .9rem; }
.who { color: var(--muted); }
details.not-run summary { cursor: pointer; font-weight: 600; margin-top: 1rem; }
section.trace { border-top: 1px solid var(--rule); padding-top: .6rem; margin-top: .8rem; }
section.trace:target, article.case:target, tr:target { background: #fffbe6; }
ol.events { margin: .4rem 0; padding-left: 1.8rem; font-size: .9rem; }
ol.events li { margin: .2rem 0; }
ol.events li.failed .kind { background: #fbe3e3; color: var(--failed); }
.kind { display: inline-block; min-width: 3.6rem; font-weight: 600; background: var(--tint); border-radius: 3px; padding: 0 .35em; text-align: center; }
.field { margin-right: .4rem; }
.key { color: var(--muted); font-size: .8em; }
.flag { font-size: .8em; font-weight: 600; background: var(--tint); border-radius: 3px; padding: 0 .3em; }
a.plain { text-decoration: none; }
.reply { white-space: pre-wrap; background: var(--tint); border-radius: 4px; padding: .5rem .7rem; font-size: .9rem; }
footer { color: var(--muted); font-size: .8rem; }
@media print { html { background: none; } main > section { border: none; padding: 0; } }
"#;
