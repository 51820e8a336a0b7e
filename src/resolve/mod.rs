//! Resolution: syntax trees of a suite (and the stdlib) to the [`model`](crate::model).
//!
//! Collects the declarations of every file, validates each block against the
//! [`schema`], applies profile, category and suite defaults to every case, and orders
//! the cases deterministically (natural order of case ids, or the suite's explicit
//! `order`). Every problem becomes a diagnostic; a case with errors is left out of the
//! model, the others still resolve. The result is independent of the order in which
//! files were given.

mod case;
pub mod defaults;
pub mod schema;
mod suite;
pub(crate) mod values;

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Category, Name, Suite, ToolContract};
use std::sync::Arc;

use crate::source::{FileId, Span};
use crate::syntax::ast::Statement;
use crate::syntax::Parsed;

use defaults::{Defaults, Profiles};

/// What a file is to its suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `suite.case`: the only place for `suite`, `tool` and `category`.
    SuiteFile,
    /// Any other file of the suite folder.
    Member,
    /// An embedded stdlib file: profiles only, named `std.<name>`.
    Stdlib,
}

/// A parsed file and what it is to the suite. Resolution takes the trees: a member
/// file's tree is dropped as soon as its cases are resolved, so the trees of a large
/// suite and its model are never all in memory at once.
pub struct Input {
    pub tree: Arc<Parsed>,
    pub role: Role,
}

/// Where a case statement is: borrowed from a file kept to the end, or the `index`th
/// statement of member file `file`, whose tree is dropped after its last case.
enum CasePlace<'a> {
    Kept(&'a Statement),
    Member { file: usize, index: usize },
}

/// The suite (absent when there is none, or when its own block has errors) and every
/// diagnostic of resolution.
pub fn resolve(inputs: Vec<Input>) -> (Option<Suite>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut profiles = Profiles::default();
    let mut suites: Vec<&Statement> = Vec::new();
    let mut tools: Vec<&Statement> = Vec::new();
    let mut categories: Vec<&Statement> = Vec::new();
    let mut cases: Vec<CasePlace> = Vec::new();
    let mut first_case: Option<Span> = None;
    let mut declared_profiles: Vec<Name> = Vec::new();
    let mut schemas: Vec<(&Statement, bool)> = Vec::new();

    let kept: Vec<Option<Arc<Parsed>>> = inputs
        .iter()
        .map(|input| (input.role != Role::Member).then(|| Arc::clone(&input.tree)))
        .collect();
    let mut members: Vec<Option<Arc<Parsed>>> = inputs
        .iter()
        .map(|input| (input.role == Role::Member).then(|| Arc::clone(&input.tree)))
        .collect();
    let suite_file = inputs
        .iter()
        .find(|i| i.role == Role::SuiteFile)
        .map(|i| i.tree.file.as_ref().map(|f| f.id));
    let roles: Vec<Role> = inputs.iter().map(|i| i.role).collect();
    drop(inputs);

    for (at, role) in roles.iter().copied().enumerate() {
        // Statements used after the cases are resolved are borrowed from kept files.
        let kept_file = kept[at].as_deref().and_then(|t| t.file.as_ref());
        let member_file = members[at].as_deref().and_then(|t| t.file.as_ref());
        let Some(file) = kept_file.or(member_file) else {
            continue;
        };
        schema::check_keys(
            &file.statements,
            &[schema::TOP_LEVEL],
            "a .case file",
            Span::new(file.id, 0..0),
            &mut diags,
        );
        for (index, statement) in file.statements.iter().enumerate() {
            match (statement.name(), role) {
                ("profile", role) => {
                    if let Some((name, layer)) =
                        suite::profile(statement, role == Role::Stdlib, &mut diags)
                    {
                        declared_profiles.push(name.clone());
                        profiles.declare(name, layer, &mut diags);
                    }
                }
                ("suite" | "tool" | "category", Role::SuiteFile) => {
                    let Some(statement) = kept_file.map(|f| &f.statements[index]) else {
                        continue;
                    };
                    match statement.name() {
                        "suite" => suites.push(statement),
                        "tool" => tools.push(statement),
                        _ => categories.push(statement),
                    }
                }
                ("case", Role::SuiteFile | Role::Member) => {
                    first_case.get_or_insert(statement.key.span);
                    cases.push(match kept_file {
                        Some(f) => CasePlace::Kept(&f.statements[index]),
                        None => CasePlace::Member { file: at, index },
                    });
                }
                ("schema", role) => schemas.push((statement, role == Role::Stdlib)),
                (key @ ("suite" | "tool" | "category" | "case"), role) => {
                    diags.push(misplaced(statement, key, role))
                }
                _ => {}
            }
        }
    }
    declared_profiles.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let world_schemas = crate::world::schema::read_schemas(&schemas, &mut diags);
    for name in &declared_profiles {
        let layer = defaults::Layer {
            own: Defaults::default(),
            applies: vec![name.clone()],
        };
        profiles.apply(&Defaults::default(), &layer, &mut diags);
    }

    let Some(suite_statement) = one_suite(&suites, first_case, suite_file, &mut diags) else {
        return (None, diags);
    };
    let header = suite::suite(suite_statement, &mut diags);
    let tools = unique(
        tools
            .iter()
            .filter_map(|s| suite::tool(s, &mut diags))
            .collect(),
        |t: &ToolContract| &t.name,
        "tool",
        &mut diags,
    );
    let categories: Vec<(Category, defaults::Layer)> = categories
        .iter()
        .filter_map(|s| suite::category(s, &mut diags))
        .collect();
    let Some(header) = header else {
        return (None, diags);
    };
    let suite_defaults = profiles.apply(&Defaults::default(), &header.layer, &mut diags);
    let mut category_defaults: Vec<(Name, Defaults)> = Vec::new();
    for (category, layer) in &categories {
        if let Some((first, _)) = category_defaults
            .iter()
            .find(|(n, _)| n.as_str() == category.name.as_str())
        {
            diags.push(duplicate("category", &category.name, first.span));
            continue;
        }
        let defaults = profiles.apply(&suite_defaults, layer, &mut diags);
        category_defaults.push((category.name.clone(), defaults));
    }
    let tool_names: Vec<Name> = tools.iter().map(|t| t.name.clone()).collect();
    let worlds = crate::world::SuiteWorld::new(&world_schemas, suite_statement, &tools, &mut diags);
    let cx = case::Context {
        suite: &suite_defaults,
        categories: &category_defaults,
        tags: &header.tags,
        tools: &tool_names,
    };
    let mut resolved: Vec<Case> = Vec::with_capacity(cases.len());
    let mut seen: HashMap<String, Span> = HashMap::new();
    for (k, place) in cases.iter().enumerate() {
        let statement = match place {
            CasePlace::Kept(statement) => *statement,
            CasePlace::Member { file, index } => {
                match members[*file].as_deref().and_then(|t| t.file.as_ref()) {
                    Some(tree) => &tree.statements[*index],
                    None => continue,
                }
            }
        };
        if let Some(case) = resolve_case(
            statement,
            &cx,
            &worlds,
            &mut seen,
            &mut profiles,
            &mut diags,
        ) {
            resolved.push(case);
        }
        if let CasePlace::Member { file, .. } = place {
            let file_done = !matches!(cases.get(k + 1), Some(CasePlace::Member { file: next, .. }) if next == file);
            if file_done {
                members[*file] = None;
            }
        }
    }
    order_cases(&mut resolved, header.order.as_deref(), &mut diags);
    let suite = Suite {
        name: header.name,
        version: header.version,
        created_on: header.created_on,
        language: header.language,
        purpose: header.purpose,
        case_count: header.case_count,
        categories: categories.into_iter().map(|(c, _)| c).collect(),
        data_status: header.data_status,
        use_instructions: header.use_instructions,
        system_instruction: header.system_instruction,
        tools,
        global_critical_failures: header.global_critical_failures,
        scoring: header.scoring,
        design_reference: header.design_reference,
        revision_notes: header.revision_notes,
        tags: header.tags,
        cases: resolved,
        span: header.span,
    };
    (Some(suite), diags)
}

/// One case: its id must be new; then it resolves against its defaults and world.
fn resolve_case(
    statement: &Statement,
    cx: &case::Context,
    worlds: &crate::world::SuiteWorld,
    seen: &mut HashMap<String, Span>,
    profiles: &mut Profiles,
    diags: &mut Vec<Diagnostic>,
) -> Option<Case> {
    if let Some((id, _, _)) = case::header(statement, &mut Vec::new()) {
        if let Some(first) = seen.get(id.as_str()) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_CASE,
                    format!("case id `{}` is used twice", id.as_str()),
                )
                .primary(id.span, "used again here")
                .secondary(*first, "first used here")
                .help("give each case a unique id"),
            );
            return None;
        }
        seen.insert(id.as_str().to_string(), id.span);
    }
    let mut case = case::case(statement, cx, profiles, diags)?;
    case.sandbox = worlds.sandbox(statement, &case, diags);
    Some(case)
}

fn misplaced(statement: &Statement, key: &str, role: Role) -> Diagnostic {
    let (message, help) = match role {
        Role::Stdlib => (
            format!("`{key}` cannot appear in the stdlib"),
            "the stdlib holds profiles only".to_string(),
        ),
        _ => (
            format!("`{key}` belongs in suite.case"),
            format!("move this `{key}` to the suite folder's suite.case"),
        ),
    };
    Diagnostic::error(codes::MISPLACED_DECLARATION, message)
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
                Diagnostic::error(
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
            Diagnostic::error(codes::MISSING_SUITE, "these cases belong to no suite")
                .primary(case, "this case has no suite")
                .help(help),
        );
    } else if let Some(Some(file)) = suite_file {
        diags.push(
            Diagnostic::error(codes::MISSING_SUITE, "suite.case declares no suite")
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
pub(crate) fn duplicate(what: &str, name: &Name, first: Span) -> Diagnostic {
    Diagnostic::error(
        codes::DUPLICATE_DEFINITION,
        format!("{what} `{}` is defined twice", name.as_str()),
    )
    .primary(name.span, "defined again here")
    .secondary(first, "first defined here")
    .help(format!("keep one definition of the {what}"))
}

fn unique<T>(
    items: Vec<T>,
    name: impl Fn(&T) -> &Name,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        if let Some(first) = out
            .iter()
            .find(|o| name(o).as_str() == name(&item).as_str())
        {
            diags.push(duplicate(what, name(&item), name(first).span));
        } else {
            out.push(item);
        }
    }
    out
}

fn order_cases(cases: &mut [Case], order: Option<&[Name]>, diags: &mut Vec<Diagnostic>) {
    // Case ids are unique and `natural_cmp` is a total order, so an unstable sort gives
    // the same order as a stable one, without a buffer as large as the cases.
    let by_id = |a: &Case, b: &Case| natural_cmp(a.id.as_str(), b.id.as_str());
    cases.sort_unstable_by(by_id);
    let Some(order) = order else {
        return;
    };
    let case_ids: HashSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let mut position: HashMap<&str, usize> = HashMap::new();
    for (i, id) in order.iter().enumerate() {
        if let Some(&first) = position.get(id.as_str()) {
            diags.push(
                Diagnostic::error(
                    codes::CASE_ORDER,
                    format!("`{}` is listed twice in `order`", id.as_str()),
                )
                .primary(id.span, "listed again here")
                .secondary(order[first].span, "first listed here"),
            );
        } else if !case_ids.contains(id.as_str()) {
            diags.push(
                Diagnostic::error(
                    codes::CASE_ORDER,
                    format!("`order` lists `{}`, which is not a case", id.as_str()),
                )
                .primary(id.span, "no case has this id")
                .help("remove it from `order` or fix the id"),
            );
        }
        position.entry(id.as_str()).or_insert(i);
    }
    let missing: Vec<&str> = cases
        .iter()
        .map(|c| c.id.as_str())
        .filter(|id| !position.contains_key(id))
        .collect();
    if let (Some(first), Some(last)) = (order.first(), order.last()) {
        if !missing.is_empty() {
            diags.push(
                Diagnostic::error(
                    codes::CASE_ORDER,
                    format!("`order` leaves out {} case(s)", missing.len()),
                )
                .primary(
                    first.span.to(last.span),
                    format!("missing: {}", missing.join(", ")),
                )
                .help("list every case once, or remove `order` to sort cases by id"),
            );
        }
    }
    let position_of = |c: &Case| position.get(c.id.as_str()).copied().unwrap_or(usize::MAX);
    cases.sort_unstable_by(|a, b| {
        position_of(a)
            .cmp(&position_of(b))
            .then_with(|| by_id(a, b))
    });
}

/// Compares ids so that digit runs compare as numbers: `A2 < A10`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.is_empty(), y.is_empty()) {
            (true, true) => return a.cmp(b),
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let (cx, rx) = split_chunk(x);
        let (cy, ry) = split_chunk(y);
        let both_digits = cx.starts_with(|c: char| c.is_ascii_digit())
            && cy.starts_with(|c: char| c.is_ascii_digit());
        let ord = if both_digits {
            let (tx, ty) = (cx.trim_start_matches('0'), cy.trim_start_matches('0'));
            tx.len().cmp(&ty.len()).then(tx.cmp(ty))
        } else {
            cx.cmp(cy)
        };
        if ord != Ordering::Equal {
            return ord;
        }
        x = rx;
        y = ry;
    }
}

fn split_chunk(s: &str) -> (&str, &str) {
    let digits = s.starts_with(|c: char| c.is_ascii_digit());
    let end = s
        .find(|c: char| c.is_ascii_digit() != digits)
        .unwrap_or(s.len());
    s.split_at(end)
}

/// The defaults of a stdlib profile (`std.<name>`), as a suite applying it sees them.
pub fn stdlib_defaults(name: &str) -> Option<Defaults> {
    let mut diags = Vec::new();
    let mut profiles = Profiles::default();
    for (i, source) in crate::load::stdlib_sources().iter().enumerate() {
        let file = crate::source::FileId(i as u32);
        let parsed = crate::syntax::parse(file, &source.text);
        for statement in parsed.file.iter().flat_map(|f| &f.statements) {
            if statement.name() == "profile" {
                if let Some((profile, layer)) = suite::profile(statement, true, &mut diags) {
                    profiles.declare(profile, layer, &mut diags);
                }
            }
        }
    }
    let span = Span::new(crate::source::FileId(0), 0..0);
    let layer = defaults::Layer {
        own: Defaults::default(),
        applies: vec![crate::model::Text::new(name, span)],
    };
    let out = profiles.apply(&Defaults::default(), &layer, &mut diags);
    diags.is_empty().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use std::cmp::Ordering;

    #[test]
    fn natural_order_compares_numbers_by_value() {
        assert_eq!(natural_cmp("A2", "A10"), Ordering::Less);
        assert_eq!(natural_cmp("TUJ-099", "TUJ-100"), Ordering::Less);
        assert_eq!(natural_cmp("b1", "a2"), Ordering::Greater);
        assert_eq!(natural_cmp("A01", "A1"), Ordering::Less);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }
}
