//! Executable sandbox initialisation: typed worlds, machine overrides, expectations.
//!
//! A suite names a world schema (`world_schema std.everyday_world`, declared in `.case`
//! syntax by [`schema`]); each case may then describe what its sandbox loads:
//!
//! * `world { … }`: typed records ([`records`]), checked field by field ([`value`],
//!   [`crate::model::time`]);
//! * the machine part of its `override` ([`overrides`]): which calls it intercepts and
//!   what they return and write;
//! * `expect`, `forbid` and `review`: assertions over the final state and the tool trace
//!   that decide its checks and critical failures ([`expect`], [`filters`]; their
//!   sandbox JSON in [`crate::lower::sandbox`]).
//!
//! The resolver calls [`SuiteWorld::sandbox`] for every case that resolved; the checks
//! that need the whole case and its source text run afterwards, in the world checks of
//! `casec check`;
//! [`crate::lower::stats`] counts what a machine can decide.
//! Nothing here reaches the master JSON: the sandbox file has its own lowering
//! (`lower::sandbox`). The authoring guide is docs/worlds.md.

pub mod expect;
pub mod filters;
pub mod overrides;
pub mod records;
pub mod schema;
pub mod shared;
pub mod value;

use std::sync::Arc;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::tool::Tool;
use crate::model::{Case, Name};
use crate::resolve::keys::{all, body, first};
use crate::resolve::values;
use crate::syntax::ast::{Statement, ValueKind};

use crate::model::expect::{
    critical_id, global_critical_id, Expectation, FileStore, MachineOverride, Review, Sandbox,
};
use crate::model::world::WorldSchema;

use expect::ExpectCx;
use filters::FilterCx;
pub use shared::SharedWorlds;

/// The schema the suite block names with `world_schema`, among those declared.
pub fn chosen_schema(
    schemas: &schema::Schemas,
    suite: &Statement,
    diags: &mut Vec<Diagnostic>,
) -> Chosen {
    let statement = first(body(suite), "world_schema");
    let chosen = statement.and_then(|s| values::name(s, diags));
    match (statement, chosen) {
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
    }
}

/// The world schema a suite applies, its tools and how many critical failures of its
/// own every case inherits (GF1, GF2, …), for reading case worlds.
pub struct SuiteWorld<'a> {
    schema: Chosen,
    tools: &'a [Tool],
    /// The worlds cases may start from (`world NAME { … }`).
    shared: &'a SharedWorlds<'a>,
    /// The file store the tools' `files.*` services agree on, if any.
    files: Option<FileStore>,
    global_criticals: usize,
}

/// The schema the suite block chose.
pub enum Chosen {
    Schema(Arc<WorldSchema>),
    /// No `world_schema` statement.
    None,
    /// A `world_schema` that names an unknown or invalid schema: reported once, and
    /// not again for every case with a world.
    Reported,
}

impl Chosen {
    /// Whether a `world_schema` named an unknown or invalid schema (reported).
    pub fn reported(&self) -> bool {
        matches!(self, Chosen::Reported)
    }

    /// The schema, when one was named and is valid.
    pub fn schema(&self) -> Option<&Arc<WorldSchema>> {
        match self {
            Chosen::Schema(schema) => Some(schema),
            Chosen::None | Chosen::Reported => None,
        }
    }
}

impl<'a> SuiteWorld<'a> {
    pub fn new(
        schema: Chosen,
        tools: &'a [Tool],
        global_criticals: usize,
        shared: &'a SharedWorlds<'a>,
    ) -> SuiteWorld<'a> {
        SuiteWorld {
            schema,
            shared,
            files: crate::model::tool::file_store(tools).and_then(Result::ok),
            tools,
            global_criticals,
        }
    }

    /// The sandbox of one resolved case (`None` when it has no world or errors).
    pub fn sandbox(
        &self,
        statement: &Statement,
        case: &Case,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Sandbox> {
        let statements = body(statement);
        let override_statements: Vec<&Statement> = all(statements, "override").collect();
        let Some(world_statement) = first(statements, "world") else {
            let machine = ["expect", "forbid", "review"]
                .iter()
                .find_map(|k| first(statements, k));
            let machine_override = override_statements
                .iter()
                .copied()
                .find(|s| overrides::has_machine_part(s));
            if let Some(s) = machine.or(machine_override) {
                diags.push(needs_world(s, case));
            }
            return None;
        };
        let schema = match &self.schema {
            Chosen::Schema(schema) => schema.clone(),
            Chosen::Reported => return None,
            Chosen::None => {
                diags.push(
                    Diagnostic::new(codes::MISSING_FIELD, "the suite names no world schema")
                        .primary(world_statement.key.span, "this world cannot be typed")
                        .help("add `world_schema NAME` to the suite block, naming a schema of the stdlib or your own"),
                );
                return None;
            }
        };
        let before = diags.len();
        let zone = case
            .timezone
            .as_ref()
            .and_then(|z| z.as_str().parse::<chrono_tz::Tz>().ok());
        let world = records::read_world(
            world_statement,
            &schema,
            zone,
            self.files.as_ref(),
            self.shared,
            diags,
        );
        // Request ids first: any override's conditions and the expectations may name
        // any of them.
        let requests: Vec<Option<Name>> = override_statements
            .iter()
            .map(|s| overrides::request_id(s, &schema, diags))
            .collect();
        let ids = world.all_ids();
        let issued: Vec<Name> = requests.iter().flatten().cloned().collect();
        let filters = FilterCx {
            schema: &schema,
            zone,
            ids: (!world.partial).then_some(&ids),
            requests: &issued,
        };
        let machine_overrides: Vec<MachineOverride> = override_statements
            .iter()
            .zip(requests)
            .filter_map(|(s, request)| {
                if !overrides::has_machine_part(s) {
                    diags.push(override_without_machine_part(s));
                    return None;
                }
                overrides::read_override(s, &case.tools, self.tools, request, &filters, diags)
            })
            .collect();
        let cx = ExpectCx {
            filters,
            tools: self.tools,
            offered: &case.tools,
            followups: case.followups.len(),
        };
        let checks: Vec<&str> = case.checks.iter().map(|c| c.id.as_str()).collect();
        let criticals = (case.critical_failures.len(), self.global_criticals);
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
            overrides: machine_overrides,
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
    let ids: Option<Vec<Name>> = statement
        .values
        .iter()
        .map(|v| v.as_ident().map(|_| values::name_of(v)))
        .collect();
    let (Some(ids), Some(block)) = (ids.filter(|ids| !ids.is_empty()), statement.block.as_ref())
    else {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{key}` is not written as expected"),
            )
            .primary(statement.span, "expected ids and a block of assertions")
            .help(format!("write it as `{key} ID… {{ assertion … }}`")),
        );
        return None;
    };
    let ids_ok = valid(&ids, diags);
    let assertions = expect::read_assertions(statement, block, cx, diags);
    ids_ok.then_some(Expectation { ids, assertions })
}

/// `review IDS` or `review IDS "why a reader must judge"`.
fn review(
    statement: &Statement,
    checks: &[&str],
    criticals: (usize, usize),
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
            Diagnostic::new(codes::BAD_ARGUMENTS, "`review` is not written as expected")
                .primary(
                    statement.span,
                    "expected check ids, then an optional reason",
                )
                .help("write it as `review A2 C1 F3 \"tone and wording are judged by a reader\"`"),
        );
        return None;
    }
    let ids: Vec<Name> = names.iter().map(values::name_of).collect();
    check_ids(&ids, checks, criticals, true, true, diags).then_some(Review { ids, reason })
}

fn unknown_schema(name: &Name, schemas: &schema::Schemas) -> Diagnostic {
    let d = Diagnostic::new(
        codes::UNKNOWN_SCHEMA,
        format!("unknown world schema `{}`", name.as_str()),
    )
    .primary(name.span, "not declared in the suite or the stdlib");
    let declared = schemas.valid.keys().chain(&schemas.invalid);
    match suggest(name.as_str(), declared.map(String::as_str)) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(
            "declare it with `schema NAME { collection … }`, or name a schema the stdlib declares",
        ),
    }
}

fn needs_world(statement: &Statement, case: &Case) -> Diagnostic {
    Diagnostic::new(
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
    Diagnostic::new(codes::MISSING_FIELD, "this override has no machine part")
        .primary(statement.key.span, "a case with a world needs to know what this override does")
        .help("add `when { … }` and `error CODE` (and `times`, `request`, `commits` as the prose says)")
}

/// A text's words that look like record or request ids of `schema` (M1, Q1, CT2), with
/// their byte offset in the text.
pub fn id_mentions<'t>(text: &'t str, schema: &WorldSchema) -> Vec<(usize, &'t str)> {
    crate::model::world::ascii_words(text)
        .filter(|(_, word)| {
            // An id starts with a capital and holds a digit: most words of prose do
            // neither, and are passed over without a look at the schema.
            let bytes = word.as_bytes();
            bytes[0].is_ascii_uppercase()
                && bytes.iter().any(u8::is_ascii_digit)
                && crate::model::world::id_letters(word).is_some_and(|letters| {
                    schema.collections_with_prefix(letters).next().is_some()
                        || schema.is_request_prefix(letters)
                })
        })
        .collect()
}

/// The declaration of `tool` when the case offers it; `unoffered_tool` otherwise.
pub fn offered_tool<'a>(
    tool: &Name,
    offered: &[Name],
    tools: &'a [Tool],
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Tool> {
    let contract = tools.iter().find(|c| c.name.as_str() == tool.as_str());
    if let Some(contract) = contract.filter(|_| offered.iter().any(|o| o.as_str() == tool.as_str()))
    {
        return Some(contract);
    }
    let d = Diagnostic::new(
        codes::UNOFFERED_TOOL,
        format!("this case does not offer `{}`", tool.as_str()),
    )
    .primary(tool.span, "the model under test cannot call it");
    diags.push(
        match suggest(tool.as_str(), offered.iter().map(|o| o.as_str())) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None if offered.is_empty() => d.help(
                "the case offers no tools: give it (or its suite) a `tools` statement that names this one",
            ),
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

/// `expect`/`forbid`/`review` ids: the case's checks, or the critical failures that
/// apply to it: its own F1…Fn and the suite's GF1…GFm (`criticals` counts both).
pub fn check_ids(
    names: &[Name],
    checks: &[&str],
    criticals: (usize, usize),
    allow_checks: bool,
    allow_criticals: bool,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    // Most names are checks (or there are none): the critical failures' ids are only
    // spelled out when a name is not.
    if allow_checks && names.iter().all(|n| checks.contains(&n.as_str())) {
        return true;
    }
    let (own, global) = criticals;
    let critical_ids: Vec<String> = (0..own)
        .map(critical_id)
        .chain((0..global).map(global_critical_id))
        .collect();
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
        let d = Diagnostic::new(
            codes::UNKNOWN_CHECK,
            format!("this case has no {what} `{}`", name.as_str()),
        )
        .primary(name.span, format!("the case has: {}", known.join(", ")));
        diags.push(match suggest(name.as_str(), known.iter().copied()) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help("checks are the ids the case derives (its dimensions' letters, numbered) or writes; critical failures are F1, F2, … in the order written, then the suite's GF1, GF2, …"),
        });
    }
    diags.len() == before
}
