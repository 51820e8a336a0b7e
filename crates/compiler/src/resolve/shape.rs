//! Shape declarations: `shape NAME { field …; grading { … }; layout master { … } … }`.
//!
//! A shape is checked as a whole when it is read, so that a suite naming a shape that
//! reads clean gets outputs that can be built: every field has a known kind allowed at
//! its level, semantic kinds occur once, the grading names declared fields and covers
//! the three verdicts, every layout key holds a source of its context (a field, a
//! built-in, an item's part), and no layout that reaches the model — the bundle —
//! holds a field the model may not see. The model is `model::shape`.

use std::collections::HashMap;
use std::sync::Arc;

use strum::VariantArray;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::shape::{
    Builtin, CallPart, CheckCount, Derivation, Dimension, Entry, Evidence, Export, ExportFile,
    ExportFormat, FeatureTag, FieldDecl, FileContent, Grading, ImportDefaults, Item, JudgedOn,
    Kind, Layout, LayoutSource, Level, Outcome, Part, Reward, RewardValue, Shape, Slot, TurnEntry,
    TurnSource, Verdict, Visibility,
};
use crate::model::Name;
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use super::keys::{self, all, body, first, KeySpec};
use super::values::{self, ValueType};

const fn key(
    key: &'static str,
    required: bool,
    repeated: bool,
    doc: &'static str,
) -> KeySpec<'static> {
    KeySpec {
        key,
        required,
        repeated,
        doc,
    }
}

/// The statements of a `shape` block.
pub const SHAPE_KEYS: &[KeySpec<'static>] = &[
    key("doc", false, false, "What benchmarks of this shape are."),
    key(
        "suite_field",
        false,
        true,
        "`suite_field KEY KIND [required] [VISIBILITY]`: a field of the suite block.",
    ),
    key(
        "field",
        false,
        true,
        "`field KEY KIND [required] [inherited] [VISIBILITY] [quotable]`: a field of every case.",
    ),
    key(
        "grading",
        false,
        false,
        "`grading { dimension …; derive …; outcome …; tag … }`: how cases are graded.",
    ),
    key(
        "template",
        false,
        true,
        "`template NAME { key source … }`: layout entries to `include`.",
    ),
    key(
        "layout",
        false,
        true,
        "`layout master|bundle|result { key source … }`: where outputs put fields.",
    ),
    key(
        "export",
        false,
        true,
        "`export NAME jsonl|folders { … }`: another benchmark's format.",
    ),
    key(
        "import",
        false,
        false,
        "`import { profile NAME; world_schema NAME }`: what `casec import` gives a suite.",
    ),
];

pub const IMPORT_KEYS: &[KeySpec<'static>] = &[
    key(
        "profile",
        false,
        false,
        "The stdlib profile an imported suite applies.",
    ),
    key(
        "world_schema",
        false,
        false,
        "The world schema whose tools an imported suite names.",
    ),
];

pub const FIELD_KEYS: &[KeySpec<'static>] = &[
    key("doc", false, false, "What the field holds."),
    key(
        "one_of",
        false,
        false,
        "For text and names fields: the words a value must be one of.",
    ),
    key(
        "at_most",
        false,
        false,
        "For repeated kinds: the most statements allowed.",
    ),
    key(
        "at_least",
        false,
        false,
        "For repeated kinds: the fewest statements required.",
    ),
];

pub const REWARD_KEYS: &[KeySpec<'static>] = &[key(
    "reward",
    false,
    true,
    "`reward KEY passed|share|DIMENSION [if FIELD WORD]`: a key of the reward file the evaluator writes.",
)];

pub const GRADING_KEYS: &[KeySpec<'static>] = &[
    key(
        "dimension",
        false,
        true,
        "`dimension NAME LETTER exactly N|at_least N`: a check dimension.",
    ),
    key(
        "derive",
        false,
        true,
        "`derive DIMENSION FIELD`: the checks a field makes.",
    ),
    key(
        "outcome",
        false,
        true,
        "`outcome passed|failed|undecided NAME`: what a verdict is called.",
    ),
    key(
        "tag",
        false,
        true,
        "`tag TAG FIELD`: a tag that promises the case has the field.",
    ),
    key(
        "judged_on",
        false,
        true,
        "`judged_on DIMENSION|critical reply|trace|final_state…`: what a judge reads for review items (default: all three).",
    ),
];

/// Every shape declared in the stdlib and the suite's files, by name (`std.` for the
/// stdlib). Invalid declarations are reported and left out.
pub fn read_shapes(
    statements: &[(&Statement, bool)],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<String, Arc<Shape>> {
    let mut out: HashMap<String, Arc<Shape>> = HashMap::new();
    for (statement, stdlib) in statements {
        let Some(shape) = read_shape(statement, *stdlib, diags) else {
            continue;
        };
        if let Some(first) = out.get(shape.name.as_str()) {
            diags.push(super::duplicate("shape", &shape.name, first.name.span));
            continue;
        }
        out.insert(shape.name.as_str().to_string(), Arc::new(shape));
    }
    out
}

/// The names `shape` statements declare, read or not (`std.` for the stdlib): a suite
/// naming a shape that did not read is not told the shape is unknown.
pub fn declared_names(statements: &[(&Statement, bool)]) -> Vec<String> {
    statements
        .iter()
        .filter_map(|(s, stdlib)| {
            let name = s.values.first()?.as_ident()?;
            Some(if *stdlib {
                format!("std.{name}")
            } else {
                name.to_string()
            })
        })
        .collect()
}

fn read_shape(statement: &Statement, stdlib: bool, diags: &mut Vec<Diagnostic>) -> Option<Shape> {
    let header = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "shape NAME { field … }",
        diags,
    )?;
    let name = values::declared_name(&header[0], stdlib);
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[SHAPE_KEYS],
        &format!("shape `{}`", name.as_str()),
        name.span,
        diags,
    );
    let before = diags.len();
    let doc = first(statements, "doc").and_then(|s| values::text(s, diags));
    let suite_fields = read_fields(all(statements, "suite_field"), Level::Suite, diags);
    let case_fields = read_fields(all(statements, "field"), Level::Case, diags);
    let grading = match first(statements, "grading") {
        Some(s) => read_grading(s, &case_fields, diags),
        None => Grading::default(),
    };
    check_derived(&case_fields, &grading, diags);
    let templates = read_templates(statements, diags);
    let cx = LayoutCx {
        suite: &suite_fields,
        case: &case_fields,
        templates: &templates,
        grading: &grading,
    };
    let mut layouts: HashMap<&str, Layout> = HashMap::new();
    for s in all(statements, "layout") {
        if let Some((which, layout)) = read_named_layout(s, &cx, diags) {
            if layouts.insert(which, layout).is_some() {
                diags.push(
                    Diagnostic::new(
                        codes::SHAPE_DEFINITION,
                        format!("layout `{which}` is declared twice"),
                    )
                    .primary(s.key.span, "declared again here")
                    .help("keep one layout of each output"),
                );
            }
        }
    }
    let exports = all(statements, "export")
        .filter_map(|s| read_export(s, &cx, diags))
        .collect();
    let import =
        first(statements, "import").map_or_else(ImportDefaults::default, |s| read_import(s, diags));
    for which in ["master", "bundle", "result"] {
        if !layouts.contains_key(which) {
            diags.push(
                shape_error(format!("shape `{}` has no `layout {which}`", name.as_str()), name.span, "declared without it")
                    .help(format!("declare `layout {which} {{ … }}`: std.casec's (stdlib/casec.case) is an example")),
            );
        }
    }
    if let Some(result) = layouts.get("result") {
        record_keys(result, &grading, &name, diags);
    }
    if diags.len() > before {
        return None;
    }
    let mut take = |which: &str| layouts.remove(which).unwrap_or_default();
    Some(Shape {
        name,
        doc,
        suite_fields,
        case_fields,
        grading,
        master: take("master"),
        bundle: take("bundle"),
        result: take("result"),
        exports,
        import,
    })
}

fn read_import(statement: &Statement, diags: &mut Vec<Diagnostic>) -> ImportDefaults {
    let Some(block) = values::block_only(statement, diags) else {
        return ImportDefaults::default();
    };
    keys::check_keys(
        &block.statements,
        &[IMPORT_KEYS],
        "the import block",
        statement.key.span,
        diags,
    );
    let name = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(&block.statements, key).and_then(|s| values::name(s, diags))
    };
    ImportDefaults {
        profile: name("profile", diags),
        world_schema: name("world_schema", diags),
    }
}

/// The result layout holds, at its top level, what `casec report` reads of a record
/// (the case id, the outcome, the check results and the triggered critical failures)
/// and what the judge reads (the critical failures pending review, and the evidence the
/// grading's `judged_on` names).
fn record_keys(result: &Layout, grading: &Grading, shape: &Name, diags: &mut Vec<Diagnostic>) {
    let mut needed = vec![
        Builtin::CaseId,
        Builtin::Outcome,
        Builtin::CheckResults,
        Builtin::Triggered,
        Builtin::PendingReview,
    ];
    let declared = grading.judged_on.iter().flat_map(|j| &j.evidence);
    for evidence in declared {
        if !needed.contains(&evidence.source()) {
            needed.push(evidence.source());
        }
    }
    let missing: Vec<&str> = needed
        .into_iter()
        .filter(|b| result.key_of(*b).is_none())
        .map(Builtin::as_str)
        .collect();
    if missing.is_empty() {
        return;
    }
    let at = result.span.unwrap_or(shape.span);
    diags.push(
        shape_error(
            format!(
                "the result layout of `{}` does not hold {}",
                shape.as_str(),
                missing.join(", ")
            ),
            at,
            "records of this layout could not be reported or judged",
        )
        .help(format!(
            "add a top-level key for each: `KEY {}`",
            missing.join("`, `KEY ")
        )),
    );
}

fn shape_error(message: String, span: Span, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(codes::SHAPE_DEFINITION, message).primary(span, label)
}

/// `field KEY KIND [required] [inherited] [VISIBILITY] [quotable] { doc; at_most; at_least }`.
fn read_fields<'a>(
    statements: impl Iterator<Item = &'a Statement>,
    level: Level,
    diags: &mut Vec<Diagnostic>,
) -> Vec<FieldDecl> {
    let mut out: Vec<FieldDecl> = Vec::new();
    for statement in statements {
        let Some(field) = read_field(statement, level, diags) else {
            continue;
        };
        if let Some(first) = out.iter().find(|f| f.key.as_str() == field.key.as_str()) {
            diags.push(super::duplicate("field", &field.key, first.key.span));
            continue;
        }
        // A shape may have several checks fields (each derived into its own
        // dimension); every other semantic kind means one thing, once.
        if !field.kind.plain() && field.kind != Kind::Checks {
            if let Some(first) = out.iter().find(|f| f.kind == field.kind) {
                diags.push(
                    shape_error(
                        format!("two fields of kind `{}`", field.kind.as_str()),
                        field.key.span,
                        "a second one",
                    )
                    .secondary(first.key.span, "the first")
                    .help(
                        "a kind the sandbox or the checks give meaning to occurs once in a shape",
                    ),
                );
                continue;
            }
        }
        out.push(field);
    }
    out
}

fn read_field(
    statement: &Statement,
    level: Level,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldDecl> {
    let usage = match level {
        Level::Suite => "suite_field KEY KIND [required] [VISIBILITY] [quotable] { doc \"…\" }",
        _ => "field KEY KIND [required] [inherited] [VISIBILITY] [quotable] { doc \"…\" }",
    };
    let words: Option<Vec<Name>> = statement
        .values
        .iter()
        .map(|v| v.as_ident().map(|_| values::name_of(v)))
        .collect();
    let Some([key, kind, flags @ ..]) = words.as_deref() else {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` is not written as expected", statement.name()),
            )
            .primary(statement.span, "expected a key and a kind, as names")
            .help(format!("write it as `{usage}`")),
        );
        return None;
    };
    let kind = read_kind(kind, level, diags)?;
    let (mut required, mut inherited, mut visibility) = (false, false, None);
    let mut quotable: Option<&Name> = None;
    for flag in flags {
        match flag.as_str() {
            "required" => required = true,
            "quotable" => quotable = Some(flag),
            "inherited" if level == Level::Case => inherited = true,
            "inherited" => {
                diags.push(
                    shape_error(
                        format!("suite field `{}` cannot be `inherited`", key.as_str()),
                        flag.span,
                        "only a case field is inherited",
                    )
                    .help("remove `inherited`: cases inherit case fields from the suite block, a category or a profile; a suite field belongs to the suite"),
                );
                return None;
            }
            word => match word.parse::<Visibility>().ok() {
                Some(v) if visibility.is_none() => visibility = Some(v),
                Some(_) => {
                    diags.push(shape_error(
                        format!("field `{}` has two visibilities", key.as_str()),
                        flag.span,
                        "a second visibility",
                    ));
                    return None;
                }
                None => {
                    let words: Vec<&str> = ["required", "inherited", "quotable"]
                        .into_iter()
                        .chain(Visibility::VARIANTS.iter().map(|v| v.as_str()))
                        .collect();
                    let d = shape_error(
                        format!("`{word}` is not a field flag"),
                        flag.span,
                        "not known here",
                    );
                    diags.push(match suggest(word, words.iter().copied()) {
                        Some(near) => d.help(format!("did you mean `{near}`?")),
                        None => d.help(format!("flags: {}", words.join(", "))),
                    });
                    return None;
                }
            },
        }
    }
    // Hidden unless said otherwise: a forgotten visibility never reaches a model.
    let visibility = visibility.unwrap_or(Visibility::Evaluator);
    if let Some(flag) = quotable.filter(|_| visibility != Visibility::Model) {
        diags.push(
            shape_error(
                format!("field `{}` is `quotable` but not shown to the model", key.as_str()),
                flag.span,
                format!("a `{}` field", visibility.as_str()),
            )
            .help("`quotable` marks a `model` field whose words hidden texts may repeat (a policy the checks quote); add `model`, or remove `quotable`"),
        );
        return None;
    }
    let block = body(statement);
    keys::check_keys(block, &[FIELD_KEYS], "a field block", key.span, diags);
    let doc = first(block, "doc").and_then(|s| values::text(s, diags));
    let count = |name: &str, diags: &mut Vec<Diagnostic>| {
        let s = first(block, name)?;
        let n = values::number(s, diags)?;
        n.value.as_u64().and_then(|n| usize::try_from(n).ok())
    };
    let (at_most, at_least) = (
        count("at_most", diags),
        count("at_least", diags).unwrap_or(0),
    );
    let one_of = first(block, "one_of")
        .and_then(|s| values::names(s, diags))
        .unwrap_or_default();
    if !one_of.is_empty() && !matches!(kind, Kind::Text | Kind::Names) {
        diags.push(
            shape_error(
                format!("field `{}` cannot be constrained to words", key.as_str()),
                key.span,
                "`one_of` applies to text and names fields",
            )
            .help("remove `one_of`"),
        );
        return None;
    }
    if (at_most.is_some() || at_least > 0) && !kind.repeated() {
        diags.push(
            shape_error(format!("field `{}` is not repeated", key.as_str()), key.span, format!("`{}` takes one statement", kind.as_str()))
                .help("`at_most` and `at_least` count the statements of a repeated kind (texts, checks, override, …)"),
        );
        return None;
    }
    Some(FieldDecl {
        key: key.clone(),
        kind,
        required: required || at_least > 0,
        inherited,
        visibility,
        quotable: quotable.is_some(),
        at_most,
        at_least,
        one_of,
        doc,
        span: statement.span,
    })
}

fn read_kind(word: &Name, level: Level, diags: &mut Vec<Diagnostic>) -> Option<Kind> {
    match word.as_str().parse::<Kind>().ok() {
        Some(kind) if kind.level() == Level::Both || kind.level() == level => Some(kind),
        Some(kind) => {
            let place = if kind.level() == Level::Suite {
                "the suite block (`suite_field`)"
            } else {
                "cases (`field`)"
            };
            diags.push(shape_error(
                format!("kind `{}` belongs to {place}", word.as_str()),
                word.span,
                "not at this level",
            ));
            None
        }
        None => {
            let names = Kind::VARIANTS
                .iter()
                .filter(|kind| kind.level() == Level::Both || kind.level() == level)
                .map(|kind| kind.as_str());
            let d = shape_error(
                format!("unknown field kind `{}`", word.as_str()),
                word.span,
                "not a kind",
            );
            diags.push(match suggest(word.as_str(), names.clone()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("kinds: {}", names.collect::<Vec<_>>().join(", "))),
            });
            None
        }
    }
}

/// Every `checks` field is derived into a dimension: a case's statements of it would
/// otherwise make no check and vanish from every output.
fn check_derived(fields: &[FieldDecl], grading: &Grading, diags: &mut Vec<Diagnostic>) {
    for (id, field) in fields.iter().enumerate() {
        if field.kind != Kind::Checks || grading.derivations.iter().any(|d| d.field == id) {
            continue;
        }
        let example = grading
            .dimensions
            .first()
            .map_or("DIMENSION", |d| d.name.as_str());
        diags.push(
            shape_error(
                format!("checks field `{}` is derived into no dimension", field.key.as_str()),
                field.key.span,
                "its statements would make no check",
            )
            .help(format!(
                "add `derive {example} {}` to the shape's `grading` block (declaring the dimension there)",
                field.key.as_str()
            )),
        );
    }
}

fn read_grading(
    statement: &Statement,
    fields: &[FieldDecl],
    diags: &mut Vec<Diagnostic>,
) -> Grading {
    let Some(block) = values::block_only(statement, diags) else {
        return Grading::default();
    };
    let statements = &block.statements;
    keys::check_keys(
        statements,
        &[GRADING_KEYS],
        "the grading block",
        statement.key.span,
        diags,
    );
    let mut grading = Grading::default();
    for s in all(statements, "dimension") {
        if let Some(d) = read_dimension(s, &grading, diags) {
            grading.dimensions.push(d);
        }
    }
    for s in all(statements, "derive") {
        let Some(v) = values::args(
            s,
            &[ValueType::Ident, ValueType::Ident],
            "derive DIMENSION FIELD",
            diags,
        ) else {
            continue;
        };
        let (dimension, field) = (values::name_of(&v[0]), values::name_of(&v[1]));
        if grading.dimension(dimension.as_str()).is_none() {
            diags.push(unknown(
                &dimension,
                "dimension",
                grading.dimensions.iter().map(|d| d.name.as_str()),
            ));
            continue;
        }
        let Some(id) = field_id(&field, fields, diags) else {
            continue;
        };
        if !matches!(fields[id].kind, Kind::Text | Kind::Checks) {
            diags.push(
                shape_error(format!("field `{}` cannot make checks", field.as_str()), field.span, format!("it is `{}`", fields[id].kind.as_str()))
                    .help("derive checks from a `text` field (one check) or a `checks` field (one per statement)"),
            );
            continue;
        }
        grading.derivations.push(Derivation {
            dimension,
            field: id,
        });
    }
    for s in all(statements, "outcome") {
        let Some(v) = values::args(
            s,
            &[ValueType::Ident, ValueType::Ident],
            "outcome passed|failed|undecided NAME",
            diags,
        ) else {
            continue;
        };
        let (verdict, name) = (values::name_of(&v[0]), values::name_of(&v[1]));
        let Ok(verdict) = verdict.as_str().parse::<Verdict>() else {
            diags.push(unknown(
                &verdict,
                "verdict",
                Verdict::VARIANTS.iter().map(|v| v.as_str()),
            ));
            continue;
        };
        if grading.outcomes.iter().any(|o| o.verdict == verdict) {
            diags.push(shape_error(
                format!("verdict `{}` is named twice", verdict.as_str()),
                v[0].span,
                "named again here",
            ));
            continue;
        }
        grading.outcomes.push(Outcome { verdict, name });
    }
    if !grading.outcomes.is_empty() && grading.outcomes.len() < Verdict::VARIANTS.len() {
        let missing: Vec<&str> = Verdict::VARIANTS
            .iter()
            .filter(|v| !grading.outcomes.iter().any(|o| o.verdict == **v))
            .map(|v| v.as_str())
            .collect();
        diags.push(
            shape_error(
                format!("the grading names no outcome for {}", missing.join(", ")),
                statement.key.span,
                "every verdict needs a name",
            )
            .help(format!("add `outcome {} NAME`", missing[0])),
        );
    }
    for s in all(statements, "tag") {
        let Some(v) = values::args(
            s,
            &[ValueType::Ident, ValueType::Ident],
            "tag TAG FIELD",
            diags,
        ) else {
            continue;
        };
        let (tag, field) = (values::name_of(&v[0]), values::name_of(&v[1]));
        if let Some(id) = field_id(&field, fields, diags) {
            grading.feature_tags.push(FeatureTag { tag, field: id });
        }
    }
    for s in all(statements, "judged_on") {
        if let Some(j) = read_judged_on(s, &grading, diags) {
            grading.judged_on.push(j);
        }
    }
    grading
}

/// The word of `judged_on` that means critical failures rather than a dimension.
const CRITICAL: &str = "critical";

/// `judged_on DIMENSION|critical EVIDENCE…`.
fn read_judged_on(
    statement: &Statement,
    grading: &Grading,
    diags: &mut Vec<Diagnostic>,
) -> Option<JudgedOn> {
    let usage = "judged_on DIMENSION|critical reply|trace|final_state…";
    let words: Vec<Option<&str>> = statement.values.iter().map(|v| v.as_ident()).collect();
    let (Some(Some(target)), true) = (
        words.first(),
        words.len() >= 2 && words.iter().all(Option::is_some),
    ) else {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                "`judged_on` is not written as expected",
            )
            .primary(
                statement.span,
                "expected a dimension (or `critical`) and the evidence a judge reads",
            )
            .help(format!(
                "write it as `{usage}`, e.g. `judged_on communication reply trace`"
            )),
        );
        return None;
    };
    let target_value = &statement.values[0];
    let dimension = if *target == CRITICAL {
        None
    } else {
        let name = values::name_of(target_value);
        if grading.dimension(name.as_str()).is_none() {
            diags.push(unknown(
                &name,
                "dimension",
                grading
                    .dimensions
                    .iter()
                    .map(|d| d.name.as_str())
                    .chain([CRITICAL]),
            ));
            return None;
        }
        Some(name)
    };
    if grading
        .judged_on
        .iter()
        .any(|j| j.dimension.as_ref().map(Name::as_str) == dimension.as_ref().map(Name::as_str))
    {
        diags.push(shape_error(
            format!("`judged_on {target}` is given twice"),
            target_value.span,
            "given again here",
        ));
        return None;
    }
    let mut evidence = Vec::new();
    for (value, word) in statement.values.iter().zip(&words).skip(1) {
        let word = word.unwrap_or_default();
        let Ok(e) = word.parse::<Evidence>() else {
            let names = Evidence::VARIANTS.iter().map(|e| e.as_str());
            let d = shape_error(
                format!("unknown evidence `{word}`"),
                value.span,
                "not something a judge reads",
            );
            diags.push(match suggest(word, names.clone()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!(
                    "a judge reads {}",
                    names.collect::<Vec<_>>().join(", ")
                )),
            });
            return None;
        };
        if !evidence.contains(&e) {
            evidence.push(e);
        }
    }
    evidence.sort();
    Some(JudgedOn {
        dimension,
        evidence,
    })
}

/// `dimension NAME LETTER exactly N` or `… at_least N`.
fn read_dimension(
    statement: &Statement,
    grading: &Grading,
    diags: &mut Vec<Diagnostic>,
) -> Option<Dimension> {
    let usage = "dimension NAME LETTER exactly N` or `dimension NAME LETTER at_least N";
    let bad = |diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                "`dimension` is not written as expected",
            )
            .primary(statement.span, "expected a name, a letter, and a count")
            .help(format!("write it as `{usage}`")),
        );
    };
    let [name, letter, rule, count] = statement.values.as_slice() else {
        bad(diags);
        return None;
    };
    let n = match &count.kind {
        ValueKind::Number(n) => n.parse::<usize>().ok(),
        _ => None,
    };
    let count = match (rule.as_ident(), n) {
        (Some("exactly"), Some(n)) => CheckCount::Exactly(n),
        (Some("at_least"), Some(n)) => CheckCount::AtLeast(n),
        _ => {
            bad(diags);
            return None;
        }
    };
    let (name, letter) = (values::name_of(name), values::name_of(letter));
    if !letter.as_str().chars().all(|c| c.is_ascii_uppercase()) || letter.as_str().is_empty() {
        diags.push(
            shape_error(
                format!("`{}` is not a check letter", letter.as_str()),
                letter.span,
                "check ids are capitals, then digits",
            )
            .help("write the letters in capitals, e.g. `R`"),
        );
        return None;
    }
    if let Some(other) = grading
        .dimensions
        .iter()
        .find(|d| d.letter.as_str() == letter.as_str() || d.name.as_str() == name.as_str())
    {
        diags.push(
            shape_error(
                format!("dimension `{}` repeats a name or letter", name.as_str()),
                name.span,
                "declared again",
            )
            .secondary(other.name.span, "first here"),
        );
        return None;
    }
    Some(Dimension {
        name,
        letter,
        count,
    })
}

fn field_id(name: &Name, fields: &[FieldDecl], diags: &mut Vec<Diagnostic>) -> Option<usize> {
    let found = fields.iter().position(|f| f.key.as_str() == name.as_str());
    if found.is_none() {
        diags.push(unknown(
            name,
            "case field",
            fields.iter().map(|f| f.key.as_str()),
        ));
    }
    found
}

fn unknown<'a>(
    name: &Name,
    what: &str,
    known: impl Iterator<Item = &'a str> + Clone,
) -> Diagnostic {
    let d = shape_error(
        format!("unknown {what} `{}`", name.as_str()),
        name.span,
        format!("not a {what} of this shape"),
    );
    match suggest(name.as_str(), known.clone()) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(format!(
            "declared: {}",
            known.collect::<Vec<_>>().join(", ")
        )),
    }
}

fn read_templates<'a>(
    statements: &'a [Statement],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<&'a str, &'a Statement> {
    let mut out = HashMap::new();
    for s in all(statements, "template") {
        let Some(v) = values::args_with_block(
            s,
            &[ValueType::Ident],
            "template NAME { key source … }",
            diags,
        ) else {
            continue;
        };
        if out.insert(v[0].as_ident().unwrap_or_default(), s).is_some() {
            diags.push(shape_error(
                "a template is declared twice".into(),
                v[0].span,
                "declared again here",
            ));
        }
    }
    out
}

/// What layout keys are read against.
struct LayoutCx<'a> {
    suite: &'a [FieldDecl],
    case: &'a [FieldDecl],
    templates: &'a HashMap<&'a str, &'a Statement>,
    /// The dimensions an evaluator's `reward` may name.
    grading: &'a Grading,
}

/// Where a layout is: its level, whether it reaches the model, whether a run's results
/// are in scope, and the item whose parts it lays out.
#[derive(Clone, Copy)]
struct Context {
    level: Level,
    model: bool,
    run: bool,
    item: Option<Item>,
}

fn read_named_layout<'s>(
    statement: &Statement,
    cx: &LayoutCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<(&'s str, Layout)> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "layout master|bundle|result { key source … }",
        diags,
    )?;
    let (which, context) = match v[0].as_ident() {
        Some("master") => (
            "master",
            Context {
                level: Level::Suite,
                model: false,
                run: false,
                item: None,
            },
        ),
        Some("bundle") => (
            "bundle",
            Context {
                level: Level::Case,
                model: true,
                run: false,
                item: None,
            },
        ),
        Some("result") => (
            "result",
            Context {
                level: Level::Case,
                model: false,
                run: true,
                item: None,
            },
        ),
        _ => {
            diags.push(
                shape_error("unknown layout".into(), v[0].span, "not an output of casec")
                    .help("declare `layout master` (the evaluator's file), `layout bundle` (what a model sees) or `layout result` (a result record); other formats are `export`s"),
            );
            return None;
        }
    };
    let mut layout = read_layout(body(statement), context, cx, 0, diags);
    layout.span = Some(statement.key.span);
    Some((which, layout))
}

/// How deep templates may include each other: more is a cycle.
const INCLUDE_DEPTH: usize = 16;

fn read_layout(
    statements: &[Statement],
    context: Context,
    cx: &LayoutCx,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
) -> Layout {
    let mut layout = Layout::default();
    for statement in statements {
        if statement.name() == "include" && !statement.key.quoted {
            layout
                .entries
                .extend(include(statement, context, cx, depth, diags));
            continue;
        }
        let key = Name::new(statement.name(), statement.key.span);
        if let Some(first) = layout
            .entries
            .iter()
            .find(|e| e.key.as_str() == key.as_str())
        {
            diags.push(super::duplicate("layout key", &key, first.key.span));
            continue;
        }
        if let Some(value) = slot(statement, context, cx, depth, diags) {
            layout.entries.push(Entry { key, value });
        }
    }
    layout
}

fn include(
    statement: &Statement,
    context: Context,
    cx: &LayoutCx,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Entry> {
    let Some(name) = values::name(statement, diags) else {
        return Vec::new();
    };
    let Some(template) = cx.templates.get(name.as_str()) else {
        diags.push(unknown(&name, "template", cx.templates.keys().copied()));
        return Vec::new();
    };
    if depth >= INCLUDE_DEPTH {
        diags.push(shape_error(
            format!("template `{}` includes itself", name.as_str()),
            name.span,
            "a cycle of includes",
        ));
        return Vec::new();
    }
    read_layout(body(template), context, cx, depth + 1, diags).entries
}

/// `KEY SOURCE`, `KEY SOURCE { item layout }` or `KEY { nested layout }`.
fn slot(
    statement: &Statement,
    context: Context,
    cx: &LayoutCx,
    depth: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Slot> {
    let block = statement.block.as_ref().map(|b| &b.statements[..]);
    let name = match statement.values.as_slice() {
        [] => {
            return Some(Slot::Object(read_layout(
                block.unwrap_or(&[]),
                context,
                cx,
                depth,
                diags,
            )))
        }
        [value] if value.as_ident().is_some() => values::name_of(value),
        _ => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!(
                        "layout key `{}` is not written as expected",
                        statement.name()
                    ),
                )
                .primary(statement.span, "expected one source, as a name")
                .help("write `KEY SOURCE`, `KEY SOURCE { item layout }` or `KEY { nested keys }`"),
            );
            return None;
        }
    };
    let (source, item) = source(&name, context, cx, diags)?;
    let items = match (block, item) {
        (Some(block), Some(item)) => {
            let inner = match item {
                // A case's layout is a case context of its own.
                ItemOf::Case => Context {
                    level: Level::Case,
                    item: None,
                    ..context
                },
                ItemOf::Part(item) => Context {
                    item: Some(item),
                    ..context
                },
            };
            Some(read_layout(block, inner, cx, depth, diags))
        }
        (Some(_), None) => {
            diags.push(
                shape_error(
                    format!("`{}` holds one value, not items", name.as_str()),
                    name.span,
                    "a block lays out items",
                )
                .help("remove the block"),
            );
            return None;
        }
        (None, Some(ItemOf::Case)) => {
            diags.push(
                shape_error(
                    "`cases` needs the layout of a case".into(),
                    name.span,
                    "each case is laid out by the block",
                )
                .help("write `cases cases { case_id id; … }`"),
            );
            return None;
        }
        (None, _) => None,
    };
    Some(Slot::Source { source, items })
}

/// What a source's items are laid out as.
enum ItemOf {
    Case,
    Part(Item),
}

/// The source `name` names in `context`, and the kind of its items when it has several.
fn source(
    name: &Name,
    context: Context,
    cx: &LayoutCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<(LayoutSource, Option<ItemOf>)> {
    if let Some(item) = context.item {
        return match Part::named(item, name.as_str()) {
            Some(part) => Some((LayoutSource::Part(part), None)),
            None => {
                diags.push(unknown(name, "part of this item", Part::names(item)));
                None
            }
        };
    }
    let fields = match context.level {
        Level::Suite => cx.suite,
        _ => cx.case,
    };
    if let Some(id) = fields.iter().position(|f| f.key.as_str() == name.as_str()) {
        let field = &fields[id];
        if context.model && field.visibility != Visibility::Model {
            diags.push(hidden_in_bundle(name, field));
            return None;
        }
        return Some((LayoutSource::Field(id), item_of_kind(field.kind)));
    }
    if let Some(key) = name
        .as_str()
        .strip_prefix("suite.")
        .filter(|_| context.level == Level::Case)
    {
        let Some(id) = cx.suite.iter().position(|f| f.key.as_str() == key) else {
            diags.push(unknown(
                &Name::new(key, name.span),
                "suite field",
                cx.suite.iter().map(|f| f.key.as_str()),
            ));
            return None;
        };
        if context.model && cx.suite[id].visibility != Visibility::Model {
            diags.push(hidden_in_bundle(name, &cx.suite[id]));
            return None;
        }
        return Some((
            LayoutSource::SuiteField(id),
            item_of_kind(cx.suite[id].kind),
        ));
    }
    let usable = |b: &Builtin| {
        (b.level() == Level::Both || b.level() == context.level) && (context.run || !b.of_run())
    };
    let builtin = name.as_str().parse::<Builtin>().ok().filter(usable);
    let Some(builtin) = builtin else {
        let known = fields.iter().map(|f| f.key.as_str()).chain(
            Builtin::VARIANTS
                .iter()
                .filter(|b| usable(b))
                .map(|b| b.as_str()),
        );
        diags.push(unknown(name, "source", known));
        return None;
    };
    if context.model
        && matches!(
            builtin,
            Builtin::CaseTitle | Builtin::AllChecks | Builtin::WebFaults
        )
    {
        diags.push(
            shape_error(
                format!("`{}` cannot be shown to the model", name.as_str()),
                name.span,
                "the bundle holds only what the model may see",
            )
            .help("titles, checks and injected faults are not the model's; remove the key from the bundle layout"),
        );
        return None;
    }
    let item = match builtin {
        Builtin::Tools => Some(ItemOf::Part(Item::Tool)),
        Builtin::Categories => Some(ItemOf::Part(Item::Category)),
        Builtin::AllChecks => Some(ItemOf::Part(Item::Check)),
        Builtin::Cases => Some(ItemOf::Case),
        _ => None,
    };
    Some((LayoutSource::Builtin(builtin), item))
}

fn item_of_kind(kind: Kind) -> Option<ItemOf> {
    match kind {
        // Laid out one by one, a case's tools are their contracts.
        Kind::Tools => Some(ItemOf::Part(Item::Tool)),
        Kind::Override => Some(ItemOf::Part(Item::Override)),
        Kind::Followup => Some(ItemOf::Part(Item::Followup)),
        Kind::Conversation => Some(ItemOf::Part(Item::Turn)),
        Kind::Checks => Some(ItemOf::Part(Item::Check)),
        Kind::Revisions => Some(ItemOf::Part(Item::Revision)),
        _ => None,
    }
}

fn hidden_in_bundle(name: &Name, field: &FieldDecl) -> Diagnostic {
    let who = match field.visibility {
        Visibility::Person => "only the simulated person and the harness may read",
        Visibility::Harness => "only the harness may read",
        Visibility::Evaluator => "only the evaluator may read",
        Visibility::Public | Visibility::Model => "is not the model's",
    };
    shape_error(
        format!("the bundle would show `{}`, which {who}", name.as_str()),
        name.span,
        "the model may not see this field",
    )
    .secondary(field.key.span, format!("declared {} here", field.visibility.as_str()))
    .help("a bundle holds only fields declared `model`; remove the key, or declare the field `model` if the model is meant to see it")
}

/// `export NAME jsonl { … }` or `export NAME folders { file …; seed …; evaluator … }`.
fn read_export(
    statement: &Statement,
    cx: &LayoutCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Export> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident, ValueType::Ident],
        "export NAME jsonl|folders { … }",
        diags,
    )?;
    let name = values::name_of(&v[0]);
    let case = Context {
        level: Level::Case,
        model: false,
        run: false,
        item: None,
    };
    let format = match v[1].as_ident() {
        Some("jsonl") => ExportFormat::JsonLines(read_layout(body(statement), case, cx, 0, diags)),
        Some("folders") => ExportFormat::Folders(
            body(statement)
                .iter()
                .filter_map(|s| export_file(s, case, cx, diags))
                .collect(),
        ),
        Some("turns") => ExportFormat::Turns(turn_entries(body(statement), v[0].span, diags)),
        _ => {
            diags.push(
                shape_error("unknown export format".into(), v[1].span, "not a format").help(
                    "formats: jsonl (one object per case per line), folders (one folder per case), turns (one object per turn of each observed conversation)",
                ),
            );
            return None;
        }
    };
    Some(Export { name, format })
}

/// The keys of a `turns` export: `KEY SOURCE [json_text] [{ KEY PART … }]` each. The
/// rows must say which conversation and what the person said (`episode`, `message`), and
/// an ending's satisfaction or verdict needs its reason, or an import could not read
/// them back.
fn turn_entries(
    statements: &[Statement],
    export: Span,
    diags: &mut Vec<Diagnostic>,
) -> Vec<TurnEntry> {
    let mut entries: Vec<TurnEntry> = Vec::new();
    for statement in statements {
        let key = Name::new(statement.name(), statement.key.span);
        if let Some(first) = entries.iter().find(|e| e.key.as_str() == key.as_str()) {
            diags.push(super::duplicate("turn key", &key, first.key.span));
            continue;
        }
        if let Some(entry) = turn_entry(statement, key, diags) {
            entries.push(entry);
        }
    }
    let has = |source: TurnSource| entries.iter().any(|e| e.source == source);
    let mut needed = vec![TurnSource::Episode, TurnSource::Message];
    if has(TurnSource::Satisfaction) || has(TurnSource::Verdict) {
        needed.push(TurnSource::EndReason);
    }
    for source in needed.into_iter().filter(|s| !has(*s)) {
        diags.push(
            shape_error(
                format!("this turns export has no key of `{}`", source.as_str()),
                export,
                "its rows could not be read back",
            )
            .help(format!(
                "add `KEY {}` to the export's block",
                source.as_str()
            )),
        );
    }
    entries
}

fn turn_entry(statement: &Statement, key: Name, diags: &mut Vec<Diagnostic>) -> Option<TurnEntry> {
    let usage = "KEY SOURCE [json_text] [{ KEY PART … }]";
    let words: Vec<Name> = statement
        .values
        .iter()
        .map(|v| v.as_ident().map(|_| values::name_of(v)))
        .collect::<Option<_>>()
        .unwrap_or_default();
    let (source, json_text) = match words.as_slice() {
        [source] => (source, false),
        [source, json] if json.as_str() == "json_text" => (source, true),
        _ => {
            diags.push(
                shape_error(
                    format!("turn key `{}` is not written as expected", key.as_str()),
                    statement.span,
                    "expected a source, then `json_text` or nothing",
                )
                .help(format!("write `{usage}`")),
            );
            return None;
        }
    };
    let Ok(turn_source) = source.as_str().parse::<TurnSource>() else {
        diags.push(unknown(
            source,
            "turn source",
            TurnSource::VARIANTS
                .iter()
                .map(|s| -> &'static str { s.into() }),
        ));
        return None;
    };
    let block = statement.block.as_ref().map(|b| &b.statements[..]);
    let call_parts = match (turn_source, block) {
        (TurnSource::Calls, Some(block)) => call_parts(block, statement.span, diags)?,
        (TurnSource::Calls, None) => {
            diags.push(
                shape_error(format!("`{}` needs its calls' keys", key.as_str()), statement.span, "no block")
                    .help("lay out each call: `{ tool tool; arguments arguments; result result; failed failed }`"),
            );
            return None;
        }
        (_, Some(_)) => {
            diags.push(
                shape_error(
                    format!("`{}` holds one value, not calls", source.as_str()),
                    statement.span,
                    "a block lays out calls",
                )
                .help("remove the block: only `calls` has one"),
            );
            return None;
        }
        (_, None) => Vec::new(),
    };
    Some(TurnEntry {
        key,
        source: turn_source,
        json_text,
        call_parts,
    })
}

/// `KEY PART` each: the keys of a call in a turn's row (of the `calls` statement at
/// `calls`), one of them its `tool`.
fn call_parts(
    statements: &[Statement],
    calls: Span,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<(Name, CallPart)>> {
    let before = diags.len();
    let mut parts: Vec<(Name, CallPart)> = Vec::new();
    for statement in statements {
        let Some(part) = values::name(statement, diags) else {
            continue;
        };
        let key = Name::new(statement.name(), statement.key.span);
        let first = parts.iter().find(|(k, _)| k.as_str() == key.as_str());
        match (part.as_str().parse::<CallPart>(), first) {
            (Ok(_), Some((first, _))) => diags.push(super::duplicate("call key", &key, first.span)),
            (Ok(call_part), None) => parts.push((key, call_part)),
            (Err(_), _) => diags.push(unknown(
                &part,
                "call part",
                CallPart::VARIANTS
                    .iter()
                    .map(|s| -> &'static str { s.into() }),
            )),
        }
    }
    if diags.len() == before && !parts.iter().any(|(_, p)| *p == CallPart::Tool) {
        diags.push(
            shape_error(
                "the calls have no key of `tool`".into(),
                calls,
                "each call names its tool",
            )
            .help("add `KEY tool` to the calls' block"),
        );
    }
    (diags.len() == before).then_some(parts)
}

/// `reward KEY passed|share|DIMENSION [if FIELD WORD]` (repeated): the keys of the reward
/// file an exported evaluator writes.
fn read_rewards(
    evaluator: &Statement,
    cx: &LayoutCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Reward>> {
    let before = diags.len();
    let block = body(evaluator);
    keys::check_keys(
        block,
        &[REWARD_KEYS],
        "an evaluator block",
        evaluator.key.span,
        diags,
    );
    let mut rewards: Vec<Reward> = Vec::new();
    for statement in block.iter().filter(|s| s.name() == "reward") {
        let words: Option<Vec<Name>> = statement
            .values
            .iter()
            .map(|v| v.as_ident().map(|_| values::name_of(v)))
            .collect();
        let (key, value, only_if) = match words.as_deref() {
            Some([key, value]) => (key, value, None),
            Some([key, value, word_if, field, word]) if word_if.as_str() == "if" => {
                (key, value, Some((field.clone(), word.clone())))
            }
            _ => {
                diags.push(
                    Diagnostic::new(codes::BAD_ARGUMENTS, "`reward` is not written as expected")
                        .primary(statement.span, "expected a key, a value and an optional `if FIELD WORD`, as names")
                        .help("write `reward KEY passed`, `reward KEY share` or `reward KEY DIMENSION [if FIELD WORD]`"),
                );
                continue;
            }
        };
        let value = match value.as_str() {
            "passed" => RewardValue::Passed,
            "share" => RewardValue::Share,
            name if cx.grading.dimension(name).is_some() => RewardValue::Dimension(value.clone()),
            name => {
                let dimensions = cx.grading.dimensions.iter().map(|d| d.name.as_str());
                let values: Vec<&str> = ["passed", "share"].into_iter().chain(dimensions).collect();
                let d = shape_error(
                    format!("`{name}` is not a reward value"),
                    value.span,
                    "not `passed`, `share` or a dimension",
                );
                diags.push(match suggest(name, values.iter().copied()) {
                    Some(near) => d.help(format!("did you mean `{near}`?")),
                    None => d.help(format!("write one of: {}", values.join(", "))),
                });
                continue;
            }
        };
        if let Some((field, _)) = &only_if {
            let known = cx.case.iter().find(|f| f.key.as_str() == field.as_str());
            if !known.is_some_and(|f| matches!(f.kind, Kind::Names | Kind::Text | Kind::Category)) {
                diags.push(
                    shape_error(format!("`{}` is not a case field of words", field.as_str()), field.span, "a reward's condition reads this field")
                        .help("name a `names`, `text` or `category` field of the case, whose words the condition looks for"),
                );
                continue;
            }
        }
        if let Some(first) = rewards.iter().find(|r| r.key.as_str() == key.as_str()) {
            diags.push(super::duplicate("reward", key, first.key.span));
            continue;
        }
        rewards.push(Reward {
            key: key.clone(),
            value,
            only_if,
        });
    }
    (diags.len() == before).then_some(rewards)
}

/// One file of a folder export.
fn export_file(
    statement: &Statement,
    context: Context,
    cx: &LayoutCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<ExportFile> {
    let usage = "file \"PATH\" text SOURCE`, `file \"PATH\" json|yaml { layout }`, `seed \"FOLDER\" [from \"/PREFIX\"]`, `web \"FOLDER\"` or `evaluator \"FOLDER\" { reward KEY VALUE … }";
    let bad = |diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` is not written as expected", statement.name()),
            )
            .primary(statement.span, "not a file of a folder export")
            .help(format!("write `{usage}`")),
        );
    };
    let Some((path, rest)) = statement
        .values
        .split_first()
        .filter(|(p, _)| p.as_str().is_some())
    else {
        bad(diags);
        return None;
    };
    let path = values::text_of(path);
    // `seed "FOLDER" from "/PREFIX"` ends with a string; every other value is a name.
    let rest = match (statement.name(), rest) {
        ("seed", [from, prefix]) if prefix.as_str().is_some() => std::slice::from_ref(from),
        _ => rest,
    };
    let names: Vec<Name> = rest
        .iter()
        .filter(|v| v.as_ident().is_some())
        .map(values::name_of)
        .collect();
    if names.len() != rest.len() {
        bad(diags);
        return None;
    }
    // The path is inside the case's folder: relative, and never climbing out.
    let inside = !path.as_str().is_empty()
        && !path.as_str().starts_with('/')
        && path
            .as_str()
            .split(['/', '\\'])
            .all(|part| !part.is_empty() && part != "..");
    if !inside {
        diags.push(
            shape_error(format!("`{}` is not a path inside a case's folder", path.as_str()), path.span, "an export writes here")
                .help("write a relative path of names separated by `/`, such as `evaluator` or `meta/task.yaml`"),
        );
        return None;
    }
    let content = match (statement.name(), names.as_slice()) {
        ("file", [format, source]) if format.as_str() == "text" => {
            let (source, _) = self::source(source, context, cx, diags)?;
            FileContent::Text(source)
        }
        ("file", [format]) if format.as_str() == "json" || format.as_str() == "yaml" => {
            let layout = read_layout(body(statement), context, cx, 0, diags);
            if format.as_str() == "json" {
                FileContent::Json(layout)
            } else {
                FileContent::Yaml(layout)
            }
        }
        ("seed", []) => FileContent::Seed { from: None },
        ("seed", [word]) if word.as_str() == "from" => match statement.values.get(2) {
            Some(v) if v.as_str().is_some_and(|p| p.starts_with('/')) => FileContent::Seed {
                from: Some(values::text_of(v)),
            },
            _ => {
                bad(diags);
                return None;
            }
        },
        ("web", []) => FileContent::Web,
        ("evaluator", []) => FileContent::Evaluator {
            rewards: read_rewards(statement, cx, diags)?,
        },
        _ => {
            bad(diags);
            return None;
        }
    };
    Some(ExportFile { path, content })
}
