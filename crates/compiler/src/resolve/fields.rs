//! Reading the fields a shape declares, in whatever block holds them (the suite block,
//! a category, a profile, a case): the keys the block accepts, and each field's value
//! read by its kind.
//!
//! A field's key may be dotted (`scoring.human_review`): the statement is then found
//! inside the blocks its first segments name. [`Given`] is a value as read, before any
//! inheritance; the suite and case readers turn it into the model.

use crate::diag::{codes, Diagnostic};
use crate::model::shape::{FieldDecl, Kind};
use crate::model::{
    Aggregation, Data, Followup, Name, Number, ReportLine, RevisionNote, Text, ToolOverride, Turn,
    Value,
};
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use super::keys::{self, body, first, KeySpec};
use super::values::{self, ValueType};

/// A field's value as written in one block.
#[derive(Clone, Debug)]
pub enum Given {
    Plain(Value),
    Name(Name),
    Names(Vec<Name>),
    Text(Text),
    Number(Number),
    Data(Data),
    Turns(Vec<Turn>),
    Overrides(Vec<ToolOverride>),
    Followups(Vec<Followup>),
    Checks(Vec<WrittenCheck>),
    Texts(Vec<Text>),
    Evidence(Vec<(String, Text)>),
    Revisions(Vec<RevisionNote>),
    Reports(Vec<ReportLine>),
}

/// One `check` statement as written: an optional id, the text, optional overrides.
#[derive(Clone, Debug)]
pub struct WrittenCheck {
    pub id: Option<Name>,
    pub requirement: Text,
    pub dimension: Option<Name>,
    pub evidence: Option<Text>,
    pub span: Span,
}

/// A block's statements by name, for reading many fields from one block: every field
/// of every case is looked up in its case block, and scanning the block for each
/// would make reading a case quadratic in its statements.
pub struct Keyed<'a> {
    block: &'a [Statement],
    /// Each statement's name and place, sorted by name, in block order within a name.
    by_name: Vec<(&'a str, usize)>,
}

impl<'a> Keyed<'a> {
    pub fn new(block: &'a [Statement]) -> Keyed<'a> {
        let mut by_name: Vec<(&str, usize)> = block
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name(), i))
            .collect();
        by_name.sort_unstable();
        Keyed { block, by_name }
    }

    /// The statements named `name`, in block order.
    pub fn named<'k>(&'k self, name: &'k str) -> impl Iterator<Item = &'a Statement> + 'k {
        let from = self.by_name.partition_point(|(n, _)| *n < name);
        self.by_name[from..]
            .iter()
            .take_while(move |(n, _)| *n == name)
            .map(|&(_, i)| &self.block[i])
    }
}

/// The statements under a possibly dotted key: `scoring.report` is every `report` in
/// the first `scoring` block.
pub fn statements_of<'a>(block: &Keyed<'a>, key: &str) -> Vec<&'a Statement> {
    match key.split_once('.') {
        None => block.named(key).collect(),
        Some((outer, rest)) => match block.named(outer).next() {
            Some(s) => statements_in(body(s), rest),
            None => Vec::new(),
        },
    }
}

/// [`statements_of`] in a block without an index: the blocks a dotted key reaches into.
fn statements_in<'a>(block: &'a [Statement], key: &str) -> Vec<&'a Statement> {
    let (path, last) = match key.rsplit_once('.') {
        Some((path, last)) => (Some(path), last),
        None => (None, key),
    };
    let mut current = block;
    for segment in path.into_iter().flat_map(|p| p.split('.')) {
        match first(current, segment) {
            Some(s) => current = body(s),
            None => return Vec::new(),
        }
    }
    current.iter().filter(|s| s.name() == last).collect()
}

/// The keys a block accepts at `prefix` (empty: the block itself; `scoring`: inside
/// the `scoring` block) among `fields`: their next key segments, a dotted key's first
/// segment as a block, plus `extra` (the statements of the language itself).
pub fn key_specs<'a>(
    fields: impl Iterator<Item = &'a FieldDecl>,
    prefix: &str,
    extra: &[KeySpec<'a>],
) -> Vec<KeySpec<'a>> {
    let mut specs: Vec<KeySpec<'a>> = extra.to_vec();
    for field in fields {
        let key = field.key.as_str();
        let rest = if prefix.is_empty() {
            Some(key)
        } else {
            key.strip_prefix(prefix).and_then(|r| r.strip_prefix('.'))
        };
        let Some(rest) = rest else { continue };
        let (segment, nested) = match rest.split_once('.') {
            Some((segment, _)) => (segment, true),
            None => (rest, false),
        };
        if specs.iter().any(|s| s.key == segment) {
            continue;
        }
        specs.push(KeySpec {
            key: segment,
            // A repeated field's `at_least` is counted by the checks, with its own message.
            required: !nested && field.required && !field.inherited && field.at_least == 0,
            repeated: !nested && field.repeated(),
            doc: field.doc.as_ref().map_or("", |d| d.as_str()),
        });
    }
    specs
}

/// The nested blocks of dotted keys, each with the prefix that names it (`scoring`).
pub fn nested_prefixes<'a>(fields: impl Iterator<Item = &'a FieldDecl>) -> Vec<&'a str> {
    let mut prefixes: Vec<&str> = Vec::new();
    for field in fields {
        let key = field.key.as_str();
        let mut end = 0;
        while let Some(dot) = key[end..].find('.') {
            end += dot;
            let prefix = &key[..end];
            if !prefixes.contains(&prefix) {
                prefixes.push(prefix);
            }
            end += 1;
        }
    }
    prefixes
}

/// Checks the keys of `block` and of the nested blocks dotted keys name.
pub fn check_block_keys<'a>(
    block: &[Statement],
    fields: &'a [FieldDecl],
    extra: &[KeySpec<'a>],
    context: &str,
    owner: Span,
    diags: &mut Vec<Diagnostic>,
) {
    BlockKeys::of(fields, extra).check(block, context, owner, diags);
}

/// The statements a block of `fields` accepts, at its top and in each nested block:
/// made once, checked against every case.
pub struct BlockKeys<'a> {
    top: Vec<KeySpec<'a>>,
    nested: Vec<(&'a str, Vec<KeySpec<'a>>)>,
}

impl<'a> BlockKeys<'a> {
    pub fn of(fields: &'a [FieldDecl], extra: &[KeySpec<'a>]) -> BlockKeys<'a> {
        BlockKeys {
            top: key_specs(fields.iter(), "", extra),
            nested: nested_prefixes(fields.iter())
                .into_iter()
                .map(|prefix| (prefix, key_specs(fields.iter(), prefix, &[])))
                .collect(),
        }
    }

    /// Reports the statements of `block` (and its nested blocks) that are not accepted.
    pub fn check(
        &self,
        block: &[Statement],
        context: impl std::fmt::Display + Copy,
        owner: Span,
        diags: &mut Vec<Diagnostic>,
    ) {
        keys::check_keys(block, &[&self.top], context, owner, diags);
        for (prefix, specs) in &self.nested {
            let Some(statement) = nested_statement(block, prefix) else {
                continue;
            };
            keys::check_keys(
                body(statement),
                &[specs],
                format_args!("the {prefix} block"),
                statement.key.span,
                diags,
            );
        }
    }
}

fn nested_statement<'a>(block: &'a [Statement], prefix: &str) -> Option<&'a Statement> {
    let mut current = block;
    let mut found = None;
    for segment in prefix.split('.') {
        let s = first(current, segment)?;
        current = body(s);
        found = Some(s);
    }
    found
}

/// Reads `field` from the statements with its key in one block; `None` when the block
/// does not set it (or, after reporting, when what it sets is malformed).
pub fn read(field: &FieldDecl, block: &Keyed, diags: &mut Vec<Diagnostic>) -> Option<Given> {
    let statements = statements_of(block, field.key.as_str());
    if statements.is_empty() {
        return None;
    }
    let before = diags.len();
    let given = read_statements(field, &statements, diags)?;
    if let Some(at_most) = field.at_most.filter(|n| statements.len() > *n) {
        let extra = statements[at_most];
        diags.push(
            Diagnostic::new(
                codes::DUPLICATE_FIELD,
                format!(
                    "`{}` is given {} times; at most {at_most} allowed",
                    field.key.as_str(),
                    statements.len()
                ),
            )
            .primary(extra.key.span, "one too many")
            .secondary(statements[0].key.span, "the first")
            .help(format!(
                "this shape's outputs hold at most {at_most} `{}` per case",
                field.key.as_str()
            )),
        );
    }
    check_one_of(field, &given, diags);
    (diags.len() == before).then_some(given)
}

/// A step limit: a whole number of tool calls, at least 1.
fn step_limit(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Number> {
    let number = values::number(statement, diags)?;
    if number.value.as_u64().is_some_and(|n| n >= 1) {
        return Some(number);
    }
    diags.push(
        Diagnostic::new(
            codes::BAD_ARGUMENTS,
            format!("`{}` is not a step limit", statement.name()),
        )
        .primary(statement.span, "not a whole number of tool calls")
        .help(format!(
            "write how many tool calls a run may make, at least 1: `{} 30`",
            statement.name()
        )),
    );
    None
}

/// The longest clock step: a conversation's turn takes at most a week.
const MAX_CLOCK_STEP_MINUTES: u64 = 7 * 24 * 60;

/// A clock step: a duration of whole minutes (`5m`, `1h30m`), at most a week.
fn clock_step(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Text> {
    let text = values::text(statement, diags)?;
    let minutes = crate::model::time::parse_duration(text.as_str()).and_then(|m| match m {
        m if m <= MAX_CLOCK_STEP_MINUTES => Ok(m),
        _ => Err("a clock step is at most a week (`7d`)".to_string()),
    });
    match minutes {
        Ok(_) => Some(text),
        Err(why) => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("`{}` is not a clock step", text.as_str()),
                )
                .primary(text.span, "not a duration of at most a week")
                .help(format!(
                    "{why}: how far the clock moves at each of the person's messages"
                )),
            );
            None
        }
    }
}

fn read_statements(
    field: &FieldDecl,
    statements: &[&Statement],
    diags: &mut Vec<Diagnostic>,
) -> Option<Given> {
    let one = statements[0];
    let each = |read: &dyn Fn(&Statement, &mut Vec<Diagnostic>) -> Option<Text>,
                diags: &mut Vec<Diagnostic>| {
        let before = diags.len();
        let texts: Vec<Text> = statements.iter().filter_map(|s| read(s, diags)).collect();
        (diags.len() == before).then_some(texts)
    };
    Some(match field.kind {
        // A word from a vocabulary may be written bare (`check_on state`).
        Kind::Text if !field.one_of.is_empty() => Given::Plain(Value::Text(one_word(one, diags)?)),
        Kind::Text => Given::Plain(Value::Text(values::text(one, diags)?)),
        Kind::Texts => Given::Plain(Value::Texts(each(&|s, d| values::text(s, d), diags)?)),
        Kind::Names => Given::Plain(Value::Names(values::names(one, diags)?)),
        Kind::Number => Given::Plain(Value::Number(values::number(one, diags)?)),
        Kind::StepLimit => Given::Plain(Value::Number(step_limit(one, diags)?)),
        Kind::ClockStep => Given::Plain(Value::Text(clock_step(one, diags)?)),
        Kind::Data => Given::Plain(Value::Data(Box::new(values::data(one, diags)?))),
        Kind::Objects => {
            let before = diags.len();
            let blocks: Vec<_> = statements
                .iter()
                .filter_map(|s| values::data(s, diags))
                .collect();
            (diags.len() == before).then_some(Given::Plain(Value::Objects(blocks)))?
        }
        Kind::Category => Given::Name(values::name(one, diags)?),
        Kind::Tags | Kind::Tools => Given::Names(values::names(one, diags)?),
        // An outcome is any word a benchmark uses (`UNDECIDED`, `needs review`).
        Kind::Outcomes => Given::Names(values::words(one, diags)?),
        Kind::Clock
        | Kind::Timezone
        | Kind::UserMessage
        | Kind::UnscriptedReply
        | Kind::SystemPrompt => Given::Text(values::text(one, diags)?),
        Kind::CaseCount => Given::Number(values::number(one, diags)?),
        Kind::ResultTemplate => Given::Data(values::data(one, diags)?),
        Kind::Conversation => Given::Turns(conversation(one, diags)?),
        Kind::Override => Given::Overrides(all_of(statements, tool_override, diags)?),
        Kind::Followup => Given::Followups(all_of(statements, followup, diags)?),
        Kind::Checks => Given::Checks(all_of(statements, written_check, diags)?),
        Kind::CriticalFailures | Kind::GlobalCriticalFailures => {
            Given::Texts(each(&|s, d| values::text(s, d), diags)?)
        }
        Kind::Evidence => Given::Evidence(evidence(statements, diags)?),
        Kind::Revisions => Given::Revisions(all_of(statements, revision, diags)?),
        Kind::Reports => Given::Reports(all_of(statements, report, diags)?),
    })
}

/// One name or string.
fn one_word(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Text> {
    let words = values::words(statement, diags)?;
    match words.as_slice() {
        [one] => Some(one.text().clone()),
        _ => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("`{}` takes one word", statement.name()),
                )
                .primary(statement.span, "expected one name or string")
                .help(format!("write it as `{} WORD`", statement.name())),
            );
            None
        }
    }
}

fn all_of<T>(
    statements: &[&Statement],
    read: fn(&Statement, &mut Vec<Diagnostic>) -> Option<T>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<T>> {
    let before = diags.len();
    let items: Vec<T> = statements.iter().filter_map(|s| read(s, diags)).collect();
    (diags.len() == before).then_some(items)
}

/// A `one_of` field's words: each value must be one of them.
fn check_one_of(field: &FieldDecl, given: &Given, diags: &mut Vec<Diagnostic>) {
    if field.one_of.is_empty() {
        return;
    }
    let words: Vec<&str> = field.one_of.iter().map(|w| w.as_str()).collect();
    let written: Vec<&Text> = match given {
        Given::Plain(v) => v.texts(),
        _ => Vec::new(),
    };
    for text in written.into_iter().filter(|t| !words.contains(&t.as_str())) {
        let d = Diagnostic::new(
            codes::BAD_ARGUMENTS,
            format!(
                "`{}` is not one of the values of `{}`",
                text.as_str(),
                field.key.as_str()
            ),
        )
        .primary(text.span, format!("expected one of: {}", words.join(", ")));
        diags.push(
            match crate::diag::suggest(text.as_str(), words.iter().copied()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!(
                    "`{}` takes one of: {}",
                    field.key.as_str(),
                    words.join(", ")
                )),
            },
        );
    }
}

fn conversation(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Vec<Turn>> {
    let block = values::block_only(statement, diags)?;
    let turns: Vec<Turn> = block
        .statements
        .iter()
        .filter_map(|s| {
            values::text(s, diags).map(|content| Turn {
                role: Name::new(s.name(), s.key.span),
                content,
            })
        })
        .collect();
    (turns.len() == block.statements.len()).then_some(turns)
}

fn tool_override(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<ToolOverride> {
    let usage = "override TOOL \"match\" { result \"…\" }";
    let v = values::args_with_block(statement, &[ValueType::Ident, ValueType::Str], usage, diags)?;
    let span = statement.key.span.to(v[1].span);
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[keys::OVERRIDE],
        "the override block",
        span,
        diags,
    );
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let result = text("result", diags);
    Some(ToolOverride {
        tool: values::name_of(&v[0]),
        matches: values::text_of(&v[1]),
        result: result?,
        side_effect: text("side_effect", diags),
        verification: text("verify", diags),
        span,
    })
}

fn followup(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Followup> {
    let block = values::block_only(statement, diags)?;
    let statements = &block.statements;
    keys::check_keys(
        statements,
        &[keys::FOLLOWUP],
        "the followup block",
        statement.key.span,
        diags,
    );
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let when_asked = text("asked", diags);
    let reply = text("reply", diags);
    Some(Followup {
        when_asked: when_asked?,
        reply: reply?,
        span: statement.key.span,
    })
}

fn written_check(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<WrittenCheck> {
    let usage =
        "check \"requirement\"` or `check ID \"requirement\" { dimension NAME; evidence \"…\" }";
    let (id, requirement) = match statement.values.as_slice() {
        [v] if matches!(v.kind, ValueKind::Str { .. }) => (None, values::text_of(v)),
        _ => {
            let v = values::args_with_block(
                statement,
                &[ValueType::Ident, ValueType::Str],
                usage,
                diags,
            )?;
            (Some(values::name_of(&v[0])), values::text_of(&v[1]))
        }
    };
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[keys::CHECK],
        "a check block",
        statement.key.span,
        diags,
    );
    Some(WrittenCheck {
        id,
        requirement,
        dimension: first(statements, "dimension").and_then(|s| values::name(s, diags)),
        evidence: first(statements, "evidence").and_then(|s| values::text(s, diags)),
        span: statement.span,
    })
}

/// `evidence DIMENSION "text"`, once per dimension.
fn evidence(statements: &[&Statement], diags: &mut Vec<Diagnostic>) -> Option<Vec<(String, Text)>> {
    let mut out: Vec<(String, Text)> = Vec::new();
    let before = diags.len();
    for statement in statements {
        let Some(v) = values::args(
            statement,
            &[ValueType::Ident, ValueType::Str],
            "evidence DIMENSION \"text\"",
            diags,
        ) else {
            continue;
        };
        let dimension = v[0].as_ident().unwrap_or_default().to_string();
        if let Some((_, first)) = out.iter().find(|(d, _)| *d == dimension) {
            diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_FIELD,
                    format!("evidence for `{dimension}` is given twice"),
                )
                .primary(v[0].span, "given again here")
                .secondary(first.span, "first given here"),
            );
            continue;
        }
        out.push((dimension, values::text_of(&v[1])));
    }
    (diags.len() == before).then_some(out)
}

fn revision(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<RevisionNote> {
    let v = values::args(
        statement,
        &[ValueType::Ident, ValueType::Str],
        &format!("{} CASE-ID \"change\"", statement.name()),
        diags,
    )?;
    Some(RevisionNote {
        case_id: values::name_of(&v[0]),
        change: values::text_of(&v[1]),
    })
}

/// `report "prose"` or `report "prose" { outcomes [tagged TAG] | checks DIMENSION |
/// critical_failures }`.
fn report(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<ReportLine> {
    let usage = "report \"prose\" { outcomes | outcomes tagged TAG | checks DIMENSION | critical_failures }";
    let v = values::args_with_block(statement, &[ValueType::Str], usage, diags)?;
    let text = values::text_of(&v[0]);
    let Some(block) = &statement.block else {
        return Some(ReportLine {
            text,
            aggregation: None,
        });
    };
    let aggregation = match block.statements.as_slice() {
        [one] => aggregation(one, diags)?,
        _ => {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, "a report line computes one thing")
                    .primary(block.span, "expected one aggregation")
                    .help(format!("write it as `{usage}`")),
            );
            return None;
        }
    };
    Some(ReportLine {
        text,
        aggregation: Some(aggregation),
    })
}

fn aggregation(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Aggregation> {
    let names: Vec<Name> = statement
        .values
        .iter()
        .filter(|v| v.as_ident().is_some())
        .map(values::name_of)
        .collect();
    let fits = statement.block.is_none() && names.len() == statement.values.len();
    match (statement.name(), names.as_slice()) {
        ("outcomes", []) if fits => Some(Aggregation::Outcomes),
        ("outcomes", [tagged, tag]) if fits && tagged.as_str() == "tagged" => {
            Some(Aggregation::OutcomesTagged(tag.clone()))
        }
        ("checks", [dimension]) if fits => Some(Aggregation::Checks(dimension.clone())),
        ("critical_failures", []) if fits => Some(Aggregation::CriticalFailures),
        _ => {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, format!("`{}` is not an aggregation", statement.name()))
                    .primary(statement.span, "not something `casec report` computes")
                    .help("write `outcomes` (overall and per category), `outcomes tagged TAG`, `checks DIMENSION` or `critical_failures`"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn statements(text: &str) -> Vec<Statement> {
        let parsed = crate::syntax::parse(FileId(0), text);
        parsed.file.expect("the text parses").statements
    }

    /// The index finds what a scan of the block finds, in block order: repeated keys,
    /// absent keys, and dotted keys into the first block of their name.
    #[test]
    fn keyed_statements_are_those_of_a_scan_in_block_order() {
        let block = statements(
            "check \"one\"\nb 1\ncheck \"two\"\nscoring { report \"r1\" }\nscoring { report \"r2\" }\ncheck \"three\"\na 2\n",
        );
        let keyed = Keyed::new(&block);
        let spans = |found: Vec<&Statement>| found.iter().map(|s| s.span).collect::<Vec<_>>();
        for key in [
            "check",
            "a",
            "b",
            "missing",
            "scoring",
            "scoring.report",
            "scoring.none",
            "none.report",
        ] {
            assert_eq!(
                spans(statements_of(&keyed, key)),
                spans(statements_in(&block, key)),
                "{key}"
            );
        }
        assert_eq!(statements_of(&keyed, "check").len(), 3);
        assert_eq!(statements_of(&keyed, "scoring.report").len(), 1);
    }
}
