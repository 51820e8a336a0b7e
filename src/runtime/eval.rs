//! Deciding assertions (docs/worlds.md, "Assertions") over a finished run: state
//! assertions on the final records against the initial ones, trace assertions on the
//! events in order. Conditions on records read the final state; `fields.` conditions
//! on calls follow references through the final state too.

use crate::model::expect::{
    Assertion, CallOutcome, CellExpectation, Count, CsvExpectation, FileExpectation, Step,
};
use crate::model::value::FieldValue;

use super::conditions::{call_matches, record_matches};
use super::state::{Rec, State};
use super::values::normalize;
use super::{Event, Runtime};

/// Whether every assertion holds after the run.
pub fn holds_all(assertions: &[Assertion], rt: &Runtime) -> bool {
    assertions.iter().all(|a| holds(a, rt))
}

pub fn holds(assertion: &Assertion, rt: &Runtime) -> bool {
    let cx = rt.cx();
    let state = &rt.state;
    match assertion {
        Assertion::Exists(ids) => ids.iter().all(|id| state.get(id.as_str()).is_some()),
        Assertion::Absent(ids) => ids.iter().all(|id| state.get(id.as_str()).is_none()),
        Assertion::Unchanged {
            collections,
            records,
            except,
        } => {
            let except: Vec<&str> = except.iter().map(|e| e.as_str()).collect();
            unchanged(
                rt,
                collections.iter().map(|c| c.as_str()),
                records.iter().map(|r| r.as_str()),
                &except,
            )
        }
        Assertion::Changed {
            collections,
            records,
        } => !unchanged(
            rt,
            collections.iter().map(|c| c.as_str()),
            records.iter().map(|r| r.as_str()),
            &[],
        ),
        Assertion::Record { id, conditions } => state
            .get(id.as_str())
            .is_some_and(|r| record_matches(conditions, r, cx)),
        Assertion::Count {
            collection,
            count,
            conditions,
        } => {
            let n = state
                .in_collection(collection.as_str())
                .filter(|r| record_matches(conditions, r, cx))
                .count();
            counts(count, n)
        }
        Assertion::Called {
            tool,
            outcome,
            count,
            conditions,
        } => {
            let n = rt
                .events
                .iter()
                .filter(|e| call_step(tool.as_str(), *outcome, conditions, e, rt))
                .count();
            counts(count, n)
        }
        Assertion::Retrieved(ids) => ids.iter().all(|id| shown_after(rt, id.as_str(), None)),
        Assertion::VerifiedRecord(id) => verified(rt, id.as_str()),
        Assertion::VerifiedMatch {
            collection,
            conditions,
        } => state
            .in_collection(collection.as_str())
            .filter(|r| record_matches(conditions, r, cx))
            .any(|r| verified(rt, &r.id)),
        Assertion::InOrder(steps) => in_order(rt, steps),
        Assertion::OnlyAfter(steps) => only_after(rt, steps),
        Assertion::Asked => rt.events.iter().any(is_scripted_question),
        Assertion::File(file) => file_holds(file, state),
        Assertion::Any(inner) => inner.iter().any(|a| holds(a, rt)),
        Assertion::Not(inner) => !holds_all(inner, rt),
    }
}

/// A file at exactly the path, holding every text and the table expected.
fn file_holds(file: &FileExpectation, state: &State) -> bool {
    let store = &file.store;
    let text = |r: &Rec, field: &str| match r.field(field) {
        Some(FieldValue::Text(t)) => Some(t.clone()),
        _ => None,
    };
    let found = state
        .in_collection(store.collection.as_str())
        .find(|r| text(r, store.path_field.as_str()).as_deref() == Some(file.path.as_str()));
    let Some(content) = found.and_then(|r| text(r, store.content_field.as_str())) else {
        return false;
    };
    let normalized = normalize(&content);
    file.contains
        .iter()
        .all(|t| normalized.contains(&normalize(t.as_str())))
        && file
            .csv
            .as_ref()
            .is_none_or(|csv| table_holds(csv, &content))
}

/// The content as CSV with a header row: the columns, the row count and the rows.
fn table_holds(csv: &CsvExpectation, content: &str) -> bool {
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(content.as_bytes());
    let Ok(header) = reader.headers().cloned() else {
        return false;
    };
    let header: Vec<String> = header.iter().map(|h| h.trim().to_string()).collect();
    let Ok(rows) = reader.records().collect::<Result<Vec<_>, _>>() else {
        return false;
    };
    let columns_hold = csv.columns.is_empty()
        || csv
            .columns
            .iter()
            .map(|c| c.as_str())
            .eq(header.iter().map(String::as_str));
    let rows_hold = csv
        .rows
        .as_ref()
        .is_none_or(|count| counts(count, rows.len()));
    let row_holds = |cells: &Vec<CellExpectation>| {
        rows.iter().any(|row| {
            cells.iter().all(|cell| {
                let at = header.iter().position(|h| h == cell.column.as_str());
                at.and_then(|i| row.get(i)).is_some_and(|v| cell.holds(v))
            })
        })
    };
    columns_hold && rows_hold && csv.rows_with.iter().all(row_holds)
}

fn counts(count: &Count, n: usize) -> bool {
    let n = n as u64;
    match *count {
        Count::Exactly(k) => n == k,
        Count::AtLeast(k) => n >= k,
        Count::AtMost(k) => n <= k,
    }
}

/// Whether the event is a call of `tool`, with the outcome `outcome` counts, meeting
/// `conditions` (typed by the tool's declaration).
fn call_step(
    tool: &str,
    outcome: CallOutcome,
    conditions: &[crate::model::expect::Condition],
    event: &Event,
    rt: &Runtime,
) -> bool {
    let Event::Call(call) = event else {
        return false;
    };
    let Some(declared) = rt.tool(tool).filter(|_| call.tool == tool) else {
        return false;
    };
    outcome.counts(call.failed) && call_matches(conditions, declared, &call.arguments, rt.cx())
}

/// The assistant asked one of the case's scripted follow-up questions.
fn is_scripted_question(event: &Event) -> bool {
    matches!(
        event,
        Event::Asked {
            followup: Some(_),
            ..
        }
    )
}

fn unchanged<'a>(
    rt: &Runtime,
    collections: impl Iterator<Item = &'a str>,
    records: impl Iterator<Item = &'a str>,
    except: &[&str],
) -> bool {
    let same = |id: &str| same_record(rt.initial.get(id), rt.state.get(id));
    let collections: Vec<&str> = collections.collect();
    let in_scope = |s: &State| -> Vec<String> {
        s.records()
            .iter()
            .filter(|r| {
                collections.contains(&r.collection.as_str()) && !except.contains(&r.id.as_str())
            })
            .map(|r| r.id.clone())
            .collect()
    };
    let (before, after) = (in_scope(&rt.initial), in_scope(&rt.state));
    before == after
        && before.iter().all(|id| same(id))
        && records.filter(|id| !except.contains(id)).all(same)
}

fn same_record(before: Option<&Rec>, after: Option<&Rec>) -> bool {
    match (before, after) {
        (Some(a), Some(b)) => a.fields == b.fields,
        (None, None) => true,
        _ => false,
    }
}

/// Whether a call that changed nothing returned `id` after event `after` (if any).
fn shown_after(rt: &Runtime, id: &str, after: Option<usize>) -> bool {
    rt.events.iter().enumerate().any(|(i, e)| match e {
        Event::Call(call) => {
            after.is_none_or(|a| i > a)
                && call.changed.is_empty()
                && call.returned.iter().any(|r| r == id)
        }
        _ => false,
    })
}

/// Returned by a non-changing call after the record's last change.
fn verified(rt: &Runtime, id: &str) -> bool {
    let last_change = rt.events.iter().rposition(|e| match e {
        Event::Call(call) => call.changed.iter().any(|c| c == id),
        _ => false,
    });
    shown_after(rt, id, last_change)
}

fn step_matches(step: &Step, event: &Event, rt: &Runtime) -> bool {
    match step {
        Step::Asked => is_scripted_question(event),
        Step::Call {
            tool,
            outcome,
            conditions,
        } => call_step(tool.as_str(), *outcome, conditions, event, rt),
    }
}

fn in_order(rt: &Runtime, steps: &[Step]) -> bool {
    let mut pending = steps.iter().peekable();
    for event in &rt.events {
        if pending.peek().is_some_and(|s| step_matches(s, event, rt)) {
            pending.next();
        }
    }
    pending.peek().is_none()
}

fn only_after(rt: &Runtime, steps: &[Step]) -> bool {
    let [first, then] = steps else {
        return false;
    };
    let first_at = rt.events.iter().position(|e| step_matches(first, e, rt));
    rt.events
        .iter()
        .enumerate()
        .filter(|(_, e)| step_matches(then, e, rt))
        .all(|(i, _)| first_at.is_some_and(|f| f < i))
}
