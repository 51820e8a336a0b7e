//! Deciding assertions (docs/worlds.md, "Assertions") over a finished run: state
//! assertions on the final records against the initial ones, trace assertions on the
//! events in order. Conditions on records read the final state; `fields.` conditions
//! on calls follow references through the final state too.

use std::cmp::Ordering;

use crate::model::expect::{
    cell_position, AggregateExpectation, AggregateValue, Assertion, CallOutcome, CellExpectation,
    Count, CsvExpectation, FileExpectation, ImageExpectation, Op, ReplyTest, SheetExpectation,
    Step,
};
use crate::model::expr::Aggregate;
use crate::model::value::FieldValue;

use super::artifacts;
use super::conditions::{call_matches, first_unmet, record_matches, unmet_reason, Cx};
use super::state::{Rec, State};
use super::values::{normalize, numbers_in, order, text_holds};
use super::{Event, Runtime};

/// Whether every assertion holds after the run.
pub fn holds_all(assertions: &[Assertion], rt: &Runtime) -> bool {
    assertions.iter().all(|a| holds(a, rt))
}

pub fn holds(assertion: &Assertion, rt: &Runtime) -> bool {
    miss(assertion, rt).is_none()
}

/// What the run left where `assertion` expected otherwise, in words (`None`: it holds).
/// The one decision of an assertion: [`holds`] asks it too, so a reason is given for
/// exactly the assertions that fail.
pub fn miss(assertion: &Assertion, rt: &Runtime) -> Option<String> {
    let cx = rt.cx();
    let state = &rt.state;
    match assertion {
        Assertion::Exists(ids) => ids
            .iter()
            .find(|id| state.get(id.as_str()).is_none())
            .map(|id| format!("no record `{id}`")),
        Assertion::Absent(ids) => ids
            .iter()
            .find(|id| state.get(id.as_str()).is_some())
            .map(|id| format!("record `{id}` is still there")),
        Assertion::Unchanged {
            collections,
            records,
            except,
        } => {
            let except: Vec<&str> = except.iter().map(|e| e.as_str()).collect();
            first_change(
                rt,
                collections.iter().map(|c| c.as_str()),
                records.iter().map(|r| r.as_str()),
                &except,
            )
        }
        Assertion::Changed {
            collections,
            records,
        } => first_change(
            rt,
            collections.iter().map(|c| c.as_str()),
            records.iter().map(|r| r.as_str()),
            &[],
        )
        .is_none()
        .then(|| "nothing changed".to_string()),
        Assertion::Record { id, conditions } => match state.get(id.as_str()) {
            None => Some(format!("no record `{id}`")),
            Some(record) => first_unmet(conditions, record, cx)
                .map(|c| format!("record `{id}`: {}", unmet_reason(c, record, cx))),
        },
        Assertion::Count {
            collection,
            count,
            conditions,
        } => {
            let n = state
                .in_collection(collection.as_str())
                .filter(|r| record_matches(conditions, r, cx))
                .count();
            (!counts(count, n)).then(|| {
                format!(
                    "{n} matching records of `{collection}`, expected {}",
                    count_words(count)
                )
            })
        }
        Assertion::Aggregate(aggregate) => aggregate_unmet(aggregate, state, cx),
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
            (!counts(count, n)).then(|| {
                format!(
                    "{n} matching calls of `{tool}`, expected {}",
                    count_words(count)
                )
            })
        }
        Assertion::Retrieved(ids) => ids
            .iter()
            .find(|id| !shown_after(rt, id.as_str(), None))
            .map(|id| format!("no call that changed nothing returned `{id}`")),
        Assertion::VerifiedRecord(id) => (!verified(rt, id.as_str()))
            .then(|| format!("`{id}` was not read back after its last change")),
        Assertion::VerifiedMatch {
            collection,
            conditions,
        } => {
            let matching: Vec<&Rec> = state
                .in_collection(collection.as_str())
                .filter(|r| record_matches(conditions, r, cx))
                .collect();
            (!matching.iter().any(|r| verified(rt, &r.id))).then(|| {
                format!(
                    "none of the {} matching records of `{collection}` was read back after its last change",
                    matching.len()
                )
            })
        }
        Assertion::InOrder(steps) => {
            let reached = steps_in_order(rt, steps);
            (reached < steps.len()).then(|| match reached {
                0 => "its first step never happened".to_string(),
                n => format!("no step {} after step {n}", n + 1),
            })
        }
        Assertion::OnlyAfter(steps) => only_after_miss(rt, steps),
        Assertion::Asked(which) => (!rt.events.iter().any(|e| is_scripted_question(e, *which)))
            .then(|| match which {
                None => "no scripted follow-up question was asked".to_string(),
                Some(n) => format!("scripted follow-up {n} was not asked"),
            }),
        Assertion::File(file) => file_miss(file, state),
        Assertion::Reply(test) => reply_miss(test, rt),
        Assertion::Any(inner) => {
            let misses: Option<Vec<String>> = inner.iter().map(|a| miss(a, rt)).collect();
            misses.map(|m| format!("none holds: {}", m.join("; ")))
        }
        Assertion::Not(inner) => {
            holds_all(inner, rt).then(|| "every assertion under `not` holds".to_string())
        }
    }
}

/// Why the file expectation fails: no file at exactly the path, a text it lacks, or a
/// table that is not the one expected.
fn file_miss(file: &FileExpectation, state: &State) -> Option<String> {
    let store = &file.store;
    let path = file.path.as_str();
    let text = |r: &Rec, field: &str| match r.field(field) {
        Some(FieldValue::Text(t)) => Some(t.clone()),
        _ => None,
    };
    let found = state
        .in_collection(store.collection.as_str())
        .find(|r| text(r, store.path_field.as_str()).as_deref() == Some(path));
    let Some(record) = found else {
        return Some(format!("no file `{path}`"));
    };
    let data: &[u8] = match record.field(store.content_field.as_str()) {
        Some(FieldValue::Text(t)) => t.as_bytes(),
        Some(FieldValue::Bytes(b)) => &b.data,
        _ => return Some(format!("no file `{path}`")),
    };
    if let Some(why) = sheets_miss(&file.sheets, data) {
        return Some(format!("`{path}`: {why}"));
    }
    if let Some(why) = file
        .image
        .as_ref()
        .and_then(|image| artifacts::image_miss(image, data))
    {
        let expected = file.image.as_ref().map(image_words).unwrap_or_default();
        return Some(format!("`{path}` is {why}, expected {expected}"));
    }
    if let Some(wanted) = &file.document_type {
        let found = artifacts::document_kind(data).unwrap_or("no document format");
        if found != wanted.as_str() {
            return Some(format!(
                "`{path}` is {found}, expected a {} document",
                wanted.as_str()
            ));
        }
    }
    if !file.document.is_empty() {
        let text = match artifacts::document_text(data) {
            Ok(text) => normalize(&text),
            Err(why) => return Some(format!("`{path}` is {why}")),
        };
        if let Some(lacking) = file
            .document
            .iter()
            .find(|t| !text.contains(&normalize(t.as_str())))
        {
            return Some(format!(
                "the text of `{path}` does not contain {:?}",
                lacking.as_str()
            ));
        }
    }
    let reads_text = !file.contains.is_empty() || file.csv.is_some() || file.json.is_some();
    let content = match std::str::from_utf8(data) {
        Ok(text) => text.to_string(),
        Err(_) if reads_text => {
            return Some(format!("`{path}` is not text ({} bytes)", data.len()))
        }
        Err(_) => return None,
    };
    let normalized = normalize(&content);
    if let Some(lacking) = file
        .contains
        .iter()
        .find(|t| !normalized.contains(&normalize(t.as_str())))
    {
        return Some(format!("`{path}` does not contain {:?}", lacking.as_str()));
    }
    if let Some(why) = file.csv.as_ref().and_then(|csv| table_miss(csv, &content)) {
        return Some(format!("`{path}`: {why}"));
    }
    let points = file.json.as_ref()?;
    let document: serde_json::Value = match serde_json::from_str(&content) {
        Ok(document) => document,
        Err(why) => return Some(format!("`{path}` is not JSON: {why}")),
    };
    points.iter().find_map(|point| {
        let pointer = point.pointer.as_str();
        match document.pointer(pointer) {
            None => Some(format!("`{path}` holds no value at `{pointer}`")),
            Some(found) => point
                .expected
                .miss(found)
                .map(|why| format!("`{path}` at `{pointer}` {why}")),
        }
    })
}

/// Why the content, read as CSV with a header row, is not the table expected: its
/// columns, its row count or a row it lacks.
fn table_miss(csv: &CsvExpectation, content: &str) -> Option<String> {
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(content.as_bytes());
    let Ok(header) = reader.headers().cloned() else {
        return Some("not CSV with a header row".into());
    };
    let header: Vec<String> = header.iter().map(|h| h.trim().to_string()).collect();
    let Ok(rows) = reader.records().collect::<Result<Vec<_>, _>>() else {
        return Some("not readable as CSV".into());
    };
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(str::to_string).collect())
        .collect();
    rows_miss(csv, &header, &rows)
}

/// Why a table (its header, then its data rows) is not the one expected: its columns,
/// its row count or a row it lacks.
fn rows_miss(csv: &CsvExpectation, header: &[String], rows: &[Vec<String>]) -> Option<String> {
    let columns_hold = csv.columns.is_empty()
        || csv
            .columns
            .iter()
            .map(|c| c.as_str())
            .eq(header.iter().map(String::as_str));
    if !columns_hold {
        return Some(format!("its columns are {}", header.join(", ")));
    }
    if csv
        .rows
        .as_ref()
        .is_some_and(|count| !counts(count, rows.len()))
    {
        let expected = csv.rows.as_ref().map(count_words).unwrap_or_default();
        return Some(format!("{} data rows, expected {expected}", rows.len()));
    }
    let row_holds = |cells: &Vec<CellExpectation>| {
        rows.iter().any(|row| {
            cells.iter().all(|cell| {
                let at = header.iter().position(|h| h == cell.column.as_str());
                at.and_then(|i| row.get(i)).is_some_and(|v| cell.holds(v))
            })
        })
    };
    let missing = csv.rows_with.iter().find(|cells| !row_holds(cells))?;
    let cells: Vec<String> = missing
        .iter()
        .map(|c| format!("{} {:?}", c.column.as_str(), c.value.as_str()))
        .collect();
    Some(format!("no row with {}", cells.join(", ")))
}

/// Why the assistant's final reply fails `test`.
fn reply_miss(test: &ReplyTest, rt: &Runtime) -> Option<String> {
    let last = rt.events.iter().rev().find_map(|e| match e {
        Event::Reply(text) => Some(text.as_str()),
        _ => None,
    });
    let Some(reply) = last else {
        return Some("the assistant never replied".into());
    };
    match test {
        ReplyTest::Text { op, text } => {
            let text = text.as_str();
            let holds = match op {
                Op::Contains => normalize(reply).contains(&normalize(text)),
                Op::Lacks => !normalize(reply).contains(&normalize(text)),
                op => text_holds(*op, reply, text),
            };
            (!holds).then(|| {
                format!(
                    "the final reply {:?} is not `{} {text:?}`",
                    shorten(reply),
                    op.as_str()
                )
            })
        }
        ReplyTest::Number { value, within } => {
            let expected = value.as_f64().unwrap_or(f64::NAN);
            let tolerance = within.as_ref().and_then(|t| t.as_f64()).unwrap_or(0.0);
            let found = numbers_in(reply);
            let holds = found.iter().any(|n| (n - expected).abs() <= tolerance);
            (!holds).then(|| {
                let listed: Vec<String> = found.iter().map(f64::to_string).collect();
                match listed.is_empty() {
                    true => format!("the final reply holds no number (expected {value})"),
                    false => format!(
                        "the final reply holds {}, none within {tolerance} of {value}",
                        listed.join(", ")
                    ),
                }
            })
        }
    }
}

/// Why a workbook's sheets are not the ones expected: the content is no workbook, a
/// sheet is not there, or its table or a cell is not as expected.
fn sheets_miss(sheets: &[SheetExpectation], data: &[u8]) -> Option<String> {
    if sheets.is_empty() {
        return None;
    }
    artifacts::guarded(|| Ok(sheets_read_miss(sheets, data))).unwrap_or_else(Some)
}

/// [`sheets_miss`], its reader unguarded: the workbook is opened once for all its sheets.
fn sheets_read_miss(sheets: &[SheetExpectation], data: &[u8]) -> Option<String> {
    let mut workbook = match calamine::open_workbook_auto_from_rs(std::io::Cursor::new(data)) {
        Ok(workbook) => workbook,
        Err(why) => return Some(format!("not a workbook (XLSX, XLS or ODS): {why}")),
    };
    sheets
        .iter()
        .find_map(|sheet| sheet_read_miss(sheet, &mut workbook))
}

/// Why one sheet of an open workbook is not the one expected.
fn sheet_read_miss<R: std::io::Read + std::io::Seek>(
    sheet: &SheetExpectation,
    workbook: &mut calamine::Sheets<R>,
) -> Option<String> {
    use calamine::Reader;
    let names = workbook.sheet_names();
    let name = match &sheet.name {
        Some(name) => name.as_str().to_string(),
        None => names.first()?.clone(),
    };
    let Ok(range) = workbook.worksheet_range(&name) else {
        return Some(format!(
            "has no sheet `{name}` (its sheets: {})",
            names.join(", ")
        ));
    };
    let text = |cell: &calamine::Data| match cell {
        calamine::Data::Empty => String::new(),
        other => other.to_string(),
    };
    let mut rows = range
        .rows()
        .map(|row| row.iter().map(text).collect::<Vec<_>>());
    let header: Vec<String> = rows
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|h| h.trim().to_string())
        .collect();
    let rows: Vec<Vec<String>> = rows.collect();
    if let Some(why) = rows_miss(&sheet.table, &header, &rows) {
        return Some(format!("sheet `{name}`: {why}"));
    }
    sheet.cells.iter().find_map(|cell| {
        let (row, column) = cell_position(cell.column.as_str())?;
        let found = range.get_value((row, column)).map(text).unwrap_or_default();
        (!cell.holds(&found)).then(|| {
            format!(
                "sheet `{name}`: cell {} is {found:?}, expected {:?}{}",
                cell.column.as_str(),
                cell.value.as_str(),
                cell.within
                    .map_or(String::new(), |t| format!(" within {t}"))
            )
        })
    })
}

/// An image expectation as the language writes it: `png 800×600`, `any image`.
fn image_words(image: &ImageExpectation) -> String {
    let kind = image.kind.as_ref().map_or("an image", |k| k.as_str());
    let size = |n: Option<u64>| n.map_or("any".to_string(), |n| n.to_string());
    format!(
        "{kind} of {}×{} pixels",
        size(image.width),
        size(image.height)
    )
}

/// At most 80 characters of a text, for a message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// A count as the language writes it (`exactly`, never written, spelt out).
fn count_words(count: &Count) -> String {
    match *count {
        Count::Exactly(k) => format!("exactly {k}"),
        Count::AtLeast(k) => format!("at_least {k}"),
        Count::AtMost(k) => format!("at_most {k}"),
    }
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

/// The assistant asked one of the case's scripted follow-up questions (`which`: the
/// Nth, from 1).
fn is_scripted_question(event: &Event, which: Option<u32>) -> bool {
    match event {
        Event::Asked {
            followup: Some(asked),
            ..
        } => which.is_none_or(|n| *asked == n as usize),
        _ => false,
    }
}

/// The first difference between the initial world and the final state over
/// `collections` and `records` (but `except`): a record added, removed or changed.
fn first_change<'a>(
    rt: &Runtime,
    collections: impl Iterator<Item = &'a str>,
    records: impl Iterator<Item = &'a str>,
    except: &[&str],
) -> Option<String> {
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
    if let Some(added) = after.iter().find(|id| !before.contains(id)) {
        return Some(format!("record `{added}` was added"));
    }
    let records = records
        .filter(|id| !except.contains(id))
        .map(str::to_string);
    before
        .into_iter()
        .chain(records)
        .find_map(|id| record_change(&id, rt.initial.get(&id), rt.state.get(&id)))
}

/// How a record differs between the initial world and the final state, if it does.
fn record_change(id: &str, before: Option<&Rec>, after: Option<&Rec>) -> Option<String> {
    match (before, after) {
        (Some(a), Some(b)) if a.fields != b.fields => {
            let field = |r: &Rec, name: &str| {
                r.field(name)
                    .map_or_else(|| "absent".to_string(), |v| v.to_json().to_string())
            };
            let names = a.fields.iter().chain(&b.fields).map(|(n, _)| n.as_str());
            let changed = names
                .clone()
                .find(|n| a.field(n) != b.field(n))
                .unwrap_or_default();
            Some(format!(
                "record `{id}` changed: `{changed}` was {}, is {}",
                field(a, changed),
                field(b, changed)
            ))
        }
        (Some(_), None) => Some(format!("record `{id}` was removed")),
        (None, Some(_)) => Some(format!("record `{id}` was added")),
        _ => None,
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
        Step::Asked(which) => is_scripted_question(event, *which),
        Step::Call {
            tool,
            outcome,
            conditions,
        } => call_step(tool.as_str(), *outcome, conditions, event, rt),
    }
}

/// How many of `steps` the events reach in order.
fn steps_in_order(rt: &Runtime, steps: &[Step]) -> usize {
    let mut reached = 0;
    for event in &rt.events {
        if steps
            .get(reached)
            .is_some_and(|s| step_matches(s, event, rt))
        {
            reached += 1;
        }
    }
    reached
}

/// Why `only_after [first, then]` fails: a `then` step before any `first` step.
fn only_after_miss(rt: &Runtime, steps: &[Step]) -> Option<String> {
    let [first, then] = steps else {
        return Some("it needs exactly two steps".into());
    };
    let first_at = rt.events.iter().position(|e| step_matches(first, e, rt));
    let early = rt
        .events
        .iter()
        .enumerate()
        .find(|(i, e)| step_matches(then, e, rt) && first_at.is_none_or(|f| *i < f))?;
    Some(match first_at {
        None => format!(
            "its second step happened (event {}) but never its first",
            early.0 + 1
        ),
        Some(f) => format!(
            "its second step happened at event {}, before its first (event {})",
            early.0 + 1,
            f + 1
        ),
    })
}

/// Why an aggregate assertion does not hold (`None` when it does).
fn aggregate_unmet(aggregate: &AggregateExpectation, state: &State, cx: Cx) -> Option<String> {
    let AggregateExpectation {
        of,
        collection,
        field,
        expected,
        conditions,
    } = aggregate;
    // The matching records holding the field, in world order.
    let values: Vec<(&str, &FieldValue)> = state
        .in_collection(collection.as_str())
        .filter(|r| record_matches(conditions, r, cx))
        .filter_map(|r| Some((r.id.as_str(), r.field(field.as_str())?)))
        .collect();
    let word = of.as_str();
    match expected {
        AggregateValue::Number { value, within } => {
            let numbers = values.iter().filter_map(|(_, v)| match v {
                FieldValue::Number(n) => n.as_f64(),
                _ => None,
            });
            let found = match of {
                Aggregate::Sum => Some(numbers.sum::<f64>()),
                Aggregate::Min => numbers.reduce(f64::min),
                _ => numbers.reduce(f64::max),
            };
            // A tolerance for the sum's own rounding: 0.1 + 0.2 is 0.3 to a person.
            let holds = found
                .is_some_and(|found| (found - value).abs() <= within + 1e-9 * value.abs().max(1.0));
            let what = match of {
                Aggregate::Sum => "adds up to",
                Aggregate::Min => "is at least",
                _ => "is at most",
            };
            (!holds).then(|| match found {
                Some(found) => format!("`{field}` of the matching records of `{collection}` {what} {found}, expected {word} {value} within {within}"),
                None => format!("no record of `{collection}` matches with a `{field}`, expected {word} {value} within {within}"),
            })
        }
        AggregateValue::Record(id) => {
            // Ties keep world order: `first` takes the earliest of them, `last` the latest.
            let wanted = if *of == Aggregate::First {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            let found = values
                .iter()
                .copied()
                .reduce(|best, item| match order(item.1, best.1) {
                    Some(o) if o == wanted => item,
                    Some(Ordering::Equal) if *of == Aggregate::Last => item,
                    _ => best,
                });
            let found_id = found.map(|(id, _)| id);
            (found_id != Some(id.as_str())).then(|| match found {
                Some((other, v)) => format!(
                    "the {word} matching record of `{collection}` by `{field}` is `{other}` ({}), expected `{id}`",
                    v.to_json()
                ),
                None => format!("no record of `{collection}` matches, expected `{id}` {word} by `{field}`"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::values::numbers_in;

    #[test]
    fn numbers_are_read_as_written_in_prose() {
        assert_eq!(numbers_in("The fare difference is $1,250.50."), [1250.5]);
        assert_eq!(numbers_in("-3 degrees, then 0.5 and 12"), [-3.0, 0.5, 12.0]);
        assert_eq!(
            numbers_in("on 2026-11-09, seat A-3"),
            [2026.0, 11.0, 9.0, 3.0]
        );
        assert_eq!(numbers_in("1,2,3"), [1.0, 2.0, 3.0]);
        assert!(numbers_in("no digits here").is_empty());
    }
}
