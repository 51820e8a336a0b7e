//! One case block, read against the suite's shape: its own statements over the
//! defaults it inherits.
//!
//! Checks come in two modes, both following the shape's grading. Without explicit ids,
//! each derivation makes checks in order: a text field one (`need` is R1), a checks
//! field one per statement (`check` lines are A1, A2, …); a check derived from a field
//! the case inherits rather than writes is marked inherited. As soon as one check
//! statement (of any checks field) carries an id, the case lists every check itself, in
//! the order written, and each takes its dimension from its id's letter (or its own
//! `dimension`).

use std::collections::HashMap;

use arcstr::ArcStr;

use crate::diag::codes::{self, Code};
use crate::diag::{did_you_mean, suggest, Diagnostic};
use crate::model::shape::{Derivation, FieldDecl, Kind, Shape};
use crate::model::{Case, Check, Name, Text, ToolOverride, Turn};
use crate::source::Span;
use crate::syntax::ast::Statement;

use super::defaults::{read_layer, Defaults, Profiles};
use super::fields::{self, Given, WrittenCheck};
use super::keys::{body, KeySpec};
use super::values::{self, ValueType};

/// The case block's own statements, beside the shape's fields.
pub const CASE_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "profile",
        required: false,
        repeated: true,
        doc: "Apply a named profile (the case's own fields win).",
    },
    KeySpec {
        key: "allow",
        required: false,
        repeated: true,
        doc: "Allow a warning code for this case.",
    },
    KeySpec {
        key: "world",
        required: false,
        repeated: false,
        doc: "`world { COLLECTION ID { field value } }`: the records the sandbox loads.",
    },
    KeySpec {
        key: "expect",
        required: false,
        repeated: true,
        doc: "`expect CHECK… { assertion… }`: assertions that decide these checks.",
    },
    KeySpec {
        key: "forbid",
        required: false,
        repeated: true,
        doc: "`forbid F1… { assertion… }`: when a critical failure is committed.",
    },
    KeySpec {
        key: "review",
        required: false,
        repeated: true,
        doc: "`review ID… [\"why\"]`: checks or critical failures a reader judges.",
    },
];

/// What a case is resolved against.
pub struct Context<'a> {
    pub shape: &'a Shape,
    /// The suite's defaults, for a case whose category is missing or unknown.
    pub suite: &'a Defaults,
    pub categories: &'a [(Name, Defaults)],
    pub tags: &'a [Name],
    pub tools: &'a [Name],
    /// The statements a case block accepts.
    pub case_keys: fields::BlockKeys<'a>,
    /// False when the suite's world schema, which declares tools, was named wrongly or
    /// is invalid: that error is reported once, and no case's tool is called unknown.
    pub tools_known: bool,
    /// Check ids and dimension names, allocated once: a large suite would otherwise
    /// hold a copy of each in every check.
    pub names: HashMap<String, ArcStr>,
}

impl<'a> Context<'a> {
    pub fn new(
        shape: &'a Shape,
        suite: &'a Defaults,
        categories: &'a [(Name, Defaults)],
        tags: &'a [Name],
        tools: &'a [Name],
    ) -> Context<'a> {
        let mut names: HashMap<String, ArcStr> = HashMap::new();
        for dimension in &shape.grading.dimensions {
            names.insert(
                dimension.name.as_str().to_string(),
                dimension.name.value.clone(),
            );
            for n in 1..=32 {
                let id = format!("{}{n}", dimension.letter.as_str());
                names.insert(id.clone(), ArcStr::from(id.as_str()));
            }
        }
        Context {
            shape,
            suite,
            categories,
            tags,
            tools,
            case_keys: fields::BlockKeys::of(&shape.case_fields, CASE_KEYS),
            tools_known: true,
            names,
        }
    }

    fn shared(&self, name: &str) -> ArcStr {
        self.names
            .get(name)
            .cloned()
            .unwrap_or_else(|| ArcStr::from(name))
    }
}

pub fn header(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<(Name, Text, Span)> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident, ValueType::Str],
        "case ID \"Title\" { … }",
        diags,
    )?;
    let span = statement.key.span.to(v[1].span);
    Some((values::name_of(&v[0]), values::text_of(&v[1]), span))
}

/// A field's value for a case, and whether the case inherits it rather than writes it.
struct Found {
    given: Given,
    inherited: bool,
}

pub fn case(
    statement: &Statement,
    cx: &Context,
    profiles: &Profiles,
    diags: &mut Vec<Diagnostic>,
) -> Option<Case> {
    let (id, title, span) = header(statement, diags)?;
    let statements = body(statement);
    let keyed = fields::Keyed::new(statements);
    let shape = cx.shape;
    cx.case_keys.check(
        statements,
        format_args!("case {}", id.as_str()),
        span,
        diags,
    );
    let before = diags.len();

    let category = shape
        .case_field(Kind::Category)
        .and_then(|f| fields::read(&shape.case_fields[f], &keyed, diags));
    let category = match category {
        Some(Given::Name(name)) => Some(name),
        _ => None,
    };
    let base = match &category {
        Some(c) => category_defaults(c, cx, diags),
        None => Some(cx.suite),
    };
    // Without a known category, what the case inherits is unknown too: it falls back
    // to the suite's defaults, and fields its category might have set are not reported
    // as missing (they would only repeat the category's error).
    let category_known = base.is_some();
    let layer = read_layer(&keyed, shape, diags);
    let inherited = profiles.stack(base.unwrap_or(cx.suite), &layer, diags);

    let mut missing = Vec::new();
    let mut absent_required = false;
    let mut found: Vec<Option<Found>> = Vec::with_capacity(shape.case_fields.len());
    for (field_id, field) in shape.case_fields.iter().enumerate() {
        let value = if field.inherited {
            let written = layer.own.get(field_id).is_some();
            inherited.get(field_id).map(|given| Found {
                given: given.into_owned(),
                inherited: !written,
            })
        } else if field.kind == Kind::Category {
            category.clone().map(|c| Found {
                given: Given::Name(c),
                inherited: false,
            })
        } else {
            fields::read(field, &keyed, diags).map(|given| Found {
                given,
                inherited: false,
            })
        };
        if value.is_none() && field.required && field.inherited {
            missing.push(missing_default(field.key.as_str(), span, &id));
        }
        // A missing required field of the case's own was reported with its keys; the
        // case cannot be built without it.
        absent_required |=
            value.is_none() && field.required && !field.inherited && field.at_least == 0;
        found.push(value);
    }
    if category_known {
        diags.append(&mut missing);
    }

    let mut case = Case::empty(id, title, span, statement.span);
    case.category = category;
    case.allows = statements
        .iter()
        .filter(|s| s.name() == "allow")
        .filter_map(|s| values::names(s, diags))
        .flatten()
        .collect();
    let conversation_given = shape
        .case_field(Kind::Conversation)
        .is_some_and(|f| found[f].is_some());
    // Sized to the plain fields found, not grown by doubling: a large suite's cases
    // would otherwise keep up to half of these slots empty.
    let plain = found
        .iter()
        .enumerate()
        .filter(|(f, v)| v.is_some() && shape.case_fields[*f].kind.form().is_some())
        .count();
    case.reserve_values(plain);
    for (field_id, value) in found.iter_mut().enumerate() {
        if let Some(value) = value {
            if let Some(given) = taken(value, field_id, shape) {
                place(&mut case, field_id, shape.case_fields[field_id].kind, given);
            }
        }
    }
    if !conversation_given {
        if let Some(user) = &case.user {
            case.conversation = vec![Turn {
                role: Name::new(arcstr::literal!("user"), user.span),
                content: user.clone(),
            }];
        }
    }
    if shape.case_field(Kind::Tools).is_none() {
        // A shape without a tools field offers every tool of the suite.
        case.tools = cx.tools.to_vec();
    }
    check_names(&case, cx, diags);
    let mut missing_checks = Vec::new();
    case.checks = checks(&keyed, &found, cx, diags, &mut missing_checks).unwrap_or_default();
    if category_known {
        diags.append(&mut missing_checks);
    }
    (diags.len() == before && !absent_required).then_some(case)
}

/// A found value for the case to keep, moved out of `found`; copied for the texts its
/// checks derive from, which [`checks`] reads later. Checks and evidence are for
/// [`checks`] too, and not kept as they are.
fn taken(found: &mut Found, field: usize, shape: &Shape) -> Option<Given> {
    match found.given {
        Given::Checks(_) | Given::Evidence(_) => None,
        _ if shape.grading.derivations.iter().any(|d| d.field == field) => {
            Some(found.given.clone())
        }
        _ => Some(std::mem::replace(
            &mut found.given,
            Given::Names(Vec::new()),
        )),
    }
}

/// Puts a field's value where the model keeps values of its kind.
fn place(case: &mut Case, field: usize, kind: Kind, given: Given) {
    match (kind, given) {
        (_, Given::Plain(value)) => case.set_value(field, Some(value)),
        (Kind::Tags, Given::Names(names)) => case.tags = names,
        (Kind::Tools, Given::Names(names)) => case.tools = names,
        (Kind::Clock, Given::Text(t)) => case.clock = Some(t),
        (Kind::Timezone, Given::Text(t)) => case.timezone = Some(t),
        (Kind::UserMessage, Given::Text(t)) => case.user = Some(t),
        (Kind::UnscriptedReply, Given::Text(t)) => case.unscripted_reply = Some(t),
        (Kind::Conversation, Given::Turns(turns)) => case.conversation = turns,
        (Kind::Override, Given::Overrides(o)) => case.overrides = o,
        (Kind::Followup, Given::Followups(f)) => case.followups = f,
        (Kind::CriticalFailures, Given::Texts(t)) => case.critical_failures = t,
        _ => {}
    }
}

/// Tags from the vocabulary, tools and overridden tools the suite declares.
fn check_names(case: &Case, cx: &Context, diags: &mut Vec<Diagnostic>) {
    for tag in &case.tags {
        known(
            tag,
            cx.tags,
            codes::UNKNOWN_TAG,
            "tag",
            "the suite's `tags`",
            diags,
        );
    }
    let tools = case
        .tools
        .iter()
        .chain(case.overrides.iter().map(|o: &ToolOverride| &o.tool));
    for tool in tools.filter(|_| cx.tools_known) {
        known(
            tool,
            cx.tools,
            codes::UNKNOWN_TOOL,
            "tool",
            "the suite's tools (its world schema's and its own)",
            diags,
        );
    }
}

fn category_defaults<'a>(
    category: &Name,
    cx: &'a Context,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Defaults> {
    let found = cx
        .categories
        .iter()
        .find(|(n, _)| n.as_str() == category.as_str());
    if found.is_none() {
        let names: Vec<Name> = cx.categories.iter().map(|(n, _)| n.clone()).collect();
        known(
            category,
            &names,
            codes::UNKNOWN_CATEGORY,
            "category",
            "the suite's `category` declarations",
            diags,
        );
    }
    found.map(|(_, d)| d)
}

fn known(
    name: &Name,
    candidates: &[Name],
    code: &'static Code,
    what: &str,
    source: &str,
    diags: &mut Vec<Diagnostic>,
) {
    if candidates.iter().any(|c| c.as_str() == name.as_str()) {
        return;
    }
    let d = Diagnostic::new(code, format!("unknown {what} `{}`", name.as_str()))
        .primary(name.span, format!("not declared in {source}"));
    let d = match suggest(name.as_str(), candidates.iter().map(|c| c.as_str())) {
        Some(near) => did_you_mean(d, name.span, near),
        None => {
            let list: Vec<&str> = candidates.iter().map(|c| c.as_str()).collect();
            d.help(format!(
                "declared: {}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ))
        }
    };
    diags.push(d);
}

fn missing_default(key: &str, span: Span, id: &Name) -> Diagnostic {
    Diagnostic::new(
        codes::MISSING_FIELD,
        format!("case {} has no `{key}`", id.as_str()),
    )
    .primary(
        span,
        format!("no `{key}` here or in what this case inherits"),
    )
    .help(format!(
        "set `{key}` in the case, its category, a profile it applies, or the suite"
    ))
}

/// The case's checks. Checks that lack an inherited value (their evidence) are reported
/// into `missing`, everything else into `diags`.
fn checks(
    statements: &fields::Keyed,
    found: &[Option<Found>],
    cx: &Context,
    diags: &mut Vec<Diagnostic>,
    missing: &mut Vec<Diagnostic>,
) -> Option<Vec<Check>> {
    let shape = cx.shape;
    // Every `check`-like statement, with the checks field it was written in (a shape
    // may have several: DonnaBench's positive and negative checks).
    let mut written: Vec<(usize, WrittenCheck)> = Vec::new();
    for (field, value) in found.iter().enumerate() {
        if let Some(Found {
            given: Given::Checks(checks),
            ..
        }) = value
        {
            written.extend(checks.iter().cloned().map(|c| (field, c)));
        }
    }
    let evidence: Vec<(String, Text)> = shape
        .case_field(Kind::Evidence)
        .and_then(|f| match &found[f] {
            Some(Found {
                given: Given::Evidence(e),
                ..
            }) => Some(e.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let builder = Builder {
        cx,
        evidence: &evidence,
        wants_evidence: shape.case_field(Kind::Evidence).is_some(),
    };
    let before = (diags.len(), missing.len());
    let out = if written.iter().any(|(_, c)| c.id.is_some()) {
        builder.explicit(written, diags, missing)
    } else {
        builder.derived(statements, found, written, missing)
    };
    ((diags.len(), missing.len()) == before).then_some(out?)
}

struct Builder<'a> {
    cx: &'a Context<'a>,
    evidence: &'a [(String, Text)],
    wants_evidence: bool,
}

impl Builder<'_> {
    /// A check; its evidence from its own block or the inherited evidence of its
    /// dimension (reported missing when the shape gives checks evidence and none is).
    #[allow(clippy::too_many_arguments)]
    fn check(
        &self,
        id: Name,
        dimension: Name,
        requirement: Text,
        evidence: Option<Text>,
        origin: (Span, Option<usize>),
        inherited: bool,
        missing: &mut Vec<Diagnostic>,
    ) -> Option<Check> {
        let (span, source) = origin;
        let evidence = evidence.or_else(|| {
            self.evidence
                .iter()
                .find(|(d, _)| d == dimension.as_str())
                .map(|(_, t)| t.clone())
        });
        if evidence.is_none() && self.wants_evidence {
            missing.push(
                Diagnostic::new(codes::MISSING_FIELD, format!("check {} has no evidence", id.as_str()))
                    .primary(span, format!("no evidence for dimension `{}`", dimension.as_str()))
                    .help(format!(
                        "add `evidence {} \"…\"` to the suite, a profile or the case, or `{{ evidence \"…\" }}` to the check",
                        dimension.as_str()
                    )),
            );
            return None;
        }
        Some(Check {
            id,
            dimension,
            requirement,
            evidence,
            span,
            source,
            inherited,
        })
    }

    fn name(&self, name: &str, span: Span) -> Name {
        Name::new(self.cx.shared(name), span)
    }

    /// Checks with their own ids, in the order written.
    fn explicit(
        &self,
        mut written: Vec<(usize, WrittenCheck)>,
        diags: &mut Vec<Diagnostic>,
        missing: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Check>> {
        let grading = &self.cx.shape.grading;
        written.sort_by_key(|(_, c)| (c.span.file, c.span.start));
        let mut out = Vec::with_capacity(written.len());
        let mut failed = false;
        for (field, check) in written {
            let Some(cid) = check.id else {
                failed = true;
                diags.push(
                    Diagnostic::new(codes::BAD_ARGUMENTS, "this check has no id while others in the case do")
                        .primary(check.requirement.span, "give this check an id")
                        .help("once one check has an explicit id, every check of the case needs one (e.g. `check A2 \"…\"`)"),
                );
                continue;
            };
            let dimension = match (check.dimension, grading.dimension_of_id(cid.as_str())) {
                (Some(d), _) => d,
                (None, Some(d)) => self.name(d.name.as_str(), cid.span),
                (None, None) => {
                    failed = true;
                    let letters: Vec<&str> = grading
                        .dimensions
                        .iter()
                        .map(|d| d.letter.as_str())
                        .collect();
                    diags.push(
                        Diagnostic::new(
                            codes::UNKNOWN_DIMENSION,
                            format!("no dimension for check id `{}`", cid.as_str()),
                        )
                        .primary(cid.span, "this id's letter names no dimension")
                        .help(format!(
                            "start the id with a dimension's letter: {}",
                            letters.join(", ")
                        )),
                    );
                    continue;
                }
            };
            let origin = (check.span, Some(field));
            out.extend(self.check(
                cid,
                dimension,
                check.requirement,
                check.evidence,
                origin,
                false,
                missing,
            ));
        }
        (!failed).then_some(out)
    }

    fn derived(
        &self,
        statements: &fields::Keyed,
        found: &[Option<Found>],
        written: Vec<(usize, WrittenCheck)>,
        missing: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Check>> {
        let shape = self.cx.shape;
        // Sized to the most checks the derivations can give: a case holds its checks
        // to the end, and a list grown by doubling kept up to half of it spare.
        let at_most = |derivation: &Derivation| match shape.case_fields[derivation.field].kind {
            Kind::Text => 1,
            Kind::Checks => written
                .iter()
                .filter(|(f, _)| *f == derivation.field)
                .count(),
            _ => 0,
        };
        let mut out = Vec::with_capacity(shape.grading.derivations.iter().map(at_most).sum());
        for derivation in &shape.grading.derivations {
            let Some(dimension) = shape.grading.dimension(derivation.dimension.as_str()) else {
                continue;
            };
            let field: &FieldDecl = &shape.case_fields[derivation.field];
            let letter = dimension.letter.as_str();
            match (field.kind, &found[derivation.field]) {
                (
                    Kind::Text,
                    Some(Found {
                        given: Given::Plain(crate::model::Value::Text(text)),
                        inherited,
                    }),
                ) => {
                    let span = if *inherited {
                        text.span
                    } else {
                        fields::statements_of(statements, field.key.as_str())
                            .first()
                            .map_or(text.span, |s| s.span)
                    };
                    let id = self.name(&format!("{letter}1"), span);
                    let dim = self.name(dimension.name.as_str(), span);
                    out.extend(self.check(
                        id,
                        dim,
                        text.clone(),
                        None,
                        (span, Some(derivation.field)),
                        *inherited,
                        missing,
                    ));
                }
                (Kind::Checks, _) => {
                    let of_field = written.iter().filter(|(f, _)| *f == derivation.field);
                    for (n, (_, check)) in of_field.enumerate() {
                        let id = self.name(&format!("{letter}{}", n + 1), check.span);
                        let dim = check
                            .dimension
                            .clone()
                            .unwrap_or_else(|| self.name(dimension.name.as_str(), check.span));
                        let origin = (check.span, Some(derivation.field));
                        out.extend(self.check(
                            id,
                            dim,
                            check.requirement.clone(),
                            check.evidence.clone(),
                            origin,
                            false,
                            missing,
                        ));
                    }
                }
                _ => {}
            }
        }
        Some(out)
    }
}
