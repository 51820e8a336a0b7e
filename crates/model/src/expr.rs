//! Computed values: the arithmetic a rule writes where a value goes, in a string
//! (`"new_flight.price - reservation.flight.price"`, `"100 * reservation.passengers"`,
//! `"sum(reservation.flights.price)"`, `"now - 24h"`).
//!
//! One definition serves every place that takes a value (a condition's operand, a
//! declared effect's `set`): this module parses the text, types it against what the
//! place's paths hold, and evaluates it against what they hold when the rule runs. The
//! place supplies only its paths (the fields of a record, the arguments of a call), so a
//! rule means the same in a refusal, an override's `when`, an expectation and an effect.

use serde_json::{json, Value as Json};
use strum::{EnumString, IntoStaticStr};

use super::expect::Op;
use super::time;
use super::value::{FieldValue, NumberValue};
use super::world::FieldType;

/// The deepest nesting of parentheses and operators a computed value may have: a real
/// rule needs a few, and the parser recurses once per level.
const MAX_DEPTH: usize = 32;

/// A computed value.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number (`100`, `2.5`), a duration (`24h`) or a text (`'active'`).
    Literal(FieldValue),
    /// A path of the place: a field of the record, or an argument of the call, followed
    /// through references (and lists of them).
    Path(String),
    /// The case's clock.
    Now,
    Arith {
        op: Arith,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `sum(PATH)`, `min(PATH)`, …: one value out of the list a path holds.
    Aggregate { of: Aggregate, path: String },
    /// `sum(COLLECTION.FIELD where …)`, `count(COLLECTION where …)`: one value out of
    /// the records of a collection that pass the filter.
    Over(Box<Over>),
}

/// An aggregate over the records of a collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Over {
    pub of: Aggregate,
    pub collection: String,
    /// The path of each record aggregated (absent for `count(COLLECTION …)`).
    pub field: Option<String>,
    /// The tests a record passes to count: all of them.
    pub filter: Vec<RecordTest>,
}

/// `PATH OP VALUE` in an aggregate's `where`: a path of the collection's record compared
/// with a value of the place (`to_iban = recipient`, `at > now - 1d`).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordTest {
    pub path: String,
    pub compare: Compare,
    pub value: Expr,
}

/// A comparison in an aggregate's `where`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr)]
pub enum Compare {
    #[strum(serialize = "=")]
    Eq,
    #[strum(serialize = "!=")]
    Ne,
    #[strum(serialize = "<")]
    Lt,
    #[strum(serialize = "<=")]
    Le,
    #[strum(serialize = ">")]
    Gt,
    #[strum(serialize = ">=")]
    Ge,
}

impl Compare {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether it asks for an order (not only equality).
    pub fn ordered(self) -> bool {
        !matches!(self, Compare::Eq | Compare::Ne)
    }
}

/// What a computed value's paths are, at the place it is written: the place's own paths
/// (a record's fields, a call's arguments) and the collections an aggregate may read.
pub trait Paths {
    /// The type a path of the place holds; `None` once a diagnostic says why it has none.
    fn path(&mut self, path: &str) -> Option<FieldType>;
    /// Whether a path of the place may start with `first`.
    fn is_root(&self, first: &str) -> bool;
    /// Whether the schema has a collection of that name.
    fn is_collection(&self, name: &str) -> bool;
    /// The type a path of a record of `collection` holds; `None` once a diagnostic says
    /// why it has none.
    fn record_path(&mut self, collection: &str, path: &str) -> Option<FieldType>;
}

/// An arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr)]
pub enum Arith {
    #[strum(serialize = "+")]
    Add,
    #[strum(serialize = "-")]
    Sub,
    #[strum(serialize = "*")]
    Mul,
    #[strum(serialize = "/")]
    Div,
}

/// What an aggregate makes of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Aggregate {
    /// How many items (0 for an empty list).
    Count,
    /// The numbers (or durations) added up (0 for an empty list).
    Sum,
    /// The smallest (earliest) item; none for an empty list.
    Min,
    /// The largest (latest) item; none for an empty list.
    Max,
    /// The list's first item.
    First,
    /// The list's last item.
    Last,
}

impl Aggregate {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Expr {
    /// Reads a computed value written as `text`.
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokens(text)?;
        let mut parser = Parser { tokens, at: 0 };
        let expr = parser.sum(0)?;
        match parser.tokens.get(parser.at) {
            None => Ok(expr),
            Some(token) => Err(format!("`{}` is not expected here", token.written())),
        }
    }

    /// Whether the value computes anything (an operator, an aggregate or `now`): a text
    /// that is a plain number or path is read as a literal or a path instead.
    pub fn computes(&self) -> bool {
        !matches!(self, Expr::Literal(_) | Expr::Path(_))
    }

    /// The value as the language writes it (fully parenthesised inside).
    pub fn written(&self) -> String {
        match self {
            Expr::Literal(value) => match value {
                FieldValue::Duration(minutes) => written_duration(*minutes),
                FieldValue::Text(text) => format!("'{text}'"),
                // A float as digits (Rust's `f64` display never uses an exponent, which
                // the tokenizer would read as a duration's unit).
                FieldValue::Number(NumberValue(n)) => match n.as_f64() {
                    Some(f) if n.is_f64() => f.to_string(),
                    _ => n.to_string(),
                },
                other => other.to_json().to_string(),
            },
            Expr::Path(path) => path.clone(),
            Expr::Now => "now".into(),
            Expr::Arith { op, left, right } => {
                let side = |e: &Expr| match e {
                    Expr::Arith { .. } => format!("({})", e.written()),
                    _ => e.written(),
                };
                format!("{} {} {}", side(left), <&str>::from(*op), side(right))
            }
            Expr::Aggregate { of, path } => format!("{}({path})", of.as_str()),
            Expr::Over(over) => {
                let target = match &over.field {
                    Some(field) => format!("{}.{field}", over.collection),
                    None => over.collection.clone(),
                };
                let tests: Vec<String> = over
                    .filter
                    .iter()
                    .map(|t| format!("{} {} {}", t.path, t.compare.as_str(), t.value.written()))
                    .collect();
                match tests.is_empty() {
                    true => format!("{}({target})", over.of.as_str()),
                    false => format!(
                        "{}({target} where {})",
                        over.of.as_str(),
                        tests.join(" and ")
                    ),
                }
            }
        }
    }

    /// The value as the sandbox JSON writes it: a tree of `{"arith": OP, "left", "right"}`
    /// over literals (a text as `{"text": T}`), `{"path": P}`, `"now"`, `{"aggregate": A,
    /// "path": P}` and
    /// `{"aggregate": A, "collection": C, "field": F, "where": [{"path", "compare", "value"}]}`.
    pub fn to_json(&self) -> Json {
        match self {
            // A text is an object: a string here is `"now"`.
            Expr::Literal(FieldValue::Text(text)) => json!({ "text": text }),
            Expr::Literal(value) => value.to_json(),
            Expr::Path(path) => json!({ "path": path }),
            Expr::Now => "now".into(),
            Expr::Arith { op, left, right } => json!({
                "arith": <&str>::from(*op),
                "left": left.to_json(),
                "right": right.to_json(),
            }),
            Expr::Aggregate { of, path } => json!({ "aggregate": of.as_str(), "path": path }),
            Expr::Over(over) => json!({
                "aggregate": over.of.as_str(),
                "collection": over.collection,
                "field": over.field,
                "where": over.filter.iter().map(|t| json!({
                    "path": t.path,
                    "compare": t.compare.as_str(),
                    "value": t.value.to_json(),
                })).collect::<Vec<_>>(),
            }),
        }
    }

    /// The type of the value, given what the place's paths hold: `Err(None)` when a
    /// path has none (`paths` reported why), `Err(Some(why))` when the operands do not
    /// fit their operator, aggregate or comparison. An aggregate of a path whose first
    /// part is no path of the place but a collection becomes an aggregate over that
    /// collection's records (`count(orders)`), so typing may rewrite the value.
    pub fn type_of(&mut self, paths: &mut dyn Paths) -> Result<FieldType, Option<String>> {
        if let Expr::Aggregate { of, path } = self {
            let (first, rest) = match path.split_once('.') {
                Some((first, rest)) => (first, Some(rest.to_string())),
                None => (path.as_str(), None),
            };
            if !paths.is_root(first) && paths.is_collection(first) {
                *self = Expr::Over(Box::new(Over {
                    of: *of,
                    collection: first.to_string(),
                    field: rest,
                    filter: Vec::new(),
                }));
            }
        }
        match self {
            Expr::Literal(FieldValue::Duration(_)) => Ok(FieldType::Duration),
            Expr::Literal(FieldValue::Text(_)) => Ok(FieldType::Text),
            // A whole number keeps a whole rule whole (`seats * 2` is an integer).
            Expr::Literal(FieldValue::Number(n)) if n.0.is_i64() => Ok(FieldType::Integer),
            Expr::Literal(_) => Ok(FieldType::Number),
            Expr::Now => Ok(FieldType::DateTime),
            Expr::Path(path) => paths.path(path).ok_or(None),
            Expr::Aggregate { of, path } => {
                aggregate_type(*of, path, paths.path(path).ok_or(None)?).map_err(Some)
            }
            Expr::Over(over) => over.type_of(paths),
            Expr::Arith { op, left, right } => {
                let (l, r) = (left.type_of(paths)?, right.type_of(paths)?);
                let zero = |e: &Expr| matches!(e, Expr::Literal(FieldValue::Number(n)) if n.as_f64() == Some(0.0));
                if *op == Arith::Div && zero(right) {
                    return Err(Some(format!(
                        "`{}` divides by zero, which has no value",
                        self.written()
                    )));
                }
                arith_type(*op, &l, &r).ok_or_else(|| {
                    Some(format!(
                        "`{}` cannot be applied to {} and {} (in `{} {} {}`)",
                        <&str>::from(*op),
                        l.with_article(),
                        r.with_article(),
                        left.written(),
                        <&str>::from(*op),
                        right.written()
                    ))
                })
            }
        }
    }
}

impl Over {
    fn type_of(&mut self, paths: &mut dyn Paths) -> Result<FieldType, Option<String>> {
        if !paths.is_collection(&self.collection) {
            return Err(Some(format!(
                "`{}` is neither a path here nor a collection: `where` filters the records of a collection",
                self.collection
            )));
        }
        for test in &mut self.filter {
            let left = paths
                .record_path(&self.collection, &test.path)
                .ok_or(None)?;
            let right = test.value.type_of(paths)?;
            let op = if test.compare.ordered() {
                Op::Before
            } else {
                Op::Eq
            };
            if !comparable(&left, &right, op) {
                return Err(Some(format!(
                    "`{}` ({}) cannot be compared with `{}` ({}) by `{}`",
                    test.path,
                    left.with_article(),
                    test.value.written(),
                    right.with_article(),
                    test.compare.as_str()
                )));
            }
        }
        let item = match &self.field {
            Some(field) => paths.record_path(&self.collection, field).ok_or(None)?,
            None if self.of == Aggregate::Count => return Ok(FieldType::Integer),
            None => {
                return Err(Some(format!(
                    "`{}({})` needs the field to aggregate: `{}({}.FIELD)`",
                    self.of.as_str(),
                    self.collection,
                    self.of.as_str(),
                    self.collection
                )))
            }
        };
        let target = format!(
            "{}.{}",
            self.collection,
            self.field.as_deref().unwrap_or_default()
        );
        aggregate_type(self.of, &target, FieldType::List(Box::new(item))).map_err(Some)
    }
}

/// Whether values of types `left` and `right` compare under `op`: equal or not for the
/// same type (numbers whatever their kind, references of any collections, a text
/// written in a rule and an enum value or id), in order for types that have one.
pub fn comparable(left: &FieldType, right: &FieldType, op: Op) -> bool {
    let named = |t: &FieldType| matches!(t, FieldType::Enum(_) | FieldType::Ref(_));
    let same = left == right
        || (numeric(left) && numeric(right))
        || matches!((left, right), (FieldType::Ref(_), FieldType::Ref(_)))
        || (named(left) && *right == FieldType::Text);
    let ordered = matches!(
        left,
        FieldType::Date | FieldType::Time | FieldType::DateTime | FieldType::Duration
    ) || numeric(left);
    match op {
        Op::Eq | Op::Not => same,
        Op::Before | Op::After => same && ordered,
        _ => false,
    }
}

/// A duration as a rule writes it: `24h`, `1d2h30m`, `0m`.
fn written_duration(minutes: u64) -> String {
    let (days, hours, rest) = (minutes / 1440, minutes % 1440 / 60, minutes % 60);
    let parts = [(days, "d"), (hours, "h"), (rest, "m")];
    let written: String = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if written.is_empty() {
        "0m".into()
    } else {
        written
    }
}

fn numeric(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Number | FieldType::Integer)
}

/// The type an operator gives two operands: numbers with numbers (whole numbers stay
/// whole but by `/`), a datetime or date moved by a duration, durations added, taken
/// from each other, or scaled by a number.
pub fn arith_type(op: Arith, left: &FieldType, right: &FieldType) -> Option<FieldType> {
    use FieldType::{Date, DateTime, Duration, Integer, Number};
    match (op, left, right) {
        (Arith::Div, l, r) if numeric(l) && numeric(r) => Some(Number),
        (_, Integer, Integer) => Some(Integer),
        (_, l, r) if numeric(l) && numeric(r) => Some(Number),
        (Arith::Add | Arith::Sub, DateTime, Duration) => Some(DateTime),
        (Arith::Add, Duration, DateTime) => Some(DateTime),
        (Arith::Add | Arith::Sub, Date, Duration) => Some(Date),
        (Arith::Add | Arith::Sub, Duration, Duration) => Some(Duration),
        (Arith::Mul, Duration, n) | (Arith::Mul, n, Duration) if numeric(n) => Some(Duration),
        (Arith::Div, Duration, n) if numeric(n) => Some(Duration),
        _ => None,
    }
}

fn aggregate_type(of: Aggregate, path: &str, ty: FieldType) -> Result<FieldType, String> {
    let FieldType::List(item) = ty else {
        return Err(format!(
            "`{}({path})` needs a list, and `{path}` is {}",
            of.as_str(),
            ty.with_article()
        ));
    };
    let ordered = matches!(
        *item,
        FieldType::Number
            | FieldType::Integer
            | FieldType::Duration
            | FieldType::Date
            | FieldType::Time
            | FieldType::DateTime
            | FieldType::Text
    );
    match of {
        Aggregate::Count => Ok(FieldType::Integer),
        Aggregate::First | Aggregate::Last => Ok(*item),
        Aggregate::Sum if numeric(&item) || *item == FieldType::Duration => Ok(*item),
        Aggregate::Min | Aggregate::Max if ordered => Ok(*item),
        _ => Err(format!(
            "`{}` does not apply to a list of {}",
            of.as_str(),
            item.describe()
        )),
    }
}

/// A token of a computed value.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(serde_json::Number),
    Duration(u64),
    /// `'…'`: a text, compared with a record's text, enum or reference.
    Text(String),
    Name(String),
    Op(Arith),
    Compare(Compare),
    Open,
    Close,
}

impl Token {
    fn written(&self) -> String {
        match self {
            Token::Number(n) => n.to_string(),
            Token::Duration(m) => written_duration(*m),
            Token::Name(name) => name.clone(),
            Token::Text(text) => format!("'{text}'"),
            Token::Op(op) => <&str>::from(*op).to_string(),
            Token::Compare(compare) => compare.as_str().to_string(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
        }
    }
}

fn tokens(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let token = match c {
            c if c.is_whitespace() => continue,
            '(' => Token::Open,
            ')' => Token::Close,
            '+' => Token::Op(Arith::Add),
            '-' => Token::Op(Arith::Sub),
            '*' => Token::Op(Arith::Mul),
            '/' => Token::Op(Arith::Div),
            '=' => Token::Compare(Compare::Eq),
            '!' | '<' | '>' => {
                let equals = chars.next_if(|(_, c)| *c == '=').is_some();
                match (c, equals) {
                    ('!', true) => Token::Compare(Compare::Ne),
                    ('<', false) => Token::Compare(Compare::Lt),
                    ('<', true) => Token::Compare(Compare::Le),
                    ('>', false) => Token::Compare(Compare::Gt),
                    ('>', true) => Token::Compare(Compare::Ge),
                    _ => return Err("`!` is written `!=`".into()),
                }
            }
            '\'' => {
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => text.push(c),
                        None => return Err("a `'` text is never closed".into()),
                    }
                }
                Token::Text(text)
            }
            c if c.is_ascii_digit() => {
                let mut end = start + c.len_utf8();
                while let Some((i, c)) = chars.peek().copied() {
                    if !(c.is_ascii_alphanumeric() || c == '.') {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                literal(&text[start..end])?
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = start + c.len_utf8();
                while let Some((i, c)) = chars.peek().copied() {
                    if !(c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                Token::Name(text[start..end].to_string())
            }
            other => return Err(format!("`{other}` has no meaning in a computed value")),
        };
        tokens.push(token);
    }
    Ok(tokens)
}

/// A number (`100`, `2.5`) or a duration (`24h`, `1h30m`).
fn literal(word: &str) -> Result<Token, String> {
    if word.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return time::parse_duration(word).map(Token::Duration);
    }
    word.parse::<serde_json::Number>()
        .map(Token::Number)
        .map_err(|_| format!("`{word}` is not a number"))
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn peek_op(&self, ops: &[Arith]) -> Option<Arith> {
        match self.tokens.get(self.at) {
            Some(Token::Op(op)) if ops.contains(op) => Some(*op),
            _ => None,
        }
    }

    /// `term (('+' | '-') term)*`
    fn sum(&mut self, depth: usize) -> Result<Expr, String> {
        self.binary(depth, &[Arith::Add, Arith::Sub], Parser::product)
    }

    /// `operand (('*' | '/') operand)*`
    fn product(&mut self, depth: usize) -> Result<Expr, String> {
        self.binary(depth, &[Arith::Mul, Arith::Div], Parser::operand)
    }

    fn binary(
        &mut self,
        depth: usize,
        ops: &[Arith],
        side: fn(&mut Parser, usize) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let mut left = side(self, depth)?;
        while let Some(op) = self.peek_op(ops) {
            self.at += 1;
            let right = side(self, depth)?;
            left = Expr::Arith {
                op,
                left: Box::new(left),
                right: Box::new(right),
            };
        }
        Ok(left)
    }

    fn operand(&mut self, depth: usize) -> Result<Expr, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} levels deep"));
        }
        match self.next() {
            Some(Token::Number(n)) => Ok(Expr::Literal(FieldValue::Number(NumberValue(n)))),
            Some(Token::Text(text)) => Ok(Expr::Literal(FieldValue::Text(text))),
            Some(Token::Duration(m)) => Ok(Expr::Literal(FieldValue::Duration(m))),
            // `-5`: a negative number; any other negation is written `0 - x`.
            Some(Token::Op(Arith::Sub)) => match self.next() {
                Some(Token::Number(n)) => format!("-{n}")
                    .parse()
                    .map(|n| Expr::Literal(FieldValue::Number(NumberValue(n))))
                    .map_err(|_| format!("`-{n}` is not a number")),
                _ => Err("`-` stands between two values (write `0 - x` to negate)".into()),
            },
            Some(Token::Open) => {
                let inner = self.sum(depth + 1)?;
                match self.next() {
                    Some(Token::Close) => Ok(inner),
                    _ => Err("a `(` is never closed".into()),
                }
            }
            Some(Token::Name(name)) if name == "now" => Ok(Expr::Now),
            Some(Token::Name(name)) => match self.tokens.get(self.at) {
                Some(Token::Open) => self.aggregate(&name, depth),
                _ => Ok(Expr::Path(name)),
            },
            Some(other) => Err(format!("`{}` is not expected here", other.written())),
            None => Err("a value is missing at the end".into()),
        }
    }

    /// `NAME(PATH)` or `NAME(PATH where TEST and TEST…)`, the `(` next.
    fn aggregate(&mut self, name: &str, depth: usize) -> Result<Expr, String> {
        let of: Aggregate = name.parse().map_err(|_| {
            format!(
                "`{name}` is no aggregate; write one of {}",
                aggregate_words().join(", ")
            )
        })?;
        self.at += 1;
        let path = match self.next() {
            Some(Token::Name(path)) => path,
            _ => {
                return Err(format!(
                    "`{name}(…)` takes a path, e.g. `{name}(items.price)`"
                ))
            }
        };
        let mut filter = Vec::new();
        if self.tokens.get(self.at) == Some(&Token::Name("where".into())) {
            self.at += 1;
            loop {
                filter.push(self.record_test(depth)?);
                if self.tokens.get(self.at) != Some(&Token::Name("and".into())) {
                    break;
                }
                self.at += 1;
            }
        }
        if self.next() != Some(Token::Close) {
            return Err(format!(
                "`{name}(` takes a path and an optional `where`, then `)`"
            ));
        }
        if filter.is_empty() {
            return Ok(Expr::Aggregate { of, path });
        }
        let (collection, field) = match path.split_once('.') {
            Some((collection, field)) => (collection.to_string(), Some(field.to_string())),
            None => (path, None),
        };
        Ok(Expr::Over(Box::new(Over {
            of,
            collection,
            field,
            filter,
        })))
    }

    /// `PATH OP VALUE` of an aggregate's `where`.
    fn record_test(&mut self, depth: usize) -> Result<RecordTest, String> {
        let usage = "a `where` test is `FIELD OP VALUE`, OP one of = != < <= > >=";
        let Some(Token::Name(path)) = self.next() else {
            return Err(usage.into());
        };
        let Some(Token::Compare(compare)) = self.next() else {
            return Err(usage.into());
        };
        let value = self.sum(depth + 1)?;
        Ok(RecordTest {
            path,
            compare,
            value,
        })
    }
}

/// The aggregates' names, in order.
pub fn aggregate_words() -> Vec<&'static str> {
    <Aggregate as strum::VariantArray>::VARIANTS
        .iter()
        .map(|a| a.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str) -> String {
        Expr::parse(text).map_or_else(|e| format!("error: {e}"), |e| e.written())
    }

    #[test]
    fn precedence_and_parentheses() {
        assert_eq!(written("a + b * 2"), "a + (b * 2)");
        assert_eq!(written("(a + b) * 2"), "(a + b) * 2");
        assert_eq!(written("a - b - c"), "(a - b) - c");
        assert_eq!(written("now - 24h"), "now - 1d");
        assert_eq!(
            written("sum(r.flights.price) - -5"),
            "sum(r.flights.price) - -5"
        );
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(written("a +"), "error: a value is missing at the end");
        assert_eq!(written("(a"), "error: a `(` is never closed");
        assert_eq!(written("a b"), "error: `b` is not expected here");
        assert!(written("avg(x)").contains("no aggregate"));
        assert!(written("a % b").contains("`%`"));
        assert!(written("-a").contains("0 - x"));
        assert!(written(&"(".repeat(100)).contains("nested"));
    }

    /// A place with a few paths and one collection, `orders`.
    struct Shop;

    impl Paths for Shop {
        fn path(&mut self, path: &str) -> Option<FieldType> {
            match path {
                "price" => Some(FieldType::Number),
                "seats" => Some(FieldType::Integer),
                "at" => Some(FieldType::DateTime),
                "flights.price" => Some(FieldType::List(Box::new(FieldType::Number))),
                _ => None,
            }
        }
        fn is_root(&self, first: &str) -> bool {
            ["price", "seats", "at", "flights"].contains(&first)
        }
        fn is_collection(&self, name: &str) -> bool {
            name == "orders"
        }
        fn record_path(&mut self, _: &str, path: &str) -> Option<FieldType> {
            match path {
                "total" => Some(FieldType::Number),
                "status" => Some(FieldType::Enum(vec!["open".into(), "paid".into()])),
                _ => None,
            }
        }
    }

    fn ty(text: &str) -> Result<FieldType, String> {
        Expr::parse(text)
            .unwrap()
            .type_of(&mut Shop)
            .map_err(|e| e.unwrap_or_default())
    }

    #[test]
    fn types_follow_the_operands() {
        assert_eq!(ty("seats * 2"), Ok(FieldType::Integer));
        assert_eq!(ty("seats / 2"), Ok(FieldType::Number));
        assert_eq!(ty("price - sum(flights.price)"), Ok(FieldType::Number));
        assert_eq!(ty("at + 2h"), Ok(FieldType::DateTime));
        assert!(ty("at + price")
            .unwrap_err()
            .contains("datetime and a number"));
        assert!(ty("sum(price)").unwrap_err().contains("needs a list"));
        assert_eq!(ty("nope + 1"), Err(String::new()));
        assert!(ty("price / 0").unwrap_err().contains("divides by zero"));
        assert!(ty("price / 0.0").unwrap_err().contains("divides by zero"));
    }

    #[test]
    fn an_aggregate_of_a_collection_filters_its_records() {
        assert_eq!(ty("count(orders)"), Ok(FieldType::Integer));
        assert_eq!(
            ty("sum(orders.total where status = 'paid' and total > price)"),
            Ok(FieldType::Number)
        );
        let mut over = Expr::parse("sum(orders.total where status != 'open')").unwrap();
        over.type_of(&mut Shop).unwrap();
        assert_eq!(over.written(), "sum(orders.total where status != 'open')");
        assert!(ty("sum(orders)").unwrap_err().contains("needs the field"));
        assert!(ty("sum(orders.total where total > at)")
            .unwrap_err()
            .contains("cannot be compared"));
        assert!(ty("count(items where total = 1)")
            .unwrap_err()
            .contains("nor a collection"));
        assert!(Expr::parse("count(orders where total)").is_err());
        assert!(Expr::parse("count(orders where total ! 1)").is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Any text of the language's tokens (and a few others) parses or is refused
        /// with a reason, never a panic; what parses is written back to a text that
        /// parses to the same value.
        #[test]
        fn parsing_never_panics_and_the_written_form_reads_back(
            tokens in proptest::collection::vec(proptest::sample::select(vec![
                "a", "b.c", "now", "sum", "count", "max", "(", ")", "+", "-", "*", "/",
                "1", "2.5", "24h", "1h30m", "where", "and", "=", "!=", "<", "<=", ">",
                ">=", "'x'", "'", " ", "%", "é", "9999999999999999999999", "0",
            ]), 0..24)
        ) {
            let text = tokens.join(" ");
            if let Ok(expr) = Expr::parse(&text) {
                let again = Expr::parse(&expr.written());
                proptest::prop_assert_eq!(again, Ok(expr), "{}", text);
            }
        }
    }
}
