//! What a case's sandbox loads beside its world, and how its checks are decided:
//! machine overrides, conditions on records and calls, expectations (`expect`),
//! critical-failure predicates (`forbid`) and review marks (`review`).

use std::sync::Arc;

use serde_json::Value as Json;
use strum::{EnumString, IntoStaticStr, VariantArray};

use crate::source::Span;
use crate::{Name, Text};

use super::expr::{Aggregate, Expr};
use super::value::FieldValue;
use super::world::{World, WorldSchema};

/// A condition's comparison, named by its word in the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Op {
    /// Written as no operator at all (`PATH VALUE`); `eq` only in outputs.
    Eq,
    Not,
    Contains,
    Lacks,
    Before,
    After,
    In,
    /// Text exactly as written: case and spaces count (`eq` ignores both).
    Is,
    /// Text holding the word (letters and digits bounded by others), case ignored:
    /// `has_word pizza` holds for "Pizza!" but not for "pizzas".
    HasWord,
    /// Text a regular expression finds a match in (case counts unless `(?i)`).
    Matches,
    /// Text in which a number is written equal to the value, read as `reply number`
    /// reads numbers: `has_number 1250` holds for "$1,250.00 sent".
    HasNumber,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// What the operator asks, in a line (the editor's completion shows it).
    pub fn meaning(self) -> &'static str {
        match self {
            Op::Eq => "equal (written as no operator at all)",
            Op::Not => "not equal",
            Op::Contains => {
                "text holding the text, case and spaces folded; a list holding the item"
            }
            Op::Lacks => "the negation of `contains`",
            Op::Before => "strictly earlier (dates, times, datetimes) or less (durations, numbers)",
            Op::After => "strictly later (dates, times, datetimes) or greater (durations, numbers)",
            Op::In => "equal to one of the listed values: `in [a, b]`",
            Op::Is => "text exactly as written: case and spaces count",
            Op::HasWord => "text holding the words in a row, as whole words, case ignored",
            Op::Matches => {
                "text in which the regular expression finds a match (`(?i)` ignores case)"
            }
            Op::HasNumber => {
                "text in which a number equal to the value is written (`$1,250.00` holds 1250)"
            }
        }
    }

    /// Operators that read text only (no other type has a case, words or a pattern).
    pub fn text_only(self) -> bool {
        matches!(self, Op::Is | Op::HasWord | Op::Matches | Op::HasNumber)
    }

    /// The operator written as `word` before a value (any but `eq`, which is not written).
    pub fn written(word: &str) -> Option<Op> {
        word.parse().ok().filter(|op| *op != Op::Eq)
    }

    /// The words of the operators written before a value, in order.
    pub fn written_words() -> impl Iterator<Item = &'static str> {
        Op::VARIANTS
            .iter()
            .filter(|op| **op != Op::Eq)
            .map(|op| op.as_str())
    }
}

/// The largest compiled pattern `matches` builds (1 MiB): a suite's patterns are
/// untrusted, and a pattern like `\w{1000}{1000}` would otherwise compile to gigabytes.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A `matches` pattern, or why it is not one.
pub fn pattern(text: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(text)
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => "the pattern is too large once compiled".into(),
            other => other.to_string(),
        })
}

#[derive(Clone, Debug)]
pub enum Condition {
    Test {
        path: String,
        op: Op,
        value: Operand,
    },
    /// `"EXPR" OP VALUE`: a computed value compared (`"count(transactions where to_iban =
    /// recipient)" after 2`).
    Compare {
        left: Box<Expr>,
        op: Op,
        value: Operand,
    },
    Any(Vec<Condition>),
}

#[derive(Clone, Debug)]
pub enum Operand {
    Typed(FieldValue),
    /// A call argument without a field type: compared as written.
    Plain(String),
    /// `now`, `"now - 24h"`, `"now + 2h"`: the case's clock moved by this many minutes,
    /// read when the condition is tested (so a tool's refusal reads each case's clock).
    Now {
        minutes: i64,
    },
    /// Another path of the same call or record (`bags before reservation.bags`): its
    /// value, read when the condition is tested.
    Path(String),
    /// A computed value (`"new_flight.price - reservation.flight.price"`): evaluated from
    /// the same call or record when the condition is tested.
    Computed(Box<Expr>),
}

impl Operand {
    /// The operand as the sandbox JSON writes it: a value, or `now` with an ISO 8601
    /// offset (`now-PT1440M`).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Operand::Typed(v) => v.to_json(),
            Operand::Plain(text) => serde_json::Value::String(text.clone()),
            Operand::Now { minutes: 0 } => "now".into(),
            Operand::Now { minutes } if *minutes < 0 => format!("now-PT{}M", -minutes).into(),
            Operand::Now { minutes } => format!("now+PT{minutes}M").into(),
            Operand::Path(path) => serde_json::json!({ "path": path }),
            Operand::Computed(expr) => expr.to_json(),
        }
    }
}

/// An aggregate of a field over the records of a collection matching the conditions:
/// `sum|min|max COLLECTION FIELD N [within T] { condition… }` (the number it comes to),
/// `first|last COLLECTION FIELD ID { condition… }` (the record that comes first or last
/// in the field's order: `last transactions at T7 { to_iban "…" }` is "T7 is the most
/// recent transfer to that IBAN").
#[derive(Clone, Debug)]
pub struct AggregateExpectation {
    /// `Sum`, `Min`, `Max`, `First` or `Last` (`count` is an assertion of its own).
    pub of: Aggregate,
    pub collection: Name,
    pub field: Name,
    pub expected: AggregateValue,
    pub conditions: Vec<Condition>,
}

/// What an aggregate assertion expects.
#[derive(Clone, Debug)]
pub enum AggregateValue {
    /// A number, within a tolerance (`sum`, `min`, `max`).
    Number { value: f64, within: f64 },
    /// A record (`first`, `last`).
    Record(Name),
}

/// `expect IDS { … }`: the checks these assertions decide (all must hold).
#[derive(Clone, Debug)]
pub struct Expectation {
    pub ids: Vec<Name>,
    pub assertions: Vec<Assertion>,
}

/// `review IDS ["why"]`: checks or critical failures a reader must judge.
#[derive(Clone, Debug)]
pub struct Review {
    pub ids: Vec<Name>,
    pub reason: Option<Text>,
}

#[derive(Clone, Debug)]
pub enum Count {
    Exactly(u64),
    AtLeast(u64),
    AtMost(u64),
}

/// Which calls a trace assertion counts: by default the ones that succeeded (the tool
/// did what was asked); `failed` counts refused and failed calls, `any` every attempt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum CallOutcome {
    /// Written as no word at all; `succeeded` only in outputs.
    #[default]
    Succeeded,
    Failed,
    Any,
}

impl CallOutcome {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The outcome written as `word` after a tool's name (`failed` or `any`).
    pub fn written(word: &str) -> Option<CallOutcome> {
        word.parse().ok().filter(|o| *o != CallOutcome::Succeeded)
    }

    /// Whether a call that failed (`failed`) or not counts.
    pub fn counts(self, failed: bool) -> bool {
        match self {
            CallOutcome::Succeeded => !failed,
            CallOutcome::Failed => failed,
            CallOutcome::Any => true,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Step {
    Call {
        tool: Name,
        outcome: CallOutcome,
        conditions: Vec<Condition>,
    },
    /// A scripted follow-up question was asked: any, or the case's Nth (from 1).
    Asked(Option<u32>),
}

#[derive(Clone, Debug)]
pub enum Assertion {
    Exists(Vec<Name>),
    Absent(Vec<Name>),
    /// Collections and records unchanged from the initial world, but for `except`.
    Unchanged {
        collections: Vec<Name>,
        records: Vec<Name>,
        except: Vec<Name>,
    },
    Changed {
        collections: Vec<Name>,
        records: Vec<Name>,
    },
    Record {
        id: Name,
        conditions: Vec<Condition>,
    },
    Count {
        collection: Name,
        count: Count,
        conditions: Vec<Condition>,
    },
    /// `sum`, `min`, `max`, `first`, `last` over a collection. Boxed, as `File` is:
    /// unboxed it would grow every assertion.
    Aggregate(Box<AggregateExpectation>),
    Called {
        tool: Name,
        outcome: CallOutcome,
        count: Count,
        conditions: Vec<Condition>,
    },
    Retrieved(Vec<Name>),
    VerifiedRecord(Name),
    VerifiedMatch {
        collection: Name,
        conditions: Vec<Condition>,
    },
    InOrder(Vec<Step>),
    OnlyAfter(Vec<Step>),
    /// A scripted follow-up question was asked: any, or the case's Nth (from 1).
    Asked(Option<u32>),
    /// `file "PATH" { … }`: a file the run leaves, and what it holds. Boxed: unboxed
    /// it made an assertion 216 bytes (the others are 80 at most), and every list of
    /// assertions took that size for each one.
    File(Box<FileExpectation>),
    /// `reply OP "text"` or `reply number N [within T]`: the assistant's final reply.
    Reply(ReplyTest),
    Any(Vec<Assertion>),
    Not(Vec<Assertion>),
}

/// What a `reply` assertion asks of the assistant's final reply.
#[derive(Clone, Debug)]
pub enum ReplyTest {
    /// `contains`, `lacks` (case and spaces folded), `is`, `has_word` or `matches`.
    Text { op: Op, text: Text },
    /// A number in the reply within `within` of `value` (thousands separators `,` read
    /// as such: "$1,250.00" holds 1250).
    Number {
        value: serde_json::Number,
        within: Option<serde_json::Number>,
    },
}

impl ReplyTest {
    /// The operators a text test may use.
    pub const TEXT_OPS: [Op; 5] = [Op::Contains, Op::Lacks, Op::Is, Op::HasWord, Op::Matches];
}

/// `file "PATH" { contains "…"; csv { … } }`: at the end, the suite's file store holds
/// a file at exactly PATH, and its content holds these texts and this table.
#[derive(Clone, Debug)]
pub struct FileExpectation {
    pub store: FileStore,
    pub path: Text,
    pub contains: Vec<Text>,
    pub csv: Option<CsvExpectation>,
    /// `json { "/POINTER" VALUE; … }`: the content read as JSON (absent: not read so).
    pub json: Option<Vec<JsonPoint>>,
    /// `xlsx { … }`: the content read as a workbook (XLSX, XLS, ODS), sheet by sheet.
    pub sheets: Vec<SheetExpectation>,
    /// `document { contains "…" }`: texts the document's text (DOCX, PPTX, ODF, or plain
    /// text) holds.
    pub document: Vec<Text>,
    /// `document { type pdf }`: the format the document must be (one of
    /// [`DOCUMENT_TYPES`]), whatever its name says.
    pub document_type: Option<Name>,
    /// `image { type png; width N; height N }`: the content read as an image.
    pub image: Option<ImageExpectation>,
}

/// What an image artifact must be: its format and size in pixels, each when written.
#[derive(Clone, Debug, Default)]
pub struct ImageExpectation {
    /// The format's name (`png`, `jpeg`, `gif`, `webp`, …).
    pub kind: Option<Name>,
    pub width: Option<u64>,
    pub height: Option<u64>,
}

/// One sheet of a workbook artifact: `sheet "NAME" { … }`, or the statements written
/// straight in `xlsx { … }` for its first sheet. The sheet is a table as `csv` reads
/// one (a header row, then data rows), and cells are named as a spreadsheet names them.
#[derive(Clone, Debug)]
pub struct SheetExpectation {
    /// The sheet's name; absent: the first sheet.
    pub name: Option<Text>,
    pub table: CsvExpectation,
    /// `cell B2 VALUE [within T]`: the cell at a reference (`column` holds it).
    pub cells: Vec<CellExpectation>,
}

/// The 0-based (row, column) of a spreadsheet reference (`B2` is (1, 1)), if it is one.
pub fn cell_position(reference: &str) -> Option<(u32, u32)> {
    let split = reference.find(|c: char| c.is_ascii_digit())?;
    let (letters, digits) = reference.split_at(split);
    if letters.is_empty() || letters.len() > 3 || !letters.chars().all(|c| c.is_ascii_uppercase()) {
        return None;
    }
    if !digits.chars().all(|c| c.is_ascii_digit()) || digits.starts_with('0') || digits.len() > 7 {
        return None;
    }
    let column = letters
        .bytes()
        .fold(0u32, |n, b| n * 26 + u32::from(b - b'A') + 1);
    Some((digits.parse::<u32>().ok()? - 1, column - 1))
}

/// One value a JSON document must hold: at an RFC 6901 pointer (`"/totals/north"`,
/// `"/regions/0/name"`, `""` for the whole document).
#[derive(Clone, Debug)]
pub struct JsonPoint {
    pub pointer: Text,
    pub expected: JsonExpected,
}

/// What a JSON pointer must find.
#[derive(Clone, Debug)]
pub enum JsonExpected {
    /// A number within a tolerance of it, a text as the sandbox compares text, or
    /// exactly `true`, `false` or `null`.
    Value { value: Json, within: Option<f64> },
    /// A list or object with this many items.
    Count(u64),
}

impl JsonExpected {
    /// Why `found` is not what is expected (`None`: it is).
    pub fn miss(&self, found: &Json) -> Option<String> {
        let holds = match (self, found) {
            (JsonExpected::Count(n), Json::Array(items)) => items.len() as u64 == *n,
            (JsonExpected::Count(n), Json::Object(members)) => members.len() as u64 == *n,
            (JsonExpected::Count(_), _) => return Some(format!("{found} is not a list or object")),
            (
                JsonExpected::Value {
                    value: Json::Number(a),
                    within,
                },
                Json::Number(b),
            ) => match (a.as_f64(), b.as_f64()) {
                (Some(a), Some(b)) => (a - b).abs() <= within.unwrap_or(0.0),
                _ => false,
            },
            (
                JsonExpected::Value {
                    value: Json::String(a),
                    ..
                },
                Json::String(b),
            ) => same_text(a, b),
            (JsonExpected::Value { value, .. }, found) => value == found,
        };
        let found = match (self, found) {
            (JsonExpected::Count(_), Json::Array(items)) => format!("{} items", items.len()),
            (JsonExpected::Count(_), Json::Object(members)) => format!("{} members", members.len()),
            _ => found.to_string(),
        };
        (!holds).then(|| format!("is {found}, expected {}", self.written()))
    }

    /// The expectation as the language writes it.
    pub fn written(&self) -> String {
        match self {
            JsonExpected::Count(n) => format!("count {n}"),
            JsonExpected::Value {
                value,
                within: Some(t),
            } => format!("{value} within {t}"),
            JsonExpected::Value {
                value,
                within: None,
            } => value.to_string(),
        }
    }
}

/// Where a suite keeps files: the collection and fields its file tools work on.
#[derive(Clone, Debug)]
pub struct FileStore {
    pub collection: Name,
    pub path_field: Name,
    pub content_field: Name,
}

/// `csv { columns …; rows N; row { COLUMN VALUE [within T]; … } }`: the content read
/// as CSV with a header row.
#[derive(Clone, Debug, Default)]
pub struct CsvExpectation {
    /// The header, in order (empty: any).
    pub columns: Vec<Name>,
    /// How many data rows.
    pub rows: Option<Count>,
    /// Rows that must be present: each holds when some data row matches every cell.
    pub rows_with: Vec<Vec<CellExpectation>>,
}

/// One cell of a row that must be present: equal to VALUE (numbers as numbers, text as
/// the sandbox compares text), or within TOLERANCE of it.
#[derive(Clone, Debug)]
pub struct CellExpectation {
    pub column: Name,
    pub value: Text,
    pub within: Option<f64>,
}

impl CellExpectation {
    /// Whether a cell's text satisfies the expectation.
    pub fn holds(&self, cell: &str) -> bool {
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|n| n.is_finite());
        match (number(cell), number(self.value.as_str())) {
            (Some(actual), Some(expected)) => {
                (actual - expected).abs() <= self.within.unwrap_or(0.0)
            }
            _ => self.within.is_none() && same_text(cell, self.value.as_str()),
        }
    }
}

/// Text as the sandbox compares it: without regard to case, runs of white space as one.
pub fn same_text(a: &str, b: &str) -> bool {
    let words = |s: &str| {
        s.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    words(a) == words(b)
}

#[derive(Clone, Debug)]
pub struct MachineOverride {
    /// The `override` statement's keyword: the prose override of the case written by
    /// the same statement has a span starting here.
    pub at: Span,
    pub tool: Name,
    pub when: Vec<Condition>,
    /// How many matching calls pass before it answers (absent: none).
    pub after: Option<u64>,
    /// How many matching calls it answers (absent: every one).
    pub times: Option<u64>,
    pub answer: OverrideAnswer,
    pub request: Option<Name>,
    pub commits: bool,
}

/// What an intercepted call returns.
#[derive(Clone, Debug)]
pub enum OverrideAnswer {
    /// `error CODE { field value }`: a failure, with further result fields as written.
    Error { code: Name, details: Option<Json> },
    /// `returns { field value }`: a success with this data (over the tool's own answer
    /// when the override `commits`).
    Returns(Json),
}

/// What the sandbox of one case loads, beside the case's prose.
#[derive(Clone, Debug)]
pub struct Sandbox {
    pub schema: Arc<WorldSchema>,
    pub world: World,
    /// The machine parts of the case's overrides, in the order written.
    pub overrides: Vec<MachineOverride>,
    /// `expect`: assertions deciding checks.
    pub expectations: Vec<Expectation>,
    /// `forbid`: predicates of critical failures (F1, F2, …).
    pub forbidden: Vec<Expectation>,
    pub reviews: Vec<Review>,
    /// The whole `case` statement: what lies inside was chosen by the case itself.
    pub case_span: Span,
}

impl Sandbox {
    /// The paths the case's `file` assertions name, in `expect` and `forbid` alike.
    pub fn file_paths(&self) -> Vec<&Text> {
        fn walk<'a>(assertions: &'a [Assertion], out: &mut Vec<&'a Text>) {
            for assertion in assertions {
                match assertion {
                    Assertion::File(file) => out.push(&file.path),
                    Assertion::Any(inner) | Assertion::Not(inner) => walk(inner, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        for expectation in self.expectations.iter().chain(&self.forbidden) {
            walk(&expectation.assertions, &mut out);
        }
        out
    }
}

/// The formats `document { type … }` names: what a document's bytes are.
pub const DOCUMENT_TYPES: &[&str] = &["pdf", "docx", "pptx", "odt", "odp", "text"];

/// How a check or critical failure is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Decided {
    Machine,
    Review,
    Both,
    /// Neither an assertion nor a review mark.
    Unclassified,
}

impl Decided {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Sandbox {
    /// How the check or critical failure `id` is decided. A check the case inherits
    /// rather than writes (the suite's communication check) is a reader's unless an
    /// assertion of the case decides it; a `review` makes any check a reader's too.
    pub fn decided(&self, id: &str, inherited: bool) -> Decided {
        let named = |groups: &[Expectation]| {
            groups
                .iter()
                .any(|e| e.ids.iter().any(|i| i.as_str() == id))
        };
        let machine = named(&self.expectations) || named(&self.forbidden);
        let reviewed = self
            .reviews
            .iter()
            .any(|r| r.ids.iter().any(|i| i.as_str() == id));
        let review = reviewed || (inherited && !machine);
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

/// The id of the `index`-th critical failure of a case (from 0): F1, F2, …
pub fn critical_id(index: usize) -> String {
    format!("F{}", index + 1)
}

/// The id of the `index`-th critical failure of the suite (from 0), which every case
/// inherits: GF1, GF2, …
pub fn global_critical_id(index: usize) -> String {
    format!("GF{}", index + 1)
}

/// The letters of critical failure ids, which no check dimension may use.
pub const CRITICAL_LETTERS: [&str; 2] = ["F", "GF"];

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    /// A pattern compiles within its cap or is refused, never grown without end; a
    /// refused pattern says why.
    #[test]
    fn patterns_compile_within_a_cap() {
        assert!(pattern("^[A-Z_]{8,}$").is_ok());
        assert_eq!(
            pattern(r"\w{1000}{1000}").err().as_deref(),
            Some("the pattern is too large once compiled")
        );
        assert!(pattern("(unclosed").is_err());
    }

    /// The words are the language: renaming a variant must not change one; `eq` and
    /// `succeeded` are never written, only output.
    #[test]
    fn the_words_of_operators_outcomes_and_decisions_stay_the_languages() {
        let ops: Vec<&str> = Op::VARIANTS.iter().map(|op| op.as_str()).collect();
        assert_eq!(
            ops,
            [
                "eq",
                "not",
                "contains",
                "lacks",
                "before",
                "after",
                "in",
                "is",
                "has_word",
                "matches",
                "has_number"
            ]
        );
        let written: Vec<&str> = Op::written_words().collect();
        assert_eq!(written, ops[1..]);
        assert!(written
            .iter()
            .all(|w| Op::written(w).map(Op::as_str) == Some(*w)));
        assert_eq!(Op::written("eq"), None);
        let outcomes = [
            CallOutcome::Succeeded,
            CallOutcome::Failed,
            CallOutcome::Any,
        ];
        let words: Vec<&str> = outcomes.iter().map(|o| o.as_str()).collect();
        assert_eq!(words, ["succeeded", "failed", "any"]);
        assert_eq!(CallOutcome::written("failed"), Some(CallOutcome::Failed));
        assert_eq!(CallOutcome::written("any"), Some(CallOutcome::Any));
        assert_eq!(CallOutcome::written("succeeded"), None);
        let decided = [
            Decided::Machine,
            Decided::Review,
            Decided::Both,
            Decided::Unclassified,
        ];
        let words: Vec<&str> = decided.iter().map(|d| d.as_str()).collect();
        assert_eq!(words, ["machine", "review", "both", "unclassified"]);
    }
}
