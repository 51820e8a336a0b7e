//! The top-level modules of `src/` form a DAG, and ARCHITECTURE.md names each of them.
//!
//! A module depends on another when its non-test code or its documentation names
//! `crate::OTHER` (in a path, a doc link or a `use crate::{…}` group). Plain comments
//! and `#[cfg(test)]` modules are left out: tests may reach across phases. A cycle is reported with the files that close it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for lib.rs and main.rs).
fn module_of(file: &Path) -> Option<String> {
    let relative = file.strip_prefix(root().join("src")).ok()?;
    let first = relative.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The code of a file without comments and without `#[cfg(test)]` items.
fn production_code(text: &str) -> String {
    let without_comments: String = text
        .lines()
        .map(|line| match line.find("//") {
            // Doc comments stay: a doc link to another module is a dependency too.
            Some(i) if line[i..].starts_with("///") || line[i..].starts_with("//!") => line,
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = without_comments.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = &rest[at + "#[cfg(test)]".len()..];
        rest = skip_item(rest);
    }
    out.push_str(rest);
    out
}

/// The text after the item that starts `text`: up to its `;` or its matching `}`.
fn skip_item(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            ';' if depth == 0 => return &text[i + 1..],
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// The modules `code` names: `crate::NAME` and the names of `use crate::{…}` groups.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let after = &code[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let group = group.split('}').next().unwrap_or_default();
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        out.insert(ident(&group[j..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(after));
        }
    }
    out.remove("");
    out
}

/// module → (module it names → the first file that names it).
fn dependencies() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_of(file) else {
            continue;
        };
        let code = production_code(&fs::read_to_string(file).expect("readable"));
        let edges = graph.entry(module.clone()).or_default();
        for named in named_modules(&code) {
            if named != module && modules.contains(&named) {
                edges.entry(named).or_insert_with(|| file.clone());
            }
        }
    }
    graph
}

/// A cycle through `start`, if any: the modules in order.
fn cycle_from(
    start: &str,
    graph: &BTreeMap<String, BTreeMap<String, PathBuf>>,
) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in graph.get(&module).into_iter().flat_map(|e| e.keys()) {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn the_top_level_modules_form_a_dag() {
    let graph = dependencies();
    assert!(graph.len() > 10, "{graph:?}");
    for module in graph.keys() {
        if let Some(cycle) = cycle_from(module, &graph) {
            let closing: Vec<String> = cycle
                .windows(2)
                .map(|w| {
                    let file = &graph[&w[0]][&w[1]];
                    let file = file.strip_prefix(root()).unwrap_or(file);
                    format!("{} → {} ({})", w[0], w[1], file.display())
                })
                .collect();
            panic!(
                "an import cycle among top-level modules:\n{}",
                closing.join("\n")
            );
        }
    }
}

#[test]
fn architecture_md_names_every_top_level_module() {
    let map = fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let missing: Vec<String> = dependencies()
        .into_keys()
        .filter(|module| !map.contains(&format!("`src/{module}")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name: {missing:?}"
    );
}

#[test]
fn the_dependency_reader_sees_through_comments_and_tests() {
    let code = production_code(
        "use crate::{diag::X, model::{A, B}};\n// crate::lower is a comment\n\
         //! see [`crate::leaks`]\n\
         #[cfg(test)]\nmod tests { use crate::check; }\nfn f() { crate::syntax::parse(); }",
    );
    let named: Vec<String> = named_modules(&code).into_iter().collect();
    assert_eq!(named, ["diag", "leaks", "model", "syntax"]);
}
