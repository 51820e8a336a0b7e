//! The order of a suite's cases: natural order of their ids (`TUJ-2` before `TUJ-10`),
//! or the suite's explicit `order`, with cases it leaves out after the listed ones.
//!
//! Guarantee: a total, deterministic order whatever the order of files; every id that
//! `order` lists twice or that names no case, and every case it leaves out, is
//! reported. Each case is moved once (cases are large: their indices are sorted).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Name};

pub(super) fn order_cases(cases: &mut [Case], order: Option<&[Name]>, diags: &mut Vec<Diagnostic>) {
    // Cases are large: sort their indices, then move each case once. Their ids are
    // gathered first, so that comparing two does not reach into two cases.
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let mut sorted: Vec<usize> = (0..cases.len()).collect();
    // Ids are unique, so any sort gives this order; the stable one merges the sorted
    // runs the files are read in (a folder's cases, in id order) instead of starting
    // over, which takes a 10,000-case suite a fraction of the comparisons.
    sorted.sort_by(|&a, &b| natural_cmp(ids[a], ids[b]));
    drop(ids);
    if let Some(order) = order {
        let position = order_positions(cases, order, diags);
        let rank: Vec<usize> = cases
            .iter()
            .map(|c| position.get(c.id.as_str()).copied().unwrap_or(usize::MAX))
            .collect();
        // Stable: cases `order` leaves out stay in id order, after the listed ones.
        sorted.sort_by_key(|&i| rank[i]);
    }
    permute(cases, sorted);
}

/// Each id's first place in `order`; reports ids listed twice or naming no case, and
/// cases left out.
fn order_positions<'a>(
    cases: &[Case],
    order: &'a [Name],
    diags: &mut Vec<Diagnostic>,
) -> HashMap<&'a str, usize> {
    let case_ids: HashSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let mut position: HashMap<&str, usize> = HashMap::new();
    for (i, id) in order.iter().enumerate() {
        if let Some(&first) = position.get(id.as_str()) {
            diags.push(
                Diagnostic::new(
                    codes::CASE_ORDER,
                    format!("`{}` is listed twice in `order`", id.as_str()),
                )
                .primary(id.span, "listed again here")
                .secondary(order[first].span, "first listed here"),
            );
        } else if !case_ids.contains(id.as_str()) {
            diags.push(
                Diagnostic::new(
                    codes::CASE_ORDER,
                    format!("`order` lists `{}`, which is not a case", id.as_str()),
                )
                .primary(id.span, "no case has this id")
                .help("remove it from `order` or fix the id"),
            );
        }
        position.entry(id.as_str()).or_insert(i);
    }
    let missing: Vec<&str> = cases
        .iter()
        .map(|c| c.id.as_str())
        .filter(|id| !position.contains_key(id))
        .collect();
    if let (Some(first), Some(last)) = (order.first(), order.last()) {
        if !missing.is_empty() {
            diags.push(
                Diagnostic::new(
                    codes::CASE_ORDER,
                    format!("`order` leaves out {} case(s)", missing.len()),
                )
                .primary(
                    first.span.to(last.span),
                    format!("missing: {}", missing.join(", ")),
                )
                .help("list every case once, or remove `order` to sort cases by id"),
            );
        }
    }
    position
}

/// Rearranges `items` so that place `i` holds what was at `order[i]` (`order` is a
/// permutation), moving each item once, along the permutation's cycles.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut current = start;
        while order[current] != DONE {
            let next = order[current];
            order[current] = DONE;
            if next == start {
                break;
            }
            items.swap(current, next);
            current = next;
        }
    }
}

/// Compares ids so that digit runs compare as numbers: `A2 < A10`. Works on bytes
/// (UTF-8 bytes order as the characters do, and no byte of a multi-byte character is an
/// ASCII digit): a large suite sorts its ids with it once per build.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    // A suite's ids share long prefixes (`TUJ-021-`), whose runs compare equal: the
    // comparison starts at the start of the run that reaches where the ids differ,
    // which is where that run starts in both.
    let mut start = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    if let Some(last) = start.checked_sub(1).map(|i| x[i].is_ascii_digit()) {
        while start > 0 && x[start - 1].is_ascii_digit() == last {
            start -= 1;
        }
    }
    let (mut i, mut j) = (start, start);
    loop {
        match (i == x.len(), j == y.len()) {
            (true, true) => return a.cmp(b),
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        let (dx, dy) = (x[i].is_ascii_digit(), y[j].is_ascii_digit());
        let (ex, ey) = (run_end(x, i, dx), run_end(y, j, dy));
        let ord = if dx && dy {
            let (tx, ty) = (trim_zeros(&x[i..ex]), trim_zeros(&y[j..ey]));
            tx.len().cmp(&ty.len()).then(tx.cmp(ty))
        } else {
            x[i..ex].cmp(&y[j..ey])
        };
        if ord != Ordering::Equal {
            return ord;
        }
        (i, j) = (ex, ey);
    }
}

/// Where the run of digits (or of other bytes) that starts at `from` ends.
fn run_end(bytes: &[u8], from: usize, digits: bool) -> usize {
    bytes[from..]
        .iter()
        .position(|b| b.is_ascii_digit() != digits)
        .map_or(bytes.len(), |n| from + n)
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&b| b == b'0').count();
    &digits[zeros..]
}

#[cfg(test)]
mod tests {
    use super::{natural_cmp, permute};
    use std::cmp::Ordering;

    #[test]
    fn permute_moves_each_item_to_its_place() {
        // Every permutation of five items, as their Lehmer codes.
        for code in 0..120usize {
            let mut pool: Vec<usize> = (0..5).collect();
            let mut order = Vec::new();
            let mut rest = code;
            for base in (1..=5).rev() {
                order.push(pool.remove(rest % base));
                rest /= base;
            }
            let mut items: Vec<char> = "abcde".chars().collect();
            let expected: Vec<char> = order.iter().map(|&i| items[i]).collect();
            permute(&mut items, order);
            assert_eq!(items, expected);
        }
        permute::<u8>(&mut [], Vec::new());
    }

    #[test]
    fn natural_order_compares_numbers_by_value() {
        assert_eq!(natural_cmp("A2", "A10"), Ordering::Less);
        assert_eq!(natural_cmp("TUJ-099", "TUJ-100"), Ordering::Less);
        assert_eq!(natural_cmp("b1", "a2"), Ordering::Greater);
        assert_eq!(natural_cmp("A01", "A1"), Ordering::Less);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
        // Runs of other characters compare as text: `A-` comes after `A`.
        assert_eq!(natural_cmp("A-1", "A1"), Ordering::Greater);
        assert_eq!(natural_cmp("A", "A0"), Ordering::Less);
        assert_eq!(natural_cmp("é9", "é10"), Ordering::Less);
        assert_eq!(natural_cmp("é10", "ê1"), Ordering::Less);
    }

    /// The order run by run from the start, as the comparison defines it.
    fn by_runs(a: &str, b: &str) -> Ordering {
        fn runs(s: &str) -> Vec<(bool, &[u8])> {
            let bytes = s.as_bytes();
            let mut out = Vec::new();
            let mut from = 0;
            while from < bytes.len() {
                let digits = bytes[from].is_ascii_digit();
                let end = super::run_end(bytes, from, digits);
                out.push((digits, &bytes[from..end]));
                from = end;
            }
            out
        }
        let (x, y) = (runs(a), runs(b));
        for (&(dx, rx), &(dy, ry)) in x.iter().zip(&y) {
            let ord = if dx && dy {
                let (tx, ty) = (super::trim_zeros(rx), super::trim_zeros(ry));
                tx.len().cmp(&ty.len()).then(tx.cmp(ty))
            } else {
                rx.cmp(ry)
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        x.len().cmp(&y.len()).then(a.cmp(b))
    }

    #[test]
    fn starting_where_ids_differ_gives_the_order_run_by_run() {
        let ids = [
            "",
            "7",
            "07",
            "TUJ-",
            "TUJ-0",
            "TUJ-00",
            "TUJ-021",
            "TUJ-021-",
            "TUJ-021-9",
            "TUJ-021-10",
            "TUJ-021-010",
            "TUJ-021-1a",
            "TUJ-021-1b",
            "TUJ-021-1-2",
            "TUJ-02",
            "TUJ-0210",
            "TUJ-12",
            "TUJ-1",
            "TUJ-a",
            "TUJ-ab",
            "TUJ-a1",
            "TUK-021",
            "TUJ-021x",
            "TUJ-021-9z",
            "TUJ-021-90",
            "é-12",
            "é-3",
            "é-03b",
            "A-1",
            "A1",
            "A",
            "A-",
        ];
        for a in ids {
            for b in ids {
                assert_eq!(natural_cmp(a, b), by_runs(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn natural_order_is_a_total_order() {
        let ids = [
            "",
            "0",
            "00",
            "1",
            "01",
            "10",
            "9",
            "A",
            "A0",
            "A00",
            "A1",
            "A01",
            "A1b",
            "A10",
            "A-1",
            "a1",
            "TUJ-099",
            "TUJ-100",
            "TUJ-100-2",
            "TUJ-100-10",
            "é1",
            "é01",
            "ê",
            "x9y",
            "x10y",
            "x9z",
        ];
        for a in ids {
            for b in ids {
                let ab = natural_cmp(a, b);
                assert_eq!(ab, natural_cmp(b, a).reverse(), "{a} {b}");
                assert_eq!(ab == Ordering::Equal, a == b, "{a} {b}");
                for c in ids {
                    if ab != Ordering::Greater && natural_cmp(b, c) != Ordering::Greater {
                        assert_ne!(natural_cmp(a, c), Ordering::Greater, "{a} {b} {c}");
                    }
                }
            }
        }
    }
}
