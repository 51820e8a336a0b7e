//! Computed values evaluated (`model::expr` parses and types them): arithmetic on
//! numbers, durations, datetimes and dates, and aggregates of lists and of a
//! collection's records, read from what a rule's paths and the world hold when it runs.

use std::cmp::Ordering;

use chrono::{DateTime, Duration, FixedOffset};

use crate::model::expect::Op;
use crate::model::expr::{Aggregate, Arith, Compare, Expr, Over};
use crate::model::time::ZonedDateTime;
use crate::model::value::{FieldValue, NumberValue};

use super::conditions::{record_path, Cx};
use super::state::Rec;
use super::values::{order, satisfies};

/// What a computed value reads when it runs.
pub trait Reads {
    /// What a path of the place holds.
    fn path(&self, path: &str) -> Option<FieldValue>;
    /// The run's clock.
    fn now(&self) -> Option<DateTime<FixedOffset>>;
    /// The values an aggregate over a collection takes: each passing record's field
    /// (or the record itself, as a reference, for `count(COLLECTION …)`).
    fn over(&self, over: &Over) -> Option<Vec<FieldValue>>;
}

/// A place of the running sandbox: its paths read by `place`, its records and clock
/// by `cx`.
pub struct AtPlace<'a> {
    pub place: &'a dyn Fn(&str) -> Option<FieldValue>,
    pub cx: Cx<'a>,
}

impl Reads for AtPlace<'_> {
    fn path(&self, path: &str) -> Option<FieldValue> {
        (self.place)(path)
    }

    fn now(&self) -> Option<DateTime<FixedOffset>> {
        self.cx.now
    }

    fn over(&self, over: &Over) -> Option<Vec<FieldValue>> {
        // The tests' values are the place's: evaluated once, not per record.
        let wanted: Vec<Option<FieldValue>> =
            over.filter.iter().map(|t| eval(&t.value, self)).collect();
        let passes = |record: &Rec| {
            over.filter.iter().zip(&wanted).all(|(test, wanted)| {
                match (record_path(record, &test.path, self.cx), wanted) {
                    (Some(actual), Some(wanted)) => compares(&actual, test.compare, wanted),
                    _ => false,
                }
            })
        };
        Some(
            self.cx
                .state
                .in_collection(&over.collection)
                .filter(|r| passes(r))
                .filter_map(|r| match &over.field {
                    Some(field) => record_path(r, field, self.cx),
                    None => Some(FieldValue::Ref(r.id.clone())),
                })
                .collect(),
        )
    }
}

/// `actual COMPARE wanted`, as conditions compare (numbers by value, text folded).
fn compares(actual: &FieldValue, compare: Compare, wanted: &FieldValue) -> bool {
    match compare {
        Compare::Eq => satisfies(Some(actual), Op::Eq, wanted),
        Compare::Ne => satisfies(Some(actual), Op::Not, wanted),
        Compare::Lt => order(actual, wanted) == Some(Ordering::Less),
        Compare::Le => matches!(
            order(actual, wanted),
            Some(Ordering::Less | Ordering::Equal)
        ),
        Compare::Gt => order(actual, wanted) == Some(Ordering::Greater),
        Compare::Ge => {
            matches!(
                order(actual, wanted),
                Some(Ordering::Greater | Ordering::Equal)
            )
        }
    }
}

/// The value, given what the place's paths and records hold now and the run's clock;
/// `None` when a path holds nothing, a list is empty where an item is needed, or the
/// arithmetic has no answer (a division by zero, a negative duration).
pub fn eval(expr: &Expr, reads: &dyn Reads) -> Option<FieldValue> {
    match expr {
        Expr::Literal(value) => Some(value.clone()),
        Expr::Path(path) => reads.path(path),
        Expr::Now => Some(FieldValue::DateTime(ZonedDateTime {
            instant: reads.now()?,
            zone: None,
        })),
        Expr::Aggregate { of, path } => aggregate(*of, reads.path(path)?),
        Expr::Over(over) => aggregate(over.of, FieldValue::List(reads.over(over)?)),
        Expr::Arith { op, left, right } => arith(*op, eval(left, reads)?, eval(right, reads)?),
    }
}

fn aggregate(of: Aggregate, list: FieldValue) -> Option<FieldValue> {
    let FieldValue::List(items) = list else {
        return None;
    };
    match of {
        Aggregate::Count => Some(number_from_i64(items.len().try_into().ok()?)),
        Aggregate::First => items.into_iter().next(),
        Aggregate::Last => items.into_iter().last(),
        Aggregate::Sum => {
            let zero = match items.first() {
                Some(FieldValue::Duration(_)) => FieldValue::Duration(0),
                _ => number_from_i64(0),
            };
            items
                .into_iter()
                .try_fold(zero, |total, item| arith(Arith::Add, total, item))
        }
        Aggregate::Min | Aggregate::Max => {
            let wanted = if of == Aggregate::Min {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            };
            let mut items = items.into_iter();
            let first = items.next()?;
            items.try_fold(first, |best, item| {
                Some(if order(&item, &best)? == wanted {
                    item
                } else {
                    best
                })
            })
        }
    }
}

fn number_from_i64(n: i64) -> FieldValue {
    FieldValue::Number(NumberValue(n.into()))
}

/// A number's value: whole when it is written whole (and fits), a float otherwise.
enum Num {
    Whole(i64),
    Float(f64),
}

fn num(value: &NumberValue) -> Option<Num> {
    match value.0.as_i64() {
        Some(n) => Some(Num::Whole(n)),
        None => value.0.as_f64().map(Num::Float),
    }
}

fn float(n: &Num) -> f64 {
    match n {
        // Whole numbers of a rule are far below 2^53, where the conversion is exact.
        Num::Whole(n) => *n as f64,
        Num::Float(f) => *f,
    }
}

fn numbers(op: Arith, a: Num, b: Num) -> Option<FieldValue> {
    if let (Num::Whole(x), Num::Whole(y)) = (&a, &b) {
        let whole = match op {
            Arith::Add => x.checked_add(*y),
            Arith::Sub => x.checked_sub(*y),
            Arith::Mul => x.checked_mul(*y),
            Arith::Div => None,
        };
        if let Some(n) = whole {
            return Some(number_from_i64(n));
        }
    }
    let (x, y) = (float(&a), float(&b));
    let result = match op {
        Arith::Add => x + y,
        Arith::Sub => x - y,
        Arith::Mul => x * y,
        Arith::Div => x / y,
    };
    serde_json::Number::from_f64(result).map(|n| FieldValue::Number(NumberValue(n)))
}

/// Minutes scaled by a number, rounded to the minute; none when negative.
fn scaled(minutes: u64, by: f64, op: Arith) -> Option<FieldValue> {
    let result = match op {
        Arith::Mul => minutes as f64 * by,
        _ => minutes as f64 / by,
    };
    (result.is_finite() && result >= 0.0 && result < u64::MAX as f64)
        .then(|| FieldValue::Duration(result.round() as u64))
}

fn arith(op: Arith, left: FieldValue, right: FieldValue) -> Option<FieldValue> {
    use FieldValue as V;
    let moved = |minutes: u64| -> Option<Duration> {
        let minutes = i64::try_from(minutes).ok()?;
        Duration::try_minutes(if op == Arith::Sub { -minutes } else { minutes })
    };
    match (left, right) {
        (V::Number(a), V::Number(b)) => numbers(op, num(&a)?, num(&b)?),
        (V::DateTime(at), V::Duration(m)) | (V::Duration(m), V::DateTime(at))
            if op != Arith::Mul && op != Arith::Div =>
        {
            Some(V::DateTime(ZonedDateTime {
                instant: at.instant.checked_add_signed(moved(m)?)?,
                zone: at.zone,
            }))
        }
        (V::Date(day), V::Duration(m)) if matches!(op, Arith::Add | Arith::Sub) => {
            let at = day.and_hms_opt(0, 0, 0)?.checked_add_signed(moved(m)?)?;
            Some(V::Date(at.date()))
        }
        (V::Duration(a), V::Duration(b)) => match op {
            Arith::Add => a.checked_add(b).map(V::Duration),
            Arith::Sub => a.checked_sub(b).map(V::Duration),
            _ => None,
        },
        (V::Duration(m), V::Number(n)) | (V::Number(n), V::Duration(m)) if op == Arith::Mul => {
            scaled(m, float(&num(&n)?), op)
        }
        (V::Duration(m), V::Number(n)) if op == Arith::Div => scaled(m, float(&num(&n)?), op),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value as Json};

    /// A place of paths alone: no clock, no records.
    struct Paths<'a>(&'a dyn Fn(&str) -> Option<FieldValue>);

    impl Reads for Paths<'_> {
        fn path(&self, path: &str) -> Option<FieldValue> {
            (self.0)(path)
        }
        fn now(&self) -> Option<DateTime<FixedOffset>> {
            None
        }
        fn over(&self, _: &Over) -> Option<Vec<FieldValue>> {
            None
        }
    }

    fn computed(text: &str, read: &dyn Fn(&str) -> Option<FieldValue>) -> Option<Json> {
        eval(&Expr::parse(text).unwrap(), &Paths(read)).map(|v| v.to_json())
    }

    #[test]
    fn numbers_stay_whole_until_divided() {
        let none = |_: &str| None;
        assert_eq!(computed("100 * 3", &none), Some(json!(300)));
        assert_eq!(computed("7 / 2", &none), Some(json!(3.5)));
        assert_eq!(computed("1 / 0", &none), None);
        assert_eq!(computed("2.5 + 1", &none), Some(json!(3.5)));
        assert_eq!(computed("2h + 30m", &none), Some(json!("PT2H30M")));
        assert_eq!(computed("30m - 2h", &none), None);
    }

    #[test]
    fn aggregates_read_lists() {
        let prices = |_: &str| {
            Some(FieldValue::List(vec![
                FieldValue::Number(NumberValue(120.into())),
                FieldValue::Number(NumberValue(80.into())),
            ]))
        };
        assert_eq!(computed("sum(f.price)", &prices), Some(json!(200)));
        assert_eq!(computed("min(f.price)", &prices), Some(json!(80)));
        assert_eq!(computed("max(f.price)", &prices), Some(json!(120)));
        assert_eq!(computed("count(f.price)", &prices), Some(json!(2)));
        assert_eq!(computed("last(f.price)", &prices), Some(json!(80)));
        let empty = |_: &str| Some(FieldValue::List(Vec::new()));
        assert_eq!(computed("sum(f.price)", &empty), Some(json!(0)));
        assert_eq!(computed("max(f.price)", &empty), None);
    }
}
