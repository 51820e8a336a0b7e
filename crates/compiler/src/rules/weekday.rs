//! Weekdays in prose: a weekday written next to a date must be that date's weekday.
//!
//! "November 10 Tuesday" and "tomorrow Tuesday November 10" are right for a 2026 case;
//! "Friday November 12" is not. Dates are a month name (or its abbreviation) and a day
//! (`12`, `12th`), optionally followed by a four-digit year, or an ISO date
//! (`2026-11-12`). A weekday counts as written next to a date when it directly follows
//! the date or directly precedes it, with no sentence punctuation between them; a
//! weekday is compared with the date before it first.
//!
//! A date without a year is taken in the year that puts it nearest to the case clock
//! (so "January 4" in a late-December case is next January). A case whose clock is not
//! valid is skipped: its clock is reported on its own.
//!
//! Guarantee: a warning (prose may be deliberate), allowable per case; one pass over
//! the words of each text.

use std::borrow::Cow;

use chrono::{Datelike, NaiveDate, Weekday};

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Text};
use crate::source::SourceDb;

use super::clock::parse_clock;
use super::words::{words, Word};

/// Month names and the abbreviations prose uses, with the month's number.
const MONTHS: [(&str, u32); 24] = [
    ("january", 1),
    ("jan", 1),
    ("february", 2),
    ("feb", 2),
    ("march", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("may", 5),
    ("june", 6),
    ("jun", 6),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("october", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("december", 12),
    ("dec", 12),
];

const WEEKDAYS: [(&str, Weekday); 7] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
];

/// A date written in prose: its words `first..=last` and the day it names (`None` for
/// an impossible date such as November 31, which has no weekday to compare).
struct DateMention {
    first: usize,
    last: usize,
    date: Option<NaiveDate>,
    year_written: bool,
}

/// Checks the texts written in `case` (the caller passes only those).
pub fn check(case: &Case, texts: &[&Text], db: &SourceDb, out: &mut Vec<Diagnostic>) {
    let Some(clock) = case.clock.as_ref().and_then(parse_clock) else {
        return;
    };
    let today = clock.date_naive();
    for text in texts {
        check_text(case, text, today, db, out);
    }
}

fn check_text(
    case: &Case,
    text: &Text,
    today: NaiveDate,
    db: &SourceDb,
    out: &mut Vec<Diagnostic>,
) {
    if !may_name_a_weekday(text.as_str()) {
        return;
    }
    let words = words(db, text);
    let norms: Vec<Cow<str>> = words.iter().map(Word::normalized).collect();
    for (i, norm) in norms.iter().enumerate() {
        let Some((name, weekday)) = weekday_of(norm) else {
            continue;
        };
        let Some(mention) =
            date_before(&words, &norms, i, today).or_else(|| date_after(&words, &norms, i, today))
        else {
            continue;
        };
        let Some(date) = mention.date else {
            continue;
        };
        if date.weekday() != weekday {
            out.push(mismatch(case, &words, i, name.len(), &mention, date));
        }
    }
}

/// Whether `text` holds a weekday's name in any letter case: a word names a weekday
/// only if it lower-cases to the name, and no letter but these lower-cases to them, so
/// a text without one (most texts, "today" among them) is not split at all.
fn may_name_a_weekday(text: &str) -> bool {
    let bytes = text.as_bytes();
    let ends_a_name = |end: usize| {
        WEEKDAYS.iter().any(|(name, _)| {
            let start = end.checked_sub(name.len());
            start.is_some_and(|start| bytes[start..end].eq_ignore_ascii_case(name.as_bytes()))
        })
    };
    bytes
        .iter()
        .enumerate()
        .any(|(at, b)| b.eq_ignore_ascii_case(&b'y') && ends_a_name(at + 1))
}

/// The date whose last word directly precedes word `i`, the longest first
/// ("November 9 2026 Monday", then "November 9 Monday", then "2026-11-09 Monday").
fn date_before(
    words: &[Word],
    norms: &[Cow<str>],
    i: usize,
    today: NaiveDate,
) -> Option<DateMention> {
    let previous = i.checked_sub(1)?;
    if words[previous].ends_sentence() {
        return None;
    }
    (1..=3)
        .rev()
        .filter_map(|back| i.checked_sub(back))
        .filter_map(|start| date_at(words, norms, start, today))
        .find(|mention| mention.last == previous)
}

/// The date that starts right after word `i`.
fn date_after(
    words: &[Word],
    norms: &[Cow<str>],
    i: usize,
    today: NaiveDate,
) -> Option<DateMention> {
    if words[i].ends_sentence() || i + 1 >= words.len() {
        return None;
    }
    date_at(words, norms, i + 1, today)
}

fn mismatch(
    case: &Case,
    words: &[Word],
    at: usize,
    name_len: usize,
    mention: &DateMention,
    date: NaiveDate,
) -> Diagnostic {
    let word = &words[at];
    let start = word.text.find(char::is_alphabetic).unwrap_or(0);
    let written = word.text.get(start..start + name_len).unwrap_or(&word.text);
    let actual = day_name(date.weekday());
    let year = if mention.year_written {
        "the year is the one written".to_string()
    } else {
        format!(
            "the year {} is the one nearest the case clock {}",
            date.year(),
            case.clock_text()
        )
    };
    Diagnostic::new(
        codes::WEEKDAY_MISMATCH,
        format!(
            "{} is a {actual}, not a {written}",
            date.format("%B %-d, %Y")
        ),
    )
    .primary(word.part(start..start + name_len), format!("this should be {actual}"))
    .secondary(
        words[mention.first].core().to(words[mention.last].core()),
        "this date",
    )
    .help(format!(
        "write `{actual}` or correct the date ({year}); if the text is right as it is, add `allow {}` to case {}",
        codes::WEEKDAY_MISMATCH,
        case.id.as_str()
    ))
}

/// The date written at word `i`, if one starts there.
fn date_at(words: &[Word], norms: &[Cow<str>], i: usize, today: NaiveDate) -> Option<DateMention> {
    if is_iso_date(&norms[i]) {
        return Some(DateMention {
            first: i,
            last: i,
            date: NaiveDate::parse_from_str(&norms[i], "%Y-%m-%d").ok(),
            year_written: true,
        });
    }
    let month = month_of(&norms[i])?;
    if words[i].ends_sentence() {
        return None;
    }
    let day = day_of(norms.get(i + 1)?)?;
    let year = norms
        .get(i + 2)
        .filter(|_| !words[i + 1].ends_sentence())
        .filter(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|y| y.parse::<i32>().ok());
    let (last, date) = match year {
        Some(year) => (i + 2, NaiveDate::from_ymd_opt(year, month, day)),
        None => (i + 1, nearest(month, day, today)),
    };
    Some(DateMention {
        first: i,
        last,
        date,
        year_written: year.is_some(),
    })
}

/// `YYYY-MM-DD` in shape (the date itself may still be impossible).
fn is_iso_date(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// The date with this month and day nearest to `today` (last, this or next year).
fn nearest(month: u32, day: u32, today: NaiveDate) -> Option<NaiveDate> {
    (today.year() - 1..=today.year() + 1)
        .filter_map(|year| NaiveDate::from_ymd_opt(year, month, day))
        .min_by_key(|date| (*date - today).num_days().abs())
}

/// The month a normalized word names.
fn month_of(word: &str) -> Option<u32> {
    MONTHS
        .iter()
        .find(|(name, _)| *name == word)
        .map(|(_, m)| *m)
}

/// `12`, `12th`, `1st`, `2nd`, `3rd`: a day of the month.
fn day_of(word: &str) -> Option<u32> {
    let digits = word
        .strip_suffix("st")
        .or_else(|| word.strip_suffix("nd"))
        .or_else(|| word.strip_suffix("rd"))
        .or_else(|| word.strip_suffix("th"))
        .unwrap_or(word);
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

/// The weekday a word names (`Friday`, `Friday's`), with the name as matched.
fn weekday_of(word: &str) -> Option<(&'static str, Weekday)> {
    let word = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("’s"))
        .unwrap_or(word);
    WEEKDAYS.iter().copied().find(|(name, _)| *name == word)
}

fn day_name(weekday: Weekday) -> &'static str {
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ][weekday.num_days_from_monday() as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 9).unwrap()
    }

    #[test]
    fn a_date_without_a_year_is_the_nearest_to_the_clock() {
        assert_eq!(
            nearest(11, 12, today()),
            NaiveDate::from_ymd_opt(2026, 11, 12)
        );
        assert_eq!(nearest(1, 4, today()), NaiveDate::from_ymd_opt(2027, 1, 4));
        assert_eq!(nearest(2, 30, today()), None);
    }

    #[test]
    fn iso_dates_are_recognised_by_shape() {
        assert!(is_iso_date("2026-11-12"));
        assert!(is_iso_date("2026-13-45"));
        assert!(!is_iso_date("2026-1-12"));
        assert!(!is_iso_date("20261112ab"));
    }

    #[test]
    fn days_accept_ordinal_suffixes_only_within_a_month() {
        assert_eq!(day_of("12th"), Some(12));
        assert_eq!(day_of("1st"), Some(1));
        assert_eq!(day_of("32"), None);
        assert_eq!(day_of("10:00"), None);
        assert_eq!(day_of("th"), None);
    }

    #[test]
    fn only_texts_with_a_weekday_name_are_split() {
        assert!(may_name_a_weekday("see you on MONDAY."));
        assert!(may_name_a_weekday("Friday's plan"));
        assert!(may_name_a_weekday("sunday"));
        assert!(!may_name_a_weekday("today, in a few days, every day"));
        assert!(!may_name_a_weekday("y"));
        assert!(!may_name_a_weekday(""));
    }

    #[test]
    fn weekdays_and_months_are_recognised_in_their_written_forms() {
        assert_eq!(weekday_of("friday's").map(|w| w.1), Some(Weekday::Fri));
        assert_eq!(weekday_of("fridays"), None);
        assert_eq!(month_of("nov"), Some(11));
        assert_eq!(month_of("sept"), Some(9));
        assert_eq!(month_of("mayday"), None);
    }
}
