//! Shared worlds: `world NAME { records… }` in suite.case, which a case's world starts
//! from with `from NAME`. A case's world is the shared world's records, but for those
//! it writes again (its own record of that id replaces the shared one, whole) and
//! those it removes (`without ID…`), then its own records. The records reader reads
//! the merged statements as if the case had written them all, so every rule of a
//! case's world (types, references, file paths) applies to the world each case
//! really has; `casec sandbox` lowers that world.
//!
//! A mistake inside a shared world is found by every case that starts from it: the
//! suite reports it once ([`SharedWorlds::report_once`]).

use std::collections::HashSet;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::Name;
use crate::resolve::keys::{body, KeySpec};
use crate::resolve::values;
use crate::source::Span;
use crate::syntax::ast::Statement;

/// The language's own statements of a world block, beside its records (`COLLECTION ID
/// { … }`): what the editor completes and explains there.
pub const WORLD_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional("from", "`from NAME`: start from the shared world `world NAME { … }` of suite.case; records written again by id replace its own."),
    KeySpec::repeated("without", "`without ID…`: remove these records of the shared world."),
    KeySpec::repeated("new", "`new COLLECTION ID…`: ids the run will create (so checks may name them)."),
];

/// The statements of a shared world `world NAME { … }`: records and `new` ids.
pub const SHARED_WORLD_KEYS: &[KeySpec<'static>] = &[KeySpec::repeated(
    "new",
    "`new COLLECTION ID…`: ids the runs will create (so checks may name them).",
)];

/// The suite's shared worlds, by name, in the order written.
#[derive(Default)]
pub struct SharedWorlds<'a> {
    worlds: Vec<(Name, &'a Statement)>,
}

impl<'a> SharedWorlds<'a> {
    /// Reads the `world NAME { … }` statements of suite.case.
    pub fn read(statements: &[&'a Statement], diags: &mut Vec<Diagnostic>) -> SharedWorlds<'a> {
        let mut worlds: Vec<(Name, &'a Statement)> = Vec::new();
        for &statement in statements {
            let usage = "world NAME { COLLECTION ID { … } … }";
            let Some(name) =
                values::args_with_block(statement, &[values::ValueType::Ident], usage, diags)
                    .map(|v| values::name_of(&v[0]))
            else {
                continue;
            };
            if statement.block.is_none() {
                diags.push(
                    Diagnostic::new(
                        codes::BAD_ARGUMENTS,
                        format!("world `{}` has no records", name.as_str()),
                    )
                    .primary(statement.span, "expected a block of records")
                    .help(format!("write it as `{usage}`")),
                );
                continue;
            }
            if let Some((_, first)) = worlds.iter().find(|(n, _)| n.as_str() == name.as_str()) {
                diags.push(crate::resolve::duplicate("world", &name, first.key.span));
                continue;
            }
            worlds.push((name, statement));
        }
        SharedWorlds { worlds }
    }

    fn named(&self, name: &str) -> Option<&'a Statement> {
        self.worlds
            .iter()
            .find(|(n, _)| n.as_str() == name)
            .map(|(_, s)| *s)
    }

    /// The statements a case's world block `own` stands for: the shared world's its
    /// `from NAME` names (but for the records it writes again or removes with
    /// `without`), then its own, without `from` and `without`; and whether they are
    /// the whole world (not when `from` names an unknown world, reported).
    pub fn merged(
        &self,
        own: &'a [Statement],
        diags: &mut Vec<Diagnostic>,
    ) -> (Vec<&'a Statement>, bool) {
        let mut base: Option<&'a Statement> = None;
        let mut unknown = false;
        let mut removed: Vec<Name> = Vec::new();
        let mut written: Vec<&'a Statement> = Vec::new();
        for statement in own {
            match statement.name() {
                "from" => match self.from(statement, base.is_some(), diags) {
                    Some(found) => base = Some(found),
                    None => unknown = true,
                },
                "without" => {
                    if let Some(ids) = values::names(statement, diags) {
                        removed.extend(ids);
                    }
                }
                _ => written.push(statement),
            }
        }
        let Some(base) = base else {
            if let Some(first) = removed.first().filter(|_| !unknown) {
                diags.push(
                    Diagnostic::new(codes::BAD_ARGUMENTS, "`without` removes records of a shared world")
                        .primary(first.span, "this world starts from no shared world")
                        .help("add `from NAME`, naming a `world NAME { … }` of suite.case, or remove `without`"),
                );
            }
            return (written, !unknown);
        };
        let shared = body(base);
        for id in &removed {
            if !shared.iter().any(|s| record_id(s) == Some(id.as_str())) {
                let ids = shared.iter().filter_map(record_id);
                let d = Diagnostic::new(
                    codes::UNKNOWN_RECORD,
                    format!("`{}` is not a record of the shared world", id.as_str()),
                )
                .primary(id.span, "nothing to remove")
                .secondary(base.key.span, "the world this case starts from");
                diags.push(match suggest(id.as_str(), ids) {
                    Some(near) => d.help(format!("did you mean `{near}`?")),
                    None => d.help("name a record the shared world writes"),
                });
            }
        }
        let own_ids: HashSet<&str> = written.iter().filter_map(|s| record_id(s)).collect();
        let kept = shared.iter().filter(|s| {
            record_id(s)
                .is_none_or(|id| !own_ids.contains(id) && !removed.iter().any(|r| r.as_str() == id))
        });
        (kept.chain(written).collect(), true)
    }

    /// The shared world a `from NAME` statement names.
    fn from(
        &self,
        statement: &Statement,
        again: bool,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&'a Statement> {
        let usage = "from NAME";
        let name = values::args(statement, &[values::ValueType::Ident], usage, diags)
            .map(|v| values::name_of(&v[0]))?;
        if again {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, "a world starts from one shared world")
                    .primary(statement.span, "a second `from`")
                    .help("keep one `from NAME`; write the other world's records in this one"),
            );
            return None;
        }
        let found = self.named(name.as_str());
        if found.is_none() {
            let names = self.worlds.iter().map(|(n, _)| n.as_str());
            let d = Diagnostic::new(
                codes::UNKNOWN_WORLD,
                format!("no shared world `{}`", name.as_str()),
            )
            .primary(name.span, "not a `world NAME { … }` of suite.case");
            diags.push(match suggest(name.as_str(), names) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help("declare `world NAME { COLLECTION ID { … } … }` in suite.case, then start from it"),
            });
        }
        found
    }

    /// Keeps one of each diagnostic found inside a shared world: every case that
    /// starts from it finds the same ones.
    pub fn report_once(&self, diags: &mut Vec<Diagnostic>) {
        let spans: Vec<Span> = self.worlds.iter().map(|(_, s)| s.span).collect();
        let inside = |span: Span| {
            spans
                .iter()
                .any(|w| w.file == span.file && w.start <= span.start && span.end <= w.end)
        };
        let mut seen = HashSet::new();
        diags.retain(|d| {
            let Some(primary) = d.labels.iter().find(|l| l.primary) else {
                return true;
            };
            if !inside(primary.span) {
                return true;
            }
            seen.insert((d.code.name, d.message.clone(), primary.span))
        });
    }
}

/// The id a record statement (`COLLECTION ID { … }`) writes.
fn record_id(statement: &Statement) -> Option<&str> {
    match statement.name() {
        "new" | "from" | "without" => None,
        _ => statement.values.first()?.as_ident(),
    }
}
