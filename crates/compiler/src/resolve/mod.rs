//! Resolution: syntax trees of a suite (and the stdlib) to the [`model`](crate::model).
//!
//! Collects the declarations of every file, reads the shapes and picks the suite's
//! ([`shape`]), validates each block against the keys its shape and the language give
//! it ([`keys`], [`fields`]), applies profile, category and suite defaults to every
//! case ([`defaults`]), and orders the cases deterministically (natural order of case
//! ids, or the suite's explicit `order`). Every problem becomes a diagnostic; a case
//! with errors is left out of the model, the others still resolve. The result is
//! independent of the order in which files were given.

pub mod blocks;
mod case;
pub mod defaults;
pub mod fields;
pub mod keys;
mod order;
pub mod shape;
mod suite;
pub mod tools;
pub(crate) mod values;
pub mod world;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arcstr::ArcStr;
use foldhash::fast::FixedState;

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::incremental::{Changes, ContextMemo, FileMemo};
use crate::model::tool::Tool;
use crate::model::world::WorldSchema;
use crate::model::{Case, Category, Name, Suite, Text};
use crate::source::{FileId, Span};
use crate::syntax::ast::Statement;
use crate::syntax::Parsed;

use crate::source::Role;
use defaults::{Defaults, Profiles};
pub use order::natural_cmp;
use order::order_cases;

/// A parsed file and what it is to the suite. Resolution takes the trees: the tree of a
/// file of cases only is dropped as soon as its cases are resolved, so the trees of a
/// large suite and its model are not all in memory at the end.
pub struct Input {
    pub tree: Arc<Parsed>,
    pub role: Role,
}

/// Where a case statement is: the `index`th statement of its file, whose tree the place
/// holds, so that a file of cases only goes once its last case is resolved.
struct CasePlace {
    tree: Arc<Parsed>,
    index: usize,
}

impl CasePlace {
    fn statement(&self) -> Option<&Statement> {
        self.tree.file.as_ref()?.statements.get(self.index)
    }

    /// Where its statement starts, which a re-check keys the case's reuse on.
    fn at(&self) -> Option<CaseAt> {
        self.statement().map(|s| (s.span.file, s.span.start))
    }
}

/// The top-level statements of a suite's files by what they declare, borrowed from the
/// trees of the files that declare more than cases; the cases by their places.
#[derive(Default)]
struct Gathered<'t> {
    profiles: Vec<(&'t Statement, bool)>,
    suites: Vec<&'t Statement>,
    tools: Vec<&'t Statement>,
    categories: Vec<&'t Statement>,
    shared_worlds: Vec<&'t Statement>,
    /// World schemas and shapes, each with whether the stdlib declares it.
    schemas: Vec<(&'t Statement, bool)>,
    shapes: Vec<(&'t Statement, bool)>,
    cases: Vec<CasePlace>,
    first_case: Option<Span>,
    /// Every profile a suite, category or case block applies: the stdlib profiles among
    /// them are checked against the suite's shape (other stdlib profiles may be written
    /// for other shapes).
    applied: HashSet<String>,
}

impl<'t> Gathered<'t> {
    /// The statements of `inputs`, whose files that declare more than cases are
    /// `declaring` (by input, `None` for a file of cases only).
    fn read(
        inputs: &[Input],
        declaring: &'t [Option<Arc<Parsed>>],
        diags: &mut Vec<Diagnostic>,
    ) -> Gathered<'t> {
        let mut out = Gathered::default();
        for (input, kept) in inputs.iter().zip(declaring) {
            let Some(file) = input.tree.file.as_ref() else {
                continue;
            };
            keys::check_keys(
                &file.statements,
                &[keys::TOP_LEVEL],
                "a .case file",
                Span::new(file.id, 0..0),
                diags,
            );
            for (index, statement) in file.statements.iter().enumerate() {
                if statement.name() == "case" {
                    out.case(input, index, statement, diags);
                    continue;
                }
                // A statement other than a case: its file declares more than cases, so
                // its tree is kept, and the statement is read from there.
                let Some(kept_file) = kept.as_ref().and_then(|t| t.file.as_ref()) else {
                    continue;
                };
                out.declaration(&kept_file.statements[index], input.role, diags);
            }
        }
        out
    }

    fn case(
        &mut self,
        input: &Input,
        index: usize,
        statement: &Statement,
        diags: &mut Vec<Diagnostic>,
    ) {
        if !matches!(input.role, Role::SuiteFile | Role::Member) {
            diags.push(misplaced(statement, "case", input.role));
            return;
        }
        self.first_case.get_or_insert(statement.key.span);
        self.applied.extend(applied_profiles(statement));
        self.cases.push(CasePlace {
            tree: Arc::clone(&input.tree),
            index,
        });
    }

    fn declaration(&mut self, statement: &'t Statement, role: Role, diags: &mut Vec<Diagnostic>) {
        let stdlib = role == Role::Stdlib;
        match (statement.name(), role) {
            ("profile", _) => self.profiles.push((statement, stdlib)),
            ("schema", _) => self.schemas.push((statement, stdlib)),
            ("shape", _) => self.shapes.push((statement, stdlib)),
            (key @ ("suite" | "tool" | "category" | "world"), Role::SuiteFile) => {
                self.applied.extend(applied_profiles(statement));
                match key {
                    "suite" => self.suites.push(statement),
                    "tool" => self.tools.push(statement),
                    "world" => self.shared_worlds.push(statement),
                    _ => self.categories.push(statement),
                }
            }
            (key @ ("suite" | "tool" | "category" | "world"), role) => {
                diags.push(misplaced(statement, key, role))
            }
            _ => {}
        }
    }
}

/// Suites from this many cases resolve their cases on all cores.
const PARALLEL_FROM_CASES: usize = 256;

/// The suite (absent when there is none, or when its own block has errors) and every
/// diagnostic of resolution.
pub fn resolve(inputs: Vec<Input>) -> (Option<Suite>, Vec<Diagnostic>) {
    resolve_in_parts(inputs, crate::parallel::part_count(), None)
}

/// [`resolve`], taking over from `cache` the cases it kept (of files unchanged since)
/// instead of resolving them again, and leaving this run's per-case diagnostics in it.
pub(crate) fn resolve_reusing(
    inputs: Vec<Input>,
    cache: &mut CaseCache,
) -> (Option<Suite>, Vec<Diagnostic>) {
    resolve_in_parts(inputs, crate::parallel::part_count(), Some(cache))
}

/// Cases resolved by the last run of a re-check (`Recheck`, the incremental engine), to reuse for the
/// case statements of files unchanged since: a case reads its own statement and the
/// context of [`crate::incremental`] only, so in the same context the same statement
/// resolves to the same case, with the same diagnostics.
#[derive(Default)]
pub struct CaseCache {
    /// The last run's cases, by where their statement starts (given back with
    /// [`CaseCache::keep`]).
    cases: FileMemo<CaseAt, Case>,
    /// What resolving each case statement of the last run reported, by where it starts.
    diagnostics: FileMemo<CaseAt, Vec<Diagnostic>>,
    /// How many cases the last run took over.
    reused: usize,
    /// The shapes and world schemas the last run read: in the same context, the same
    /// statements declare them.
    declarations: ContextMemo<Declarations>,
}

/// Where a case statement starts: its file and offset (its case's `extent`).
type CaseAt = (FileId, u32);

/// The shapes and world schemas of a run, with what reading them reported.
#[derive(Clone)]
struct Declarations {
    schemas: world::schema::Schemas,
    shapes: HashMap<String, Arc<crate::model::shape::Shape>>,
    declared_shapes: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Declarations {
    fn read(schemas: &[(&Statement, bool)], shapes: &[(&Statement, bool)]) -> Declarations {
        let mut diagnostics = Vec::new();
        Declarations {
            schemas: world::schema::read_schemas(schemas, &mut diagnostics),
            shapes: shape::read_shapes(shapes, &mut diagnostics),
            declared_shapes: shape::declared_names(shapes),
            diagnostics,
        }
    }
}

impl CaseCache {
    /// Forgets what `changes` invalidates.
    pub(crate) fn enter(&mut self, changes: &Changes) {
        self.cases.enter(changes);
        self.diagnostics.enter(changes);
        self.declarations.enter(changes);
    }

    /// Takes over the cases of the suite the last run resolved, for the next run to
    /// reuse instead of resolving them again.
    pub fn keep(&mut self, suite: Suite) {
        self.cases.replace(
            suite
                .cases
                .into_iter()
                .map(|case| ((case.extent.file, case.extent.start), case)),
        );
    }

    /// How many cases the last run took over instead of resolving them.
    pub fn reused(&self) -> usize {
        self.reused
    }

    /// The case of the statement at `at` and what resolving it reported, when the last
    /// run resolved it and its file is unchanged since.
    fn take(&mut self, at: &CaseAt) -> Option<(Case, Vec<Diagnostic>)> {
        let diagnostics = self.diagnostics.get(at)?.clone();
        Some((self.cases.take(at)?, diagnostics))
    }
}

/// [`resolve`], with the cases of a large suite resolved on up to `parts` threads.
fn resolve_in_parts(
    inputs: Vec<Input>,
    parts: usize,
    mut cache: Option<&mut CaseCache>,
) -> (Option<Suite>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    // The trees of the files that declare more than cases live through resolution; a
    // file of cases only is held by its cases' places from here on.
    let declaring: Vec<Option<Arc<Parsed>>> = inputs
        .iter()
        .map(|input| (!input.tree.declares_only_cases()).then(|| Arc::clone(&input.tree)))
        .collect();
    let suite_file = inputs
        .iter()
        .find(|i| i.role == Role::SuiteFile)
        .map(|i| i.tree.file.as_ref().map(|f| f.id));
    let gathered = Gathered::read(&inputs, &declaring, &mut diags);
    drop(inputs);
    if let Some(past) = gathered.cases.get(MAX_CASES).and_then(CasePlace::statement) {
        diags.push(too_many_cases(gathered.cases.len(), past));
        return (None, diags);
    }
    let read = || Declarations::read(&gathered.schemas, &gathered.shapes);
    let Declarations {
        schemas: world_schemas,
        shapes: shape_table,
        declared_shapes,
        diagnostics,
    } = match cache.as_mut() {
        Some(cache) => cache.declarations.get_or_make(read).clone(),
        None => read(),
    };
    diags.extend(diagnostics);
    let suite_statement = one_suite(
        &gathered.suites,
        gathered.first_case,
        suite_file,
        &mut diags,
    );
    let chosen = match suite_statement {
        Some(s) => chosen_shape(s, &shape_table, &declared_shapes, &mut diags),
        None => fitting_shape(&gathered.profiles, &shape_table),
    };
    let mut profiles = match &chosen {
        Some(shape) => Profiles::read(&gathered.profiles, shape, &mut diags),
        None => Profiles::default(),
    };
    profiles.resolve_all(&gathered.applied, &mut diags);

    let (Some(suite_statement), Some(shape)) = (suite_statement, chosen) else {
        return (None, diags);
    };
    let header = suite::suite(suite_statement, &shape, &mut diags);
    let categories: Vec<(Category, defaults::Layer)> = gathered
        .categories
        .iter()
        .filter_map(|s| suite::category(s, &shape, &mut diags))
        .collect();
    let Some(header) = header else {
        return (None, diags);
    };
    let suite_defaults = profiles.apply(&Defaults::default(), &header.layer, &mut diags);
    let by_category = category_defaults(&categories, &suite_defaults, &profiles, &mut diags);
    let schema = world::chosen_schema(&world_schemas, suite_statement, &mut diags);
    let world_schema = schema.schema().cloned();
    let mut broken_tools = Vec::new();
    let tools = suite_tools(
        world_schema.as_deref(),
        &gathered.tools,
        &mut broken_tools,
        &mut diags,
    );
    let tool_names: Vec<Name> = tools
        .iter()
        .map(|t| t.name.clone())
        .chain(broken_tools)
        .collect();
    let tools_known = !schema.reported();
    let shared = world::SharedWorlds::read(&gathered.shared_worlds, &mut diags);
    let worlds = world::SuiteWorld::new(
        schema,
        &tools,
        header.global_critical_failures.len(),
        &shared,
    );
    let mut cx = case::Context::new(
        &shape,
        &suite_defaults,
        &by_category,
        &header.tags,
        &tool_names,
    );
    cx.tools_known = tools_known;
    let jobs = new_cases(gathered.cases, &mut diags);
    let parts = if jobs.len() >= PARALLEL_FROM_CASES {
        parts
    } else {
        1
    };
    let context = CaseContext {
        cx: &cx,
        worlds: &worlds,
        profiles: &profiles,
    };
    let mut resolved = resolve_cases(jobs, parts, &context, &mut diags, cache);
    shared.report_once(&mut diags);
    order_cases(&mut resolved, header.order.as_deref(), &mut diags);
    let suite = Suite {
        shape: shape.clone(),
        name: header.name,
        values: header.values,
        system_prompt: header.system_prompt,
        case_count: header.case_count,
        categories: categories.into_iter().map(|(c, _)| c).collect(),
        global_critical_failures: header.global_critical_failures,
        revision_notes: header.revision_notes,
        reports: header.reports,
        result_template: header.result_template,
        outcome_names: header.outcome_names,
        tools,
        world_schema,
        tags: header.tags,
        cases: resolved,
        span: header.span,
        root: None,
    };
    (Some(suite), diags)
}

/// Each category's defaults: the suite's, then the profiles and fields of its block; a
/// category declared twice is reported and its second block left out.
fn category_defaults(
    categories: &[(Category, defaults::Layer)],
    suite_defaults: &Defaults,
    profiles: &Profiles,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(Name, Defaults)> {
    let mut out: Vec<(Name, Defaults)> = Vec::new();
    for (category, layer) in categories {
        if let Some((first, _)) = out
            .iter()
            .find(|(n, _)| n.as_str() == category.name.as_str())
        {
            diags.push(duplicate("category", &category.name, first.span));
            continue;
        }
        let defaults = profiles.apply(suite_defaults, layer, diags);
        out.push((category.name.clone(), defaults));
    }
    out
}

/// The most cases a suite may hold: 500,000, five times the largest suite the
/// benchmarks check (100,000 cases). Counted as soon as the files are parsed, before any
/// case is resolved: a suite's model takes memory by its cases, and a suite of a million
/// small cases would otherwise take more than a machine has.
pub const MAX_CASES: usize = 500_000;

/// The suite holds `count` cases, more than [`MAX_CASES`]; `past` is the first case
/// beyond.
fn too_many_cases(count: usize, past: &Statement) -> Diagnostic {
    Diagnostic::new(
        codes::LIMIT,
        format!(
            "the suite holds {} cases, more than the {} casec reads in one suite",
            thousands(count),
            thousands(MAX_CASES)
        ),
    )
    .primary(
        past.key.span,
        format!("case {} of the suite", thousands(MAX_CASES + 1)),
    )
    .help("split the suite into several suites")
}

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The shape a suite block names, or casec's own (`std.casec`) when it names none;
/// `declared` are the names of every shape statement, read or not.
fn chosen_shape(
    suite: &Statement,
    shapes: &HashMap<String, Arc<crate::model::shape::Shape>>,
    declared: &[String],
    diags: &mut Vec<Diagnostic>,
) -> Option<Arc<crate::model::shape::Shape>> {
    let named = suite::shape_name(suite, diags);
    let wanted = named.as_ref().map_or(DEFAULT_SHAPE, |n| n.as_str());
    if let Some(found) = shapes.get(wanted) {
        return Some(found.clone());
    }
    if declared.iter().any(|d| d == wanted) {
        // Declared, but it did not read: its errors are reported already.
        return None;
    }
    let at = named.as_ref().map_or(suite.key.span, |n| n.span);
    let mut known: Vec<&str> = shapes.keys().map(String::as_str).collect();
    known.sort_unstable();
    let d = Diagnostic::new(codes::UNKNOWN_SHAPE, format!("unknown shape `{wanted}`"))
        .primary(at, "not declared in the suite or the stdlib");
    diags.push(match suggest(wanted, known.iter().copied()) {
        Some(near) => match &named {
            Some(n) => did_you_mean(d, n.span, near),
            None => d.help(format!("did you mean `{near}`?")),
        },
        None => d.help(format!("shapes: {}", known.join(", "))),
    });
    None
}

/// The shape of a suite that names none: casec's own.
pub const DEFAULT_SHAPE: &str = "std.casec";

/// The shape the profiles of files without a suite are read against: the shape whose
/// fields hold the most keys they set (casec's own, then the others by name, on a
/// tie), so a profile written for a shape is checked as that shape reads it.
fn fitting_shape(
    profiles: &[(&Statement, bool)],
    shapes: &HashMap<String, Arc<crate::model::shape::Shape>>,
) -> Option<Arc<crate::model::shape::Shape>> {
    let mut names: Vec<&String> = shapes.keys().collect();
    names.sort_by_key(|n| (n.as_str() != DEFAULT_SHAPE, n.as_str()));
    let written: Vec<&str> = profiles
        .iter()
        .filter(|(_, stdlib)| !stdlib)
        .flat_map(|(s, _)| keys::body(s).iter().map(Statement::name))
        .collect();
    // The most keys known wins (a near miss, a typo, counts half); a tie goes to the
    // earlier shape.
    let known = |shape: &crate::model::shape::Shape| {
        let accepted = defaults::layer_keys(shape);
        let keys = || accepted.iter().map(|a| a.key);
        written
            .iter()
            .map(|k| match keys().any(|a| a == *k) {
                true => 2,
                false => usize::from(suggest(k, keys()).is_some()),
            })
            .sum::<usize>()
    };
    let mut best: Option<(&String, usize)> = None;
    for name in names {
        let n = known(&shapes[name.as_str()]);
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((name, n));
        }
    }
    best.map(|(n, _)| shapes[n.as_str()].clone())
}

/// The shape the suite block among `files` chooses (`true`: a stdlib file), read from
/// the trees alone: the language server completes with it even when the suite has
/// errors. `None` when there is no suite block or the shape does not read.
pub fn shape_of_trees<'t>(
    files: impl Iterator<Item = (&'t crate::syntax::ast::File, bool)> + Clone,
) -> Option<Arc<crate::model::shape::Shape>> {
    let statements: Vec<(&Statement, bool)> = files
        .clone()
        .flat_map(|(f, stdlib)| f.statements.iter().map(move |s| (s, stdlib)))
        .filter(|(s, _)| s.name() == "shape")
        .collect();
    let suite = files
        .flat_map(|(f, _)| &f.statements)
        .find(|s| s.name() == "suite")?;
    let mut ignored = Vec::new();
    let shapes = shape::read_shapes(&statements, &mut ignored);
    chosen_shape(suite, &shapes, &[], &mut ignored)
}

/// The profiles a block applies with `profile NAME`.
fn applied_profiles(statement: &Statement) -> impl Iterator<Item = String> + '_ {
    keys::body(statement)
        .iter()
        .filter(|s| s.name() == "profile")
        .filter_map(|s| s.values.first()?.as_ident().map(str::to_string))
}

/// The longest case id, in bytes. Case ids name files: `<id>.json` (bundles, sandbox
/// files), `<id>/` (export folders), `<id>.case` (import), and beside a case the traces
/// casec reads, `<id>.trace.jsonl` and `<id>.counter-<LABEL>.trace.jsonl`. 200 bytes
/// leaves every one of them under the 255 bytes a file name may have, with room for a
/// counter-example's label.
pub const MAX_CASE_ID_BYTES: usize = 200;

/// The places of cases whose ids are new; a case reusing an earlier id is reported
/// and left out. An id too long to name a file, or equal to an earlier one but for
/// letter case (their files would be one on a case-insensitive file system), is
/// reported too.
fn new_cases(cases: Vec<CasePlace>, diags: &mut Vec<Diagnostic>) -> Vec<CasePlace> {
    let mut seen: HashMap<ArcStr, Span, FixedState> =
        HashMap::with_capacity_and_hasher(cases.len(), FixedState::default());
    let mut folded: HashMap<String, Name, FixedState> =
        HashMap::with_capacity_and_hasher(cases.len(), FixedState::default());
    let mut out = Vec::with_capacity(cases.len());
    for place in cases {
        let header = place
            .statement()
            .and_then(|s| case::header(s, &mut Vec::new()));
        if let Some((id, _, _)) = header {
            if let Some(first) = seen.get(id.as_str()) {
                diags.push(
                    Diagnostic::new(
                        codes::DUPLICATE_CASE,
                        format!("case id `{}` is used twice", id.as_str()),
                    )
                    .primary(id.span, "used again here")
                    .secondary(*first, "first used here")
                    .help("give each case a unique id"),
                );
                continue;
            }
            check_file_name(&id, &mut folded, diags);
            seen.insert(id.value.clone(), id.span);
        }
        out.push(place);
    }
    out
}

/// Whether the case id `id` can name the files written for its case: not longer than
/// [`MAX_CASE_ID_BYTES`], and not an id of `folded` (earlier ids, lowercased) but for
/// letter case.
fn check_file_name(
    id: &Name,
    folded: &mut HashMap<String, Name, FixedState>,
    diags: &mut Vec<Diagnostic>,
) {
    let length = id.as_str().len();
    if length > MAX_CASE_ID_BYTES {
        diags.push(
            Diagnostic::new(
                codes::CASE_FILE_NAME,
                format!("this case id is {length} bytes long, too long to name the case's files"),
            )
            .primary(id.span, format!("at most {MAX_CASE_ID_BYTES} bytes"))
            .help("shorten the id: casec names a case's files after it (`<id>.json`, `<id>.trace.jsonl`), and a file name has at most 255 bytes"),
        );
        return;
    }
    match folded.entry(id.as_str().to_ascii_lowercase()) {
        std::collections::hash_map::Entry::Occupied(first) => diags.push(
            Diagnostic::new(
                codes::CASE_FILE_NAME,
                format!(
                    "case ids `{}` and `{}` differ only in letter case",
                    first.get().as_str(),
                    id.as_str()
                ),
            )
            .primary(id.span, "its files would clash")
            .secondary(first.get().span, "with the files of this case")
            .help("rename one case: on a case-insensitive file system (macOS, Windows) both cases' files would be one file"),
        ),
        std::collections::hash_map::Entry::Vacant(slot) => {
            slot.insert(id.clone());
        }
    }
}

/// A case statement resolved: its case (none when it has errors) and what resolving it
/// reported.
type Resolved = (Option<Case>, Vec<Diagnostic>);

/// The cases of `jobs`, in order, each with what resolving it reported: with `cache`,
/// the cases it kept are taken over and only the others resolved (on up to `parts`
/// threads), and this run's per-case diagnostics are left in it. Each place is dropped
/// once resolved, and a file of cases only with its last case.
fn resolve_cases(
    jobs: Vec<CasePlace>,
    parts: usize,
    context: &CaseContext,
    diags: &mut Vec<Diagnostic>,
    mut cache: Option<&mut CaseCache>,
) -> Vec<Case> {
    let places: Vec<Option<CaseAt>> = jobs.iter().map(CasePlace::at).collect();
    // By position in `jobs`: the cases the cache kept, and the places to resolve.
    let mut taken: Vec<(usize, Resolved)> = Vec::new();
    let mut fresh: Vec<(usize, CasePlace)> = Vec::with_capacity(jobs.len());
    for (i, place) in jobs.into_iter().enumerate() {
        let cached = cache.as_deref_mut().zip(places[i].as_ref());
        match cached.and_then(|(cache, at)| cache.take(at)) {
            Some((case, found)) => taken.push((i, (Some(case), found))),
            None => fresh.push((i, place)),
        }
    }
    let reused = taken.len();
    let resolved_parts = crate::parallel::map_batches(fresh, parts, |jobs| {
        jobs.into_iter()
            .map(|(i, place)| {
                let mut found = Vec::new();
                let case = place
                    .statement()
                    .and_then(|statement| context.resolve(statement, &mut found));
                (i, (case, found))
            })
            .collect::<Vec<_>>()
    });
    let mut taken = taken.into_iter().peekable();
    let mut resolved = resolved_parts.into_iter().flatten().peekable();
    let mut cases = Vec::with_capacity(places.len());
    let mut found_by_case = Vec::new();
    for (i, at) in places.into_iter().enumerate() {
        let at_i = |(j, _): &(usize, _)| *j == i;
        let Some((_, (case, found))) = taken.next_if(at_i).or_else(|| resolved.next_if(at_i))
        else {
            continue;
        };
        if let Some(at) = at.filter(|_| cache.is_some()) {
            found_by_case.push((at, found.clone()));
        }
        diags.extend(found);
        cases.extend(case);
    }
    if let Some(cache) = cache {
        cache.reused = reused;
        // The cases come back with `keep`, once the compilation is done with them.
        cache.cases.replace([]);
        cache.diagnostics.replace(found_by_case);
    }
    cases
}

/// What resolving a case reads besides its statement: the suite's defaults and names,
/// its world, its profiles.
struct CaseContext<'a> {
    cx: &'a case::Context<'a>,
    worlds: &'a world::SuiteWorld<'a>,
    profiles: &'a Profiles,
}

impl CaseContext<'_> {
    /// One case, resolved against its defaults and world.
    fn resolve(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Case> {
        let mut case = case::case(statement, self.cx, self.profiles, diags)?;
        case.sandbox = self.worlds.sandbox(statement, &case, diags);
        case.writes_world = keys::first(keys::body(statement), "world").is_some();
        Some(case)
    }
}

fn misplaced(statement: &Statement, key: &str, role: Role) -> Diagnostic {
    let (message, help) = match role {
        Role::Stdlib => (
            format!("`{key}` cannot appear in the stdlib"),
            "the stdlib holds profiles, shapes and world schemas only".to_string(),
        ),
        _ => (
            format!("`{key}` belongs in suite.case"),
            format!("move this `{key}` to the suite folder's suite.case"),
        ),
    };
    Diagnostic::new(codes::MISPLACED_DECLARATION, message)
        .primary(statement.key.span, "not allowed in this file")
        .help(help)
}

fn one_suite<'a>(
    suites: &[&'a Statement],
    first_case: Option<Span>,
    suite_file: Option<Option<FileId>>,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Statement> {
    if let [first, rest @ ..] = suites {
        for extra in rest {
            diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_DEFINITION,
                    "suite.case declares more than one suite",
                )
                .primary(extra.key.span, "second suite")
                .secondary(first.key.span, "first suite")
                .help("a suite folder holds exactly one suite; split it into two folders"),
            );
        }
        return Some(first);
    }
    if let Some(case) = first_case {
        let help = if suite_file.is_some() {
            "add `suite \"Name\" { … }` to suite.case"
        } else {
            "cases live in a suite folder: add a suite.case with `suite \"Name\" { … }` beside them"
        };
        diags.push(
            Diagnostic::new(codes::MISSING_SUITE, "these cases belong to no suite")
                .primary(case, "this case has no suite")
                .help(help),
        );
    } else if let Some(Some(file)) = suite_file {
        diags.push(
            Diagnostic::new(codes::MISSING_SUITE, "suite.case declares no suite")
                .primary(
                    Span::new(file, 0..0),
                    "expected `suite \"Name\" { … }` in this file",
                )
                .help("add the suite block with the benchmark's metadata"),
        );
    }
    None
}

/// `name` (a tool, category, schema, collection…) declared again after `first`.
pub(crate) fn duplicate(what: &str, name: &Text, first: Span) -> Diagnostic {
    Diagnostic::new(
        codes::DUPLICATE_DEFINITION,
        format!("{what} `{}` is defined twice", name.as_str()),
    )
    .primary(name.span, "defined again here")
    .secondary(first, "first defined here")
    .help(format!("keep one definition of the {what}"))
}

/// The suite's tools: its world schema's, then those suite.case declares (read against
/// the schema); a suite tool named like one of the schema's is reported.
fn suite_tools(
    schema: Option<&WorldSchema>,
    statements: &[&Statement],
    broken: &mut Vec<Name>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Tool> {
    let mut tools: Vec<Tool> = schema.map(|s| s.tools.clone()).unwrap_or_default();
    let own = world::schema::read_tools(statements.iter().copied(), schema, broken, diags);
    for tool in own {
        if let Some(earlier) = tools.iter().find(|t| t.name.as_str() == tool.name.as_str()) {
            diags.push(duplicate("tool", &tool.name, earlier.name.span));
            continue;
        }
        tools.push(tool);
    }
    tools
}

/// The stdlib's files, parsed.
fn stdlib_trees() -> Vec<Parsed> {
    crate::load::stdlib_sources()
        .iter()
        .enumerate()
        .map(|(i, source)| crate::syntax::parse(crate::source::FileId(i as u32), &source.text))
        .collect()
}

/// The stdlib's top-level statements with `key`, each marked as the stdlib's.
fn stdlib_statements<'t>(trees: &'t [Parsed], key: &str) -> Vec<(&'t Statement, bool)> {
    trees
        .iter()
        .flat_map(|t| t.file.iter().flat_map(|f| &f.statements))
        .filter(|s| s.name() == key)
        .map(|s| (s, true))
        .collect()
}

/// A stdlib shape (`std.<name>`).
pub fn stdlib_shape(name: &str) -> Option<Arc<crate::model::shape::Shape>> {
    stdlib_shapes()
        .into_iter()
        .find(|s| s.name.as_str() == name)
}

/// Every stdlib shape, in name order.
pub fn stdlib_shapes() -> Vec<Arc<crate::model::shape::Shape>> {
    let trees = stdlib_trees();
    let shapes = shape::read_shapes(&stdlib_statements(&trees, "shape"), &mut Vec::new());
    let mut out: Vec<Arc<crate::model::shape::Shape>> = shapes.into_values().collect();
    out.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
    out
}

/// The defaults of a stdlib profile (`std.<name>`), as a suite of `shape` applying it
/// sees them.
pub fn stdlib_defaults(name: &str, shape: &Arc<crate::model::shape::Shape>) -> Option<Defaults> {
    let trees = stdlib_trees();
    let mut diags = Vec::new();
    let mut profiles = Profiles::read(&stdlib_statements(&trees, "profile"), shape, &mut diags);
    let applied: HashSet<String> = [name.to_string()].into_iter().collect();
    profiles.resolve_all(&applied, &mut diags);
    let span = Span::new(crate::source::FileId(0), 0..0);
    let layer = defaults::Layer {
        own: Defaults::default(),
        applies: vec![Name::new(name, span)],
    };
    let out = profiles.apply(&Defaults::default(), &layer, &mut diags);
    diags.is_empty().then_some(out)
}

/// A stdlib world schema (`std.<name>`), as a suite naming it sees it.
pub fn stdlib_schema(name: &str) -> Option<WorldSchema> {
    let trees = stdlib_trees();
    let schemas =
        world::schema::read_schemas(&stdlib_statements(&trees, "schema"), &mut Vec::new());
    schemas.valid.get(name).map(|s| (**s).clone())
}

#[cfg(test)]
mod tests {
    use super::{resolve_in_parts, CaseCache, Input};
    use crate::incremental::Scope;
    use crate::source::SourceDb;
    use std::sync::Arc;

    /// A large rule-breaking suite resolves to the same model and diagnostics however
    /// its cases are split between threads.
    #[test]
    fn resolving_in_parts_gives_what_resolving_at_once_does() {
        let mut db = SourceDb::new();
        let master = casec_corpus::generate_master(300, 5);
        let master_file = db.add("master.json", master, crate::source::Origin::User);
        let mut files = crate::import::import(&db, master_file).expect("the master imports");
        // Resolution errors too: a case id used twice, an unknown category.
        for name in ["zz/first.case", "zz/second.case"] {
            files.push((
                name.into(),
                "case dup.1 \"Twice\" {\n  category nowhere\n}\n".into(),
            ));
        }
        // Several cases in one file, each with its error at its own place.
        files.push((
            "zz/several.case".into(),
            "case many.1 \"One\" {\n  category first\n}\n\ncase many.2 \"Two\" {\n  category second\n}\n"
                .into(),
        ));
        let mut sources = crate::load::stdlib_sources();
        sources.extend(crate::load::named_sources(files));
        let ids = crate::load::add_all(&mut db, sources);
        let trees: Vec<Arc<crate::syntax::Parsed>> = ids
            .iter()
            .map(|&(id, _)| Arc::new(crate::syntax::parse(id, &db.file(id).text)))
            .collect();
        let scope = Scope::new(&db, &trees);
        let mut cache = CaseCache::default();
        let resolve = |parts, reuse: bool, cache: &mut CaseCache| {
            let inputs = ids
                .iter()
                .zip(&trees)
                .map(|(&(_, role), tree)| Input {
                    tree: Arc::clone(tree),
                    role,
                })
                .collect();
            if reuse {
                cache.enter(&scope.changes_since(Some(&scope)));
            }
            let reusing = reuse.then_some(&mut *cache);
            let (suite, diagnostics) = resolve_in_parts(inputs, parts, reusing);
            let cases = suite.as_ref().map_or(0, |s| s.cases.len());
            let text = format!("{suite:#?}\n{diagnostics:#?}");
            if let (Some(suite), true) = (suite, reuse) {
                cache.keep(suite);
            }
            (text, cases, diagnostics.len())
        };
        let at_once = resolve(1, false, &mut cache);
        assert!(
            at_once.1 >= 256 && at_once.2 > 0,
            "a large suite with resolution errors"
        );
        for parts in [2, 3, 7] {
            assert!(
                resolve(parts, false, &mut cache) == at_once,
                "{parts} parts"
            );
        }
        // Through a cache: the first run resolves every case, the next take them over
        // (with the diagnostics resolving them gave), on any number of parts.
        for (parts, reused) in [(1, 0), (2, at_once.1), (3, at_once.1)] {
            assert!(
                resolve(parts, true, &mut cache) == at_once,
                "{parts} parts, reusing"
            );
            assert_eq!(cache.reused(), reused, "{parts} parts, reusing");
        }
    }
}
