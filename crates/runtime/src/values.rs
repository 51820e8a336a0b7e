//! Field values as tool calls carry them (JSON) and as assertions compare them.
//!
//! A model writes what the sandbox file shows it (RFC 3339 datetimes, ISO 8601
//! durations, RRULEs) or what a person would write ("2026-11-09 20:00", "30m",
//! "weekly tuesday"); both are accepted, so a correct write is never refused for its
//! spelling. Comparison follows docs/worlds.md: text without regard to case or runs of
//! white space, datetimes as instants, a recurrence without a time matching any time.

use std::cmp::Ordering;

use chrono::{DateTime, Datelike, Duration, Months, NaiveTime, Weekday};
use chrono_tz::Tz;
use serde_json::Value as Json;

use crate::model::expect::{pattern, Op};
use crate::model::time::{self, Frequency, Recurrence, ZonedDateTime};
use crate::model::value::{Bytes, FieldValue, NumberValue};
use crate::model::world::FieldType;
use crate::unicode::is_unspaced_letter;

/// Reads a JSON value as a value of `ty`; the error says what was expected.
pub fn from_json(json: &Json, ty: &FieldType, zone: Tz) -> Result<FieldValue, String> {
    let text = || {
        json.as_str()
            .ok_or_else(|| format!("expected {}", ty.describe()))
    };
    match ty {
        FieldType::Text => text().map(|s| FieldValue::Text(s.to_string())),
        FieldType::Bytes => Bytes::from_json(json).map(FieldValue::Bytes),
        FieldType::Date => time::parse_date(text()?).map(FieldValue::Date),
        FieldType::Time => time::parse_time(text()?).map(FieldValue::Time),
        FieldType::DateTime => datetime(text()?, zone).map(FieldValue::DateTime),
        FieldType::Duration => duration(text()?).map(FieldValue::Duration),
        FieldType::Recurrence => recurrence(text()?).map(FieldValue::Recurrence),
        FieldType::Bool => json
            .as_bool()
            .map(FieldValue::Bool)
            .ok_or_else(|| "expected true or false".to_string()),
        FieldType::Number => match json {
            Json::Number(n) => Ok(FieldValue::Number(NumberValue(n.clone()))),
            _ => Err("expected a number".to_string()),
        },
        FieldType::Integer => match json {
            Json::Number(n) if NumberValue::is_whole(n) => {
                Ok(FieldValue::Number(NumberValue(n.clone())))
            }
            _ => Err("expected a whole number".to_string()),
        },
        FieldType::Enum(options) => {
            let word = text()?;
            if options.iter().any(|o| o == word) {
                Ok(FieldValue::Enum(word.to_string()))
            } else {
                Err(format!("expected one of: {}", options.join(", ")))
            }
        }
        FieldType::Ref(_) => text().map(|s| FieldValue::Ref(s.to_string())),
        FieldType::List(item) => match json {
            Json::Array(items) => items
                .iter()
                .map(|i| from_json(i, item, zone))
                .collect::<Result<Vec<_>, _>>()
                .map(FieldValue::List),
            _ => Err(format!("expected a list of {}", item.describe())),
        },
    }
}

/// A datetime in the case zone: local, or RFC 3339 with any offset (converted).
fn datetime(text: &str, zone: Tz) -> Result<ZonedDateTime, String> {
    if let Ok(parsed) = time::parse_datetime(text, Some(zone)) {
        return Ok(parsed);
    }
    DateTime::parse_from_rfc3339(text)
        .map(|instant| ZonedDateTime {
            instant: instant.with_timezone(&zone).fixed_offset(),
            zone: None,
        })
        .map_err(|_| {
            "expected a datetime: \"2026-11-09T20:00:00-05:00\" or \"2026-11-09 20:00\"".to_string()
        })
}

/// `"30m"`, `"1h30m"` or ISO 8601 `"PT1H30M"`, `"P2D"`.
fn duration(text: &str) -> Result<u64, String> {
    let Some(iso) = text.strip_prefix('P') else {
        return time::parse_duration(text);
    };
    let lowered = iso.replace('T', "").to_ascii_lowercase();
    time::parse_duration(&lowered)
        .map_err(|_| "expected a duration: \"PT30M\" or \"30m\"".to_string())
}

/// `daily`, `"weekly tuesday 18:00"` or an RRULE (`FREQ=WEEKLY;BYDAY=TU;BYHOUR=18`).
fn recurrence(text: &str) -> Result<Recurrence, String> {
    if !text.contains("FREQ=") {
        return time::parse_recurrence(text);
    }
    let rule = |key: &str| {
        text.trim_start_matches("RRULE:")
            .split(';')
            .find_map(|part| part.strip_prefix(key)?.strip_prefix('='))
    };
    let bad = || format!("`{text}` is not an RRULE this sandbox reads");
    let frequency = match rule("FREQ") {
        Some("DAILY") => Frequency::Daily,
        Some("WEEKLY") => {
            let days: Option<Vec<Weekday>> = rule("BYDAY")
                .unwrap_or_default()
                .split(',')
                .map(day_of_code)
                .collect();
            Frequency::Weekly(days.filter(|d| !d.is_empty()).ok_or_else(bad)?)
        }
        Some("MONTHLY") => Frequency::Monthly(
            rule("BYMONTHDAY")
                .and_then(|d| d.parse().ok())
                .ok_or_else(bad)?,
        ),
        _ => return Err(bad()),
    };
    let number = |key: &str| rule(key).and_then(|n| n.parse::<u32>().ok());
    let time = match number("BYHOUR") {
        Some(hour) => Some(
            NaiveTime::from_hms_opt(hour, number("BYMINUTE").unwrap_or(0), 0).ok_or_else(bad)?,
        ),
        None => None,
    };
    Ok(Recurrence { frequency, time })
}

fn day_of_code(code: &str) -> Option<Weekday> {
    let days = [
        ("MO", Weekday::Mon),
        ("TU", Weekday::Tue),
        ("WE", Weekday::Wed),
        ("TH", Weekday::Thu),
        ("FR", Weekday::Fri),
        ("SA", Weekday::Sat),
        ("SU", Weekday::Sun),
    ];
    days.iter().find(|(c, _)| *c == code).map(|(_, d)| *d)
}

/// Text as compared: lower case, runs of white space as one space.
pub fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether `actual` (a record's or call's value) satisfies `op expected`.
pub fn satisfies(actual: Option<&FieldValue>, op: Op, expected: &FieldValue) -> bool {
    let Some(actual) = actual else {
        // A missing value equals nothing and contains nothing.
        return matches!(op, Op::Not | Op::Lacks);
    };
    match op {
        Op::Eq => equal(actual, expected),
        Op::Not => !equal(actual, expected),
        Op::Contains => contains(actual, expected),
        Op::Lacks => !contains(actual, expected),
        Op::Before => order(actual, expected) == Some(Ordering::Less),
        Op::After => order(actual, expected) == Some(Ordering::Greater),
        Op::In => match expected {
            FieldValue::List(options) => options.iter().any(|o| equal(actual, o)),
            _ => false,
        },
        Op::Is | Op::HasWord | Op::Matches | Op::HasNumber => match (actual, expected) {
            (FieldValue::Text(a) | FieldValue::Enum(a), FieldValue::Text(b)) => {
                text_holds(op, a, b)
            }
            _ => false,
        },
    }
}

/// The text operators, on the text as written: `is` equal to the letter, `has_word`
/// holding the words of `expected` in a row (letters and digits, case ignored),
/// `matches` a match of the pattern `expected` (one that does not compile matches
/// nothing; `casec check` refuses it where the suite writes it).
pub fn text_holds(op: Op, actual: &str, expected: &str) -> bool {
    match op {
        Op::Is => actual == expected,
        Op::HasWord => {
            let (words, wanted) = (text_words(actual), text_words(expected));
            !wanted.is_empty() && words.windows(wanted.len()).any(|w| w == wanted)
        }
        Op::Matches => pattern(expected).is_ok_and(|re| re.is_match(actual)),
        Op::HasNumber => expected.parse::<f64>().is_ok_and(|wanted| {
            numbers_in(actual)
                .iter()
                .any(|n| (n - wanted).abs() <= 1e-9 * wanted.abs().max(1.0))
        }),
        _ => false,
    }
}

/// The numbers written in a text: digits with an optional sign, `,` between groups of
/// thousands and a decimal point (`-3`, `1,250.50`, `0.5`).
pub fn numbers_in(text: &str) -> Vec<f64> {
    static NUMBER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let number = NUMBER.get_or_init(|| {
        regex::Regex::new(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")
            .expect("a valid pattern")
    });
    number
        .find_iter(text)
        .filter_map(|m| {
            // A dash after a letter or digit joins (2026-11-09, A-3): no minus sign.
            let joined = text[..m.start()]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let written = match joined {
                true => m.as_str().trim_start_matches('-'),
                false => m.as_str(),
            };
            written.replace(',', "").parse::<f64>().ok()
        })
        .collect()
}

/// The words of a text, lower case: runs of letters and digits, each Chinese or
/// Japanese character a word of its own (those scripts do not mark words with spaces,
/// so `has_word "会议"` finds the two characters in a row).
fn text_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_unspaced_letter(c) || !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word).to_lowercase());
            }
            if is_unspaced_letter(c) {
                words.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word.to_lowercase());
    }
    words
}

fn equal(actual: &FieldValue, expected: &FieldValue) -> bool {
    match (actual, expected) {
        (FieldValue::Text(a), FieldValue::Text(b)) => normalize(a) == normalize(b),
        (FieldValue::DateTime(a), FieldValue::DateTime(b)) => a.instant == b.instant,
        (FieldValue::Recurrence(a), FieldValue::Recurrence(b)) => {
            same_days(&a.frequency, &b.frequency) && (b.time.is_none() || a.time == b.time)
        }
        (FieldValue::Number(a), FieldValue::Number(b)) => a == b,
        // A text a rule writes (`status = 'active'` in an aggregate's `where`) names an
        // enum value or a record exactly.
        (FieldValue::Enum(a) | FieldValue::Ref(a), FieldValue::Text(b))
        | (FieldValue::Text(b), FieldValue::Enum(a) | FieldValue::Ref(a)) => a == b,
        (FieldValue::List(a), FieldValue::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
        }
        (a, b) => a == b,
    }
}

fn same_days(a: &Frequency, b: &Frequency) -> bool {
    match (a, b) {
        (Frequency::Weekly(x), Frequency::Weekly(y)) => {
            x.len() == y.len() && x.iter().all(|d| y.contains(d))
        }
        (a, b) => a == b,
    }
}

fn contains(actual: &FieldValue, expected: &FieldValue) -> bool {
    match (actual, expected) {
        (FieldValue::Text(a), FieldValue::Text(b)) => normalize(a).contains(&normalize(b)),
        // A file's content holds a text when it is text that holds it.
        (FieldValue::Bytes(a), FieldValue::Text(b)) => a
            .text()
            .is_some_and(|a| normalize(a).contains(&normalize(b))),
        (FieldValue::List(items), item) => items.iter().any(|i| equal(i, item)),
        _ => false,
    }
}

pub fn order(actual: &FieldValue, expected: &FieldValue) -> Option<Ordering> {
    match (actual, expected) {
        (FieldValue::Date(a), FieldValue::Date(b)) => Some(a.cmp(b)),
        (FieldValue::Time(a), FieldValue::Time(b)) => Some(a.cmp(b)),
        (FieldValue::DateTime(a), FieldValue::DateTime(b)) => Some(a.instant.cmp(&b.instant)),
        (FieldValue::Duration(a), FieldValue::Duration(b)) => Some(a.cmp(b)),
        (FieldValue::Number(a), FieldValue::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        _ => None,
    }
}

/// `.date` / `.time` of a datetime, local to the case zone.
pub fn datetime_part(value: &FieldValue, part: &str, zone: Tz) -> Option<FieldValue> {
    let FieldValue::DateTime(dt) = value else {
        return None;
    };
    let local = dt.instant.with_timezone(&zone);
    match part {
        "date" => Some(FieldValue::Date(local.date_naive())),
        "time" => Some(FieldValue::Time(local.time())),
        _ => None,
    }
}

/// The occurrence after `current` under `rule`, in the case zone.
pub fn next_occurrence(
    current: &ZonedDateTime,
    rule: &Recurrence,
    zone: Tz,
) -> Option<ZonedDateTime> {
    let local = current.instant.with_timezone(&zone);
    let next = match &rule.frequency {
        Frequency::Daily => local.checked_add_signed(Duration::days(1))?,
        Frequency::Weekly(days) => (1..=7)
            .filter_map(|n| local.checked_add_signed(Duration::days(n)))
            .find(|d| days.contains(&d.weekday()))?,
        Frequency::Monthly(_) => local.checked_add_months(Months::new(1))?,
    };
    Some(ZonedDateTime {
        instant: next.fixed_offset(),
        zone: current.zone.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::text_holds;
    use crate::model::expect::Op;

    #[test]
    fn text_operators_read_the_text_as_written() {
        assert!(text_holds(Op::Is, "NEW_PASSWORD", "NEW_PASSWORD"));
        assert!(!text_holds(Op::Is, "new_password", "NEW_PASSWORD"));
        assert!(!text_holds(Op::Is, "a  b", "a b"), "spaces count");
        assert!(text_holds(Op::HasWord, "Pizza! on Fridays", "pizza"));
        assert!(text_holds(Op::HasWord, "Pizza! on Fridays", "on fridays"));
        assert!(!text_holds(Op::HasWord, "Two pizzas", "pizza"));
        assert!(
            !text_holds(Op::HasWord, "anything", ""),
            "no words, no match"
        );
        assert!(text_holds(Op::HasWord, "会议在周五", "会议"));
        assert!(!text_holds(Op::HasWord, "会议在周五", "议会"));
        assert!(text_holds(Op::HasWord, "Meeting会议Friday", "meeting"));
        assert!(text_holds(Op::Matches, "ABC123", "^[A-Z]{3}[0-9]{3}$"));
        assert!(!text_holds(Op::Matches, "abc123", "^[A-Z]{3}[0-9]{3}$"));
        assert!(text_holds(Op::Matches, "abc123", "(?i)^[A-Z]{3}[0-9]{3}$"));
        assert!(
            !text_holds(Op::Matches, "x", "(unclosed"),
            "a broken pattern matches nothing"
        );
    }
}
