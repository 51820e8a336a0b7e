//! Executable sandbox initialisation: typed worlds, machine overrides, expectations.
//!
//! A suite names a world schema (`world_schema std.everyday_world`, declared in `.case`
//! syntax by [`schema`]); each case may then describe what its sandbox loads:
//!
//! * `world { … }`: typed records ([`records`]), checked field by field ([`value`],
//!   [`time`]);
//! * the machine part of its `override` ([`overrides`]): which calls it intercepts and
//!   what they return and write;
//! * `expect`, `forbid` and `review`: assertions over the final state and the tool trace
//!   that decide its checks and critical failures ([`expect`], [`filters`]; their
//!   sandbox JSON in [`json`]).
//!
//! The resolver calls [`SuiteWorld::sandbox`] for every case that resolved; the checks
//! that need the whole case and its source text run afterwards in [`consistency`];
//! [`stats`] counts what a machine can decide.
//! Nothing here reaches the master JSON: the sandbox file has its own lowering
//! (`lower::sandbox`). The authoring guide is docs/worlds.md.

pub mod consistency;
pub mod expect;
pub mod filters;
pub mod json;
pub mod overrides;
pub mod records;
pub mod schema;
pub mod stats;
pub mod time;
pub mod value;

use std::sync::Arc;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::{Case, Name, Text, ToolContract};
use crate::resolve::schema::{all, body, first};
use crate::resolve::values;
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use expect::{ExpectCx, Expectation, Review};
use filters::FilterCx;
use overrides::MachineOverride;
use records::World;
use schema::WorldSchema;

/// What the sandbox of one case loads, beside the case's prose.
#[derive(Clone, Debug)]
pub struct Sandbox {
    pub schema: Arc<WorldSchema>,
    pub world: World,
    pub machine_override: Option<MachineOverride>,
    /// `expect`: assertions deciding checks.
    pub expectations: Vec<Expectation>,
    /// `forbid`: predicates of critical failures (F1, F2, …).
    pub forbidden: Vec<Expectation>,
    pub reviews: Vec<Review>,
    /// The whole `case` statement: what lies inside was chosen by the case itself.
    pub case_span: Span,
}

/// How a check or critical failure is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decided {
    Machine,
    Review,
    Both,
    /// Neither an assertion nor a review mark.
    Unclassified,
}

impl Decided {
    pub fn as_str(self) -> &'static str {
        match self {
            Decided::Machine => "machine",
            Decided::Review => "review",
            Decided::Both => "both",
            Decided::Unclassified => "unclassified",
        }
    }
}

impl Sandbox {
    /// How the check or critical failure `id` is decided. Checks the case inherits
    /// rather than writes (the profile's C1) need review unless an assertion decides them.
    pub fn decided(&self, id: &str, inherited: bool) -> Decided {
        let named = |groups: &[Expectation]| {
            groups
                .iter()
                .any(|e| e.ids.iter().any(|i| i.as_str() == id))
        };
        let machine = named(&self.expectations) || named(&self.forbidden);
        let review = inherited
            || self
                .reviews
                .iter()
                .any(|r| r.ids.iter().any(|i| i.as_str() == id));
        match (machine, review) {
            (true, true) => Decided::Both,
            (true, false) => Decided::Machine,
            (false, true) => Decided::Review,
            (false, false) => Decided::Unclassified,
        }
    }

    /// Whether a check was written in the case (rather than inherited from a profile).
    pub fn is_own(&self, span: Span) -> bool {
        span.file == self.case_span.file
            && span.start >= self.case_span.start
            && span.end <= self.case_span.end
    }
}

/// The id of the `index`-th critical failure (from 0): F1, F2, …
pub fn critical_id(index: usize) -> String {
    format!("F{}", index + 1)
}

/// The world schema a suite applies and the tool contracts, for reading case worlds.
pub struct SuiteWorld<'a> {
    schema: Chosen,
    contracts: &'a [ToolContract],
}

/// The schema the suite block chose.
enum Chosen {
    Schema(Arc<WorldSchema>),
    /// No `world_schema` statement.
    None,
    /// A `world_schema` that names an unknown or invalid schema: reported once, and
    /// not again for every case with a world.
    Reported,
}

impl<'a> SuiteWorld<'a> {
    /// The schema the suite block names with `world_schema`, among those declared.
    pub fn new(
        schemas: &schema::Schemas,
        suite: &Statement,
        contracts: &'a [ToolContract],
        diags: &mut Vec<Diagnostic>,
    ) -> SuiteWorld<'a> {
        let statement = first(body(suite), "world_schema");
        let chosen = statement.and_then(|s| values::name(s, diags));
        let schema = match (statement, chosen) {
            (None, _) => Chosen::None,
            (Some(_), None) => Chosen::Reported,
            (Some(_), Some(name)) => match schemas.valid.get(name.as_str()) {
                Some(found) => Chosen::Schema(found.clone()),
                // Its declaration's errors say what is wrong with it.
                None if schemas.invalid.contains(name.as_str()) => Chosen::Reported,
                None => {
                    diags.push(unknown_schema(&name, schemas));
                    Chosen::Reported
                }
            },
        };
        SuiteWorld { schema, contracts }
    }

    /// The sandbox of one resolved case (`None` when it has no world or errors).
    pub fn sandbox(
        &self,
        statement: &Statement,
        case: &Case,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Sandbox> {
        let statements = body(statement);
        let override_statement =
            first(statements, "override").filter(|s| overrides::has_machine_part(s));
        let Some(world_statement) = first(statements, "world") else {
            let machine = ["expect", "forbid", "review"]
                .iter()
                .find_map(|k| first(statements, k));
            if let Some(s) = machine.or(override_statement) {
                diags.push(needs_world(s, case));
            }
            return None;
        };
        let schema = match &self.schema {
            Chosen::Schema(schema) => schema.clone(),
            Chosen::Reported => return None,
            Chosen::None => {
                diags.push(
                    Diagnostic::error(codes::MISSING_FIELD, "the suite names no world schema")
                        .primary(world_statement.key.span, "this world cannot be typed")
                        .help("add `world_schema std.everyday_world` (or a schema of your own) to the suite block"),
                );
                return None;
            }
        };
        let before = diags.len();
        let zone = case.timezone.as_str().parse::<chrono_tz::Tz>().ok();
        let world = records::read_world(world_statement, &schema, zone, diags);
        let request = override_statement.and_then(|s| overrides::request_id(s, &schema, diags));
        let ids = world.all_ids();
        let requests: Vec<Name> = request.iter().cloned().collect();
        let filters = FilterCx {
            schema: &schema,
            zone,
            ids: &ids,
            requests: &requests,
        };
        let machine_override = match first(statements, "override") {
            Some(s) if overrides::has_machine_part(s) => {
                overrides::read_override(s, &case.tools, self.contracts, request, &filters, diags)
            }
            Some(s) => {
                diags.push(override_without_machine_part(s));
                None
            }
            None => None,
        };
        let cx = ExpectCx {
            filters,
            contracts: self.contracts,
            offered: &case.tools,
        };
        let checks: Vec<&str> = case.checks.iter().map(|c| c.id.as_str()).collect();
        let criticals = case.critical_failures.len();
        let expectations = all(statements, "expect")
            .filter_map(|s| {
                grouped(
                    s,
                    &cx,
                    |ids, d| check_ids(ids, &checks, criticals, true, false, d),
                    diags,
                )
            })
            .collect();
        let forbidden = all(statements, "forbid")
            .filter_map(|s| {
                grouped(
                    s,
                    &cx,
                    |ids, d| check_ids(ids, &checks, criticals, false, true, d),
                    diags,
                )
            })
            .collect();
        let reviews = all(statements, "review")
            .filter_map(|s| review(s, &checks, criticals, diags))
            .collect();
        (diags.len() == before).then(|| Sandbox {
            schema,
            world,
            machine_override,
            expectations,
            forbidden,
            reviews,
            case_span: statement.span,
        })
    }
}

/// `expect IDS { … }` or `forbid IDS { … }`.
fn grouped(
    statement: &Statement,
    cx: &ExpectCx,
    valid: impl FnOnce(&[Name], &mut Vec<Diagnostic>) -> bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Expectation> {
    let key = statement.name();
    let usage = format!("{key} ID… {{ assertion … }}");
    let ids: Option<Vec<Name>> = statement
        .values
        .iter()
        .map(|v| v.as_ident().map(|_| values::text_of(v)))
        .collect();
    let (Some(ids), Some(block)) = (ids.filter(|ids| !ids.is_empty()), statement.block.as_ref())
    else {
        diags.push(
            Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`{key}` is not written as expected"),
            )
            .primary(statement.span, "expected ids and a block of assertions")
            .help(format!("write it as `{usage}`")),
        );
        return None;
    };
    let ids_ok = valid(&ids, diags);
    let assertions = expect::read_assertions(&block.statements, cx, diags);
    ids_ok.then_some(Expectation { ids, assertions })
}

/// `review IDS` or `review IDS "why a reader must judge"`.
fn review(
    statement: &Statement,
    checks: &[&str],
    criticals: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Review> {
    let (names, reason) = match statement.values.split_last() {
        Some((last, rest)) if matches!(last.kind, ValueKind::Str { .. }) => {
            (rest, Some(values::text_of(last)))
        }
        _ => (&statement.values[..], None),
    };
    if names.is_empty() || statement.block.is_some() || names.iter().any(|v| v.as_ident().is_none())
    {
        diags.push(
            Diagnostic::error(codes::BAD_ARGUMENTS, "`review` is not written as expected")
                .primary(
                    statement.span,
                    "expected check ids, then an optional reason",
                )
                .help("write it as `review A2 C1 F3 \"tone and wording are judged by a reader\"`"),
        );
        return None;
    }
    let ids: Vec<Name> = names.iter().map(values::text_of).collect();
    check_ids(&ids, checks, criticals, true, true, diags).then_some(Review { ids, reason })
}

fn unknown_schema(name: &Name, schemas: &schema::Schemas) -> Diagnostic {
    let d = Diagnostic::error(
        codes::UNKNOWN_SCHEMA,
        format!("unknown world schema `{}`", name.as_str()),
    )
    .primary(name.span, "not declared in the suite or the stdlib");
    let declared = schemas.valid.keys().chain(&schemas.invalid);
    match suggest(name.as_str(), declared.map(String::as_str)) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => {
            d.help("declare it with `schema NAME { collection … }`, or use `std.everyday_world`")
        }
    }
}

fn needs_world(statement: &Statement, case: &Case) -> Diagnostic {
    Diagnostic::error(
        codes::MISSING_FIELD,
        format!(
            "case {} has machine expectations but no `world`",
            case.id.as_str()
        ),
    )
    .primary(statement.key.span, "this needs the case's world")
    .help("add `world { … }` with the records the prose describes (it may be empty: `world {}`)")
}

fn override_without_machine_part(statement: &Statement) -> Diagnostic {
    Diagnostic::error(codes::MISSING_FIELD, "this override has no machine part")
        .primary(statement.key.span, "a case with a world needs to know what this override does")
        .help("add `when { … }` and `error CODE` (and `times`, `request`, `commits` as the prose says)")
}

/// A text's words that look like record or request ids of `schema` (M1, Q1, CT2), with
/// their byte offset in the text.
pub fn id_mentions<'t>(text: &'t str, schema: &WorldSchema) -> Vec<(usize, &'t str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &text[s..i];
                let shaped = records::id_letters(word).is_some_and(|letters| {
                    schema.collections_with_prefix(letters).next().is_some()
                        || schema.is_request_prefix(letters)
                });
                if shaped {
                    out.push((s, word));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The text of a case that names records: facts, checks, critical failures, override.
pub fn prose_of(case: &Case) -> Vec<&Text> {
    let mut texts = vec![&case.facts];
    texts.extend(case.checks.iter().map(|c| &c.requirement));
    texts.extend(case.critical_failures.iter());
    if let Some(o) = &case.tool_override {
        texts.extend([&o.matches, &o.result]);
        texts.extend(o.side_effect.iter().chain(o.verification.iter()));
    }
    texts
}

/// The contract of `tool` when the case offers it; `unoffered_tool` otherwise.
pub fn offered_contract<'a>(
    tool: &Name,
    offered: &[Name],
    contracts: &'a [ToolContract],
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a ToolContract> {
    let contract = contracts.iter().find(|c| c.name.as_str() == tool.as_str());
    if let Some(contract) = contract.filter(|_| offered.iter().any(|o| o.as_str() == tool.as_str()))
    {
        return Some(contract);
    }
    let d = Diagnostic::error(
        codes::UNOFFERED_TOOL,
        format!("this case does not offer `{}`", tool.as_str()),
    )
    .primary(tool.span, "the model under test cannot call it");
    diags.push(
        match suggest(tool.as_str(), offered.iter().map(|o| o.as_str())) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(format!(
                "the case offers: {}; add the tool to its `tools` if it should be callable",
                offered
                    .iter()
                    .map(|o| o.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    );
    None
}

/// `expect`/`forbid`/`review` ids: the case's checks, or its critical failures F1…Fn.
pub fn check_ids(
    names: &[Name],
    checks: &[&str],
    criticals: usize,
    allow_checks: bool,
    allow_criticals: bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let critical_ids: Vec<String> = (1..=criticals).map(|i| format!("F{i}")).collect();
    let mut known: Vec<&str> = Vec::new();
    if allow_checks {
        known.extend(checks.iter().copied());
    }
    if allow_criticals {
        known.extend(critical_ids.iter().map(String::as_str));
    }
    let before = diags.len();
    for name in names.iter().filter(|n| !known.contains(&n.as_str())) {
        let what = match (allow_checks, allow_criticals) {
            (true, true) => "check or critical failure",
            (true, false) => "check",
            _ => "critical failure",
        };
        let d = Diagnostic::error(
            codes::UNKNOWN_CHECK,
            format!("this case has no {what} `{}`", name.as_str()),
        )
        .primary(name.span, format!("the case has: {}", known.join(", ")));
        diags.push(match suggest(name.as_str(), known.iter().copied()) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help("checks are R1, A1…, S1, C1 as the case derives them; critical failures are F1, F2, … in the order written"),
        });
    }
    diags.len() == before
}
