//! The case clock: `clock` must be an RFC 3339 time, `timezone` an IANA zone name, and
//! the clock's offset the zone's offset at that instant (a November clock in
//! America/New_York is at -05:00, not -04:00).
//!
//! Clocks and timezones are usually inherited from the suite, so the same pair is
//! shared by many cases. [`Clocks`] remembers what it has checked by span: each clock,
//! zone and pair is reported once, at the place it was written, whatever the number of
//! cases that inherit it.
//!
//! Guarantee: constant work per case (a parse and hash lookups); the zone-name
//! suggestion, which scans every known zone, runs only for an unknown zone.

use std::collections::HashSet;

use chrono::{DateTime, FixedOffset, Offset, TimeZone};
use chrono_tz::Tz;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::{Case, Text};
use crate::source::{SourceDb, Span, SpanSet};

use super::words;

/// What has been checked so far in a run.
#[derive(Default)]
pub struct Clocks {
    clocks: SpanSet,
    zones: SpanSet,
    pairs: HashSet<(Span, Span), foldhash::fast::FixedState>,
}

/// The case clock as a time with its written offset, when it is valid.
pub fn parse_clock(clock: &Text) -> Option<DateTime<FixedOffset>> {
    DateTime::parse_from_rfc3339(clock.as_str()).ok()
}

impl Clocks {
    /// The case's clock and zone, when its shape gives cases them.
    pub fn check(&mut self, case: &Case, db: &SourceDb, out: &mut Vec<Diagnostic>) {
        let time = case.clock.as_ref().map(|clock| {
            let time = DateTime::parse_from_rfc3339(clock.as_str());
            if self.clocks.insert(clock.span) {
                if let Err(e) = &time {
                    out.push(invalid_clock(clock, &e.to_string()));
                }
            }
            time
        });
        let zone = case.timezone.as_ref().map(|timezone| {
            let zone = timezone.as_str().parse::<Tz>();
            if self.zones.insert(timezone.span) && zone.is_err() {
                out.push(unknown_timezone(timezone));
            }
            zone
        });
        let (Some(clock), Some(timezone)) = (&case.clock, &case.timezone) else {
            return;
        };
        if let (Some(Ok(time)), Some(Ok(zone))) = (time, zone) {
            if self.pairs.insert((clock.span, timezone.span)) {
                offset(clock, timezone, time, zone, db, out);
            }
        }
    }
}

fn invalid_clock(clock: &Text, reason: &str) -> Diagnostic {
    Diagnostic::new(
        codes::INVALID_CLOCK,
        format!("`{}` is not an RFC 3339 time", clock.as_str()),
    )
    .primary(clock.span, reason.to_string())
    .help("write the date, `T`, the time and the offset, e.g. `2026-11-09T10:30:00-05:00`")
}

fn unknown_timezone(zone: &Text) -> Diagnostic {
    let d = Diagnostic::new(
        codes::UNKNOWN_TIMEZONE,
        format!("`{}` is not an IANA timezone", zone.as_str()),
    )
    .primary(zone.span, "unknown zone name");
    let names = chrono_tz::TZ_VARIANTS.iter().map(|tz| tz.name());
    match suggest(zone.as_str(), names) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(
            "use a zone name of the IANA database, e.g. `America/New_York` or `Europe/Berlin`",
        ),
    }
}

fn offset(
    clock: &Text,
    timezone: &Text,
    time: DateTime<FixedOffset>,
    zone: Tz,
    db: &SourceDb,
    out: &mut Vec<Diagnostic>,
) {
    let written = *time.offset();
    let actual = zone.offset_from_utc_datetime(&time.naive_utc()).fix();
    if written == actual {
        return;
    }
    out.push(
        Diagnostic::new(
            codes::CLOCK_OFFSET_MISMATCH,
            format!(
                "the clock's offset {written} is not {}'s offset at that instant ({actual})",
                zone.name()
            ),
        )
        .primary(
            offset_span(clock, db),
            format!("{} is at {actual} here", zone.name()),
        )
        .secondary(timezone.span, "the case's timezone")
        .help(format!(
            "write the offset as {actual}, or name the timezone the clock was meant for"
        )),
    );
}

/// The span of the clock's offset (`Z` or `±HH:MM`), or of the whole clock.
fn offset_span(clock: &Text, db: &SourceDb) -> Span {
    let value = clock.as_str();
    let len = if value.ends_with(['Z', 'z']) { 1 } else { 6 };
    let found = words::words(db, clock);
    match found.as_slice() {
        [word] if word.text == value && value.len() >= len => {
            word.part(value.len() - len..value.len())
        }
        _ => clock.span,
    }
}
