//! Source text without its machine parts (worlds, expectations, override machine
//! statements): what the master JSON is built from.

use casec::source::FileId;

/// A committed suite file without what no master can hold, so the importer cannot write
/// it: a case's `world`, `expect`, `forbid`, `review` and `allow` statements, and an
/// override's machine part (docs/worlds.md), each with the comment lines and the blank
/// line just above it. (The suite's `world_schema` stays: it brings the tools whose
/// contracts the master lists, and the importer names it.)
pub fn without_machine_parts(text: &str) -> String {
    const CASE_KEYS: &[&str] = &["world", "expect", "forbid", "review", "allow"];
    let Some(file) = casec::syntax::parse(FileId(0), text).file else {
        return text.to_string();
    };
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for top in &file.statements {
        let children = top.block.iter().flat_map(|b| &b.statements);
        for child in children {
            let machine = top.name() == "case" && CASE_KEYS.contains(&child.name());
            if machine {
                ranges.push((child.span.range().start, child.span.range().end));
            }
            if top.name() == "case" && child.name() == "override" {
                for part in child.block.iter().flat_map(|b| &b.statements) {
                    if casec::resolve::world::overrides::MACHINE_KEYS.contains(&part.name()) {
                        ranges.push((part.span.range().start, part.span.range().end));
                    }
                }
            }
        }
    }
    let mut out = text.to_string();
    let mut reports = report_aggregations(&file);
    for (start, end) in ranges.into_iter().rev() {
        let (start, end) = whole_lines(text, start, end);
        reports.retain(|&(s, _)| s < start || s >= end);
        reports.push((start, end));
    }
    reports.sort_unstable();
    for (start, end) in reports.into_iter().rev() {
        out.replace_range(start..end, "");
    }
    out
}

/// The blocks of `report` lines (` { outcomes }`): what `casec report` computes, which
/// no master holds.
fn report_aggregations(file: &casec::syntax::ast::File) -> Vec<(usize, usize)> {
    fn walk(statements: &[casec::syntax::ast::Statement], out: &mut Vec<(usize, usize)>) {
        for s in statements {
            match (&s.block, s.values.last()) {
                (Some(block), Some(last)) if s.name() == "report" => {
                    out.push((last.span.range().end, block.span.range().end));
                }
                (Some(block), _) => walk(&block.statements, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for top in file.statements.iter().filter(|s| s.name() == "suite") {
        walk(
            top.block
                .iter()
                .flat_map(|b| &b.statements)
                .cloned()
                .collect::<Vec<_>>()
                .as_slice(),
            &mut out,
        );
    }
    out
}

/// Widens a statement's byte range to its whole lines, the comment lines right above it
/// and one blank line above those.
fn whole_lines(text: &str, start: usize, end: usize) -> (usize, usize) {
    let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let mut start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    while start > 0 {
        let above = text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = text[above..start - 1].trim();
        if line.starts_with('#') {
            start = above;
        } else {
            if line.is_empty() {
                start = above;
            }
            break;
        }
    }
    (start, end)
}
