//! Dates, times, datetimes, durations and recurrences as authors write them.
//!
//! Authors write times the way the prose states them, in the case's timezone:
//! `"2026-11-09 20:00"` is resolved to the case zone (the offset is computed, DST
//! included); `"2026-11-09T20:00:00-05:00"` states the offset, which must then agree with
//! the zone. A bracketed IANA zone (`"2026-11-12 14:00[America/Los_Angeles]"`, RFC 9557)
//! places one value in another zone. Errors are plain messages; the caller locates them.

use chrono::{
    DateTime, FixedOffset, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone,
    Weekday,
};
use chrono_tz::Tz;

/// A datetime resolved to an instant, with the zone it was written in when not the case's.
#[derive(Clone, Debug, PartialEq)]
pub struct ZonedDateTime {
    pub instant: DateTime<FixedOffset>,
    pub zone: Option<String>,
}

impl ZonedDateTime {
    /// RFC 3339 with offset, plus the RFC 9557 zone suffix when one was written.
    pub fn render(&self) -> String {
        let base = self.instant.format("%Y-%m-%dT%H:%M:%S%:z").to_string();
        match &self.zone {
            Some(zone) => format!("{base}[{zone}]"),
            None => base,
        }
    }
}

/// Why a datetime was refused: a plain mistake, or an offset that the zone contradicts.
#[derive(Debug, PartialEq)]
pub enum DateTimeError {
    Invalid(String),
    /// A local time the zone's clocks skip or show twice on that date (a change of
    /// daylight saving time): what happens, and how to write a time that is real.
    Transition {
        why: String,
        help: String,
    },
    OffsetMismatch {
        written: String,
        expected: String,
        zone: String,
    },
    /// A local time where no zone is known to place it (neither the case's nor a
    /// bracketed one): only a time with its offset can be read there.
    NoZone,
}

pub fn parse_date(text: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| "a date is written YYYY-MM-DD, e.g. \"2026-11-09\"".to_string())
}

pub fn parse_time(text: &str) -> Result<NaiveTime, String> {
    NaiveTime::parse_from_str(text, "%H:%M")
        .or_else(|_| NaiveTime::parse_from_str(text, "%H:%M:%S"))
        .map_err(|_| "a time is written HH:MM on a 24-hour clock, e.g. \"20:00\"".to_string())
}

pub fn render_time(time: NaiveTime) -> String {
    if time.format("%S").to_string() == "00" {
        time.format("%H:%M").to_string()
    } else {
        time.format("%H:%M:%S").to_string()
    }
}

/// A datetime in `case_zone` (or the bracketed zone), local or with an offset.
pub fn parse_datetime(text: &str, case_zone: Option<Tz>) -> Result<ZonedDateTime, DateTimeError> {
    let invalid = |m: &str| DateTimeError::Invalid(m.to_string());
    let (stamp, bracket) = match text.split_once('[') {
        Some((stamp, rest)) => match rest.strip_suffix(']') {
            Some(zone) => (stamp, Some(zone)),
            None => {
                return Err(invalid(
                    "a zone suffix is written in brackets: [America/Los_Angeles]",
                ))
            }
        },
        None => (text, None),
    };
    let zone = match bracket {
        Some(name) => Some(name.parse::<Tz>().map_err(|_| {
            DateTimeError::Invalid(format!("`{name}` is not an IANA timezone name"))
        })?),
        None => case_zone,
    };
    let with_offset = DateTime::parse_from_rfc3339(stamp.trim());
    let Some(zone) = zone else {
        // Where no zone is known (a tool's refusal in a schema), an offset still places
        // the time: it is an instant, compared as one.
        return match with_offset {
            Ok(instant) => Ok(ZonedDateTime {
                instant,
                zone: None,
            }),
            Err(_) => Err(DateTimeError::NoZone),
        };
    };
    let instant = match with_offset {
        Ok(instant) => check_offset(instant, zone)?,
        Err(_) => local(stamp.trim(), zone)?,
    };
    Ok(ZonedDateTime {
        instant,
        zone: bracket.map(str::to_string),
    })
}

fn check_offset(
    instant: DateTime<FixedOffset>,
    zone: Tz,
) -> Result<DateTime<FixedOffset>, DateTimeError> {
    let expected = zone.offset_from_utc_datetime(&instant.naive_utc()).fix();
    if expected == *instant.offset() {
        return Ok(instant);
    }
    Err(DateTimeError::OffsetMismatch {
        written: instant.offset().to_string(),
        expected: expected.to_string(),
        zone: zone.name().to_string(),
    })
}

fn local(stamp: &str, zone: Tz) -> Result<DateTime<FixedOffset>, DateTimeError> {
    let formats = [
        "%Y-%m-%d %H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%dT%H:%M:%S",
    ];
    let naive = formats
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(stamp, f).ok())
        .ok_or_else(|| {
            DateTimeError::Invalid(
                "a datetime is written \"YYYY-MM-DD HH:MM\" in the case timezone, or RFC 3339 with its offset"
                    .to_string(),
            )
        })?;
    match zone.from_local_datetime(&naive) {
        LocalResult::Single(t) => Ok(t.fixed_offset()),
        LocalResult::Ambiguous(first, second) => Err(DateTimeError::Transition {
            why: format!("{stamp} happens twice in {} (clocks go back)", zone.name()),
            help: format!(
                "write the offset to choose one: \"{}\" (the first, {}) or \"{}\" (the second, {})",
                first.fixed_offset().format("%Y-%m-%dT%H:%M%:z"),
                first.offset(),
                second.fixed_offset().format("%Y-%m-%dT%H:%M%:z"),
                second.offset()
            ),
        }),
        LocalResult::None => {
            let (before, after) = gap_around(naive, zone);
            Err(DateTimeError::Transition {
                why: format!(
                    "{stamp} does not exist in {} (clocks go forward)",
                    zone.name()
                ),
                help: format!(
                    "on {} the clocks of {} go from {} straight to {}: write a time outside the \
                     skipped hour, e.g. \"{} {}\"",
                    naive.format("%Y-%m-%d"),
                    zone.name(),
                    before.format("%H:%M"),
                    after.format("%H:%M"),
                    naive.format("%Y-%m-%d"),
                    after.format("%H:%M")
                ),
            })
        }
    }
}

/// The last minute before and the first minute after the skipped local times around
/// `naive` (in a gap): a gap is at most a few hours, searched a minute at a time.
fn gap_around(naive: NaiveDateTime, zone: Tz) -> (NaiveDateTime, NaiveDateTime) {
    let minute = chrono::Duration::minutes(1);
    let exists = |t: NaiveDateTime| !matches!(zone.from_local_datetime(&t), LocalResult::None);
    let mut before = naive;
    let mut after = naive;
    for _ in 0..24 * 60 {
        if !exists(before) {
            before -= minute;
        }
        if !exists(after) {
            after += minute;
        }
    }
    (before, after)
}

/// Minutes in `"30m"`, `"1h"`, `"1h30m"`, `"2d"`.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let usage =
        || "a duration is written with d, h and m, e.g. \"30m\", \"1h30m\", \"2d\"".to_string();
    let mut minutes: u64 = 0;
    let mut number = String::new();
    let mut last_unit = 0;
    for c in text.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let (rank, scale) = match c {
            'd' => (1, 24 * 60),
            'h' => (2, 60),
            'm' => (3, 1),
            _ => return Err(usage()),
        };
        let n: u64 = number.parse().map_err(|_| usage())?;
        if rank <= last_unit {
            return Err(usage());
        }
        last_unit = rank;
        minutes = n
            .checked_mul(scale)
            .and_then(|m| minutes.checked_add(m))
            .ok_or_else(usage)?;
        number.clear();
    }
    if !number.is_empty() || last_unit == 0 {
        return Err(usage());
    }
    Ok(minutes)
}

/// ISO 8601: `PT30M`, `PT1H30M`, `PT0M`.
pub fn render_duration(minutes: u64) -> String {
    let (hours, rest) = (minutes / 60, minutes % 60);
    match (hours, rest) {
        (0, m) => format!("PT{m}M"),
        (h, 0) => format!("PT{h}H"),
        (h, m) => format!("PT{h}H{m}M"),
    }
}

/// A repeating schedule: `daily`, `weekdays`, `weekly tuesday`, `monthly 15`, each
/// optionally followed by its own time of day (`daily 08:00`).
#[derive(Clone, Debug, PartialEq)]
pub struct Recurrence {
    pub frequency: Frequency,
    pub time: Option<NaiveTime>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Frequency {
    Daily,
    Weekly(Vec<Weekday>),
    Monthly(u32),
}

pub fn parse_recurrence(text: &str) -> Result<Recurrence, String> {
    let usage = || {
        "a recurrence is `daily`, `weekdays`, \"weekly tuesday\" or \"monthly 15\", optionally followed by a time (\"daily 08:00\")"
            .to_string()
    };
    let mut words: Vec<&str> = text.split([' ', '-']).filter(|w| !w.is_empty()).collect();
    let time = match words.last().map(|w| parse_time(w)) {
        Some(Ok(time)) => {
            words.pop();
            Some(time)
        }
        _ => None,
    };
    let frequency = match words.as_slice() {
        ["daily"] => Frequency::Daily,
        ["weekdays"] => Frequency::Weekly(vec![
            Weekday::Mon,
            Weekday::Tue,
            Weekday::Wed,
            Weekday::Thu,
            Weekday::Fri,
        ]),
        ["weekly", days @ ..] if !days.is_empty() => {
            let days: Option<Vec<Weekday>> = days.iter().map(|d| weekday(d)).collect();
            Frequency::Weekly(days.ok_or_else(usage)?)
        }
        ["monthly", day] => match day.parse::<u32>() {
            Ok(d @ 1..=31) => Frequency::Monthly(d),
            _ => return Err(usage()),
        },
        _ => return Err(usage()),
    };
    Ok(Recurrence { frequency, time })
}

/// A weekday name, any case (chrono also takes the three-letter abbreviations).
fn weekday(word: &str) -> Option<Weekday> {
    word.parse().ok()
}

/// RFC 5545 RRULE text: `FREQ=WEEKLY;BYDAY=TU;BYHOUR=18;BYMINUTE=0`.
pub fn render_recurrence(r: &Recurrence) -> String {
    let mut rule = match &r.frequency {
        Frequency::Daily => "FREQ=DAILY".to_string(),
        Frequency::Weekly(days) => {
            let codes: Vec<&str> = days.iter().map(|d| day_code(*d)).collect();
            format!("FREQ=WEEKLY;BYDAY={}", codes.join(","))
        }
        Frequency::Monthly(day) => format!("FREQ=MONTHLY;BYMONTHDAY={day}"),
    };
    if let Some(time) = r.time {
        rule.push_str(&format!(
            ";BYHOUR={};BYMINUTE={}",
            time.format("%-H"),
            time.format("%-M")
        ));
    }
    rule
}

fn day_code(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "MO",
        Weekday::Tue => "TU",
        Weekday::Wed => "WE",
        Weekday::Thu => "TH",
        Weekday::Fri => "FR",
        Weekday::Sat => "SA",
        Weekday::Sun => "SU",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NY: Tz = chrono_tz::America::New_York;

    #[test]
    fn local_datetimes_take_the_zone_offset_of_their_date() {
        let winter = parse_datetime("2026-11-09 20:00", Some(NY)).unwrap();
        assert_eq!(winter.render(), "2026-11-09T20:00:00-05:00");
        let summer = parse_datetime("2026-07-01 08:00", Some(NY)).unwrap();
        assert_eq!(summer.render(), "2026-07-01T08:00:00-04:00");
    }

    /// Where no zone is known (a tool's rule), an offset places the time; a local time
    /// cannot be placed.
    #[test]
    fn without_a_zone_only_a_time_with_its_offset_is_read() {
        let placed = parse_datetime("2026-11-08T10:30:00-05:00", None).unwrap();
        assert_eq!(placed.render(), "2026-11-08T10:30:00-05:00");
        assert!(matches!(
            parse_datetime("2026-11-08 10:30", None),
            Err(DateTimeError::NoZone)
        ));
        assert!(parse_datetime("2026-11-08 10:30[America/New_York]", None).is_ok());
    }

    #[test]
    fn a_written_offset_must_agree_with_the_zone() {
        assert!(parse_datetime("2026-11-09T20:00:00-05:00", Some(NY)).is_ok());
        let err = parse_datetime("2026-11-09T20:00:00-04:00", Some(NY)).unwrap_err();
        assert_eq!(
            err,
            DateTimeError::OffsetMismatch {
                written: "-04:00".into(),
                expected: "-05:00".into(),
                zone: "America/New_York".into()
            }
        );
    }

    #[test]
    fn a_bracketed_zone_places_one_value_elsewhere() {
        let la = parse_datetime("2026-11-12 14:00[America/Los_Angeles]", Some(NY)).unwrap();
        assert_eq!(
            la.render(),
            "2026-11-12T14:00:00-08:00[America/Los_Angeles]"
        );
        assert!(parse_datetime("2026-11-12 14:00[Mars/Base]", Some(NY)).is_err());
    }

    #[test]
    fn gaps_and_repeats_of_dst_are_refused_with_how_to_write_a_real_time() {
        let Err(DateTimeError::Transition { help, .. }) =
            parse_datetime("2026-03-08 02:30", Some(NY))
        else {
            panic!("a gap");
        };
        assert!(help.contains("go from 01:59 straight to 03:00"), "{help}");
        assert!(help.contains("\"2026-03-08 03:00\""), "{help}");
        let Err(DateTimeError::Transition { help, .. }) =
            parse_datetime("2026-11-01 01:30", Some(NY))
        else {
            panic!("a repeat");
        };
        assert!(
            help.contains("\"2026-11-01T01:30-04:00\" (the first"),
            "{help}"
        );
        assert!(
            help.contains("\"2026-11-01T01:30-05:00\" (the second"),
            "{help}"
        );
    }

    #[test]
    fn durations_read_days_hours_minutes_in_order() {
        assert_eq!(parse_duration("30m"), Ok(30));
        assert_eq!(parse_duration("1h30m"), Ok(90));
        assert_eq!(parse_duration("2d"), Ok(2880));
        assert!(parse_duration("30m1h").is_err());
        assert!(parse_duration("30").is_err());
        assert!(parse_duration("").is_err());
        assert!(parse_duration("99999999999999999999d").is_err());
        assert_eq!(render_duration(90), "PT1H30M");
        assert_eq!(render_duration(30), "PT30M");
        assert_eq!(render_duration(1440), "PT24H");
    }

    #[test]
    fn recurrences_render_as_rrules() {
        let r = |t: &str| render_recurrence(&parse_recurrence(t).unwrap());
        assert_eq!(r("daily"), "FREQ=DAILY");
        assert_eq!(
            r("weekly tuesday 18:00"),
            "FREQ=WEEKLY;BYDAY=TU;BYHOUR=18;BYMINUTE=0"
        );
        assert_eq!(r("weekdays"), "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR");
        assert_eq!(r("monthly 15"), "FREQ=MONTHLY;BYMONTHDAY=15");
        assert!(parse_recurrence("weekly").is_err());
        assert!(parse_recurrence("hourly").is_err());
        assert!(parse_recurrence("monthly 32").is_err());
    }
}
