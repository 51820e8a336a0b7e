//! The top-level modules of casec form a DAG, and ARCHITECTURE.md's module table lists,
//! for each of them, exactly the modules it depends on directly (its "uses" column).
//!
//! The modules are those of `src/` and of the layer crates under `crates/`: a crate is
//! one module, named after its folder, unless the table lists its files one by one
//! (`crates/base/src/source.rs`: the foundations; the compiler's `resolve/`, `rules/`,
//! …), whose top-level files are then modules of their own. A
//! crate names the crates below it under their module names (`use casec_model as
//! model;`), so its code says `crate::model` as the compiler's modules do: one reading
//! for all.
//!
//! A module depends on another when its non-test code or its documentation names
//! `crate::OTHER` (in a path, a doc link or a `use crate::{…}` group). Plain comments,
//! `#[cfg(test)]` items and the files of `#[cfg(test)] mod NAME;` are left out: tests may
//! reach across phases. A cycle is reported with the files that close it.

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

/// The source folders of casec's layers: `src/` and each layer crate's `src/` (not the
/// test corpus generator, which no layer uses).
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![root().join("src")];
    for entry in fs::read_dir(root().join("crates")).expect("crates is readable") {
        let crate_dir = entry.expect("entry").path();
        if crate_dir.ends_with("corpus") {
            continue;
        }
        dirs.push(crate_dir.join("src"));
    }
    dirs.sort();
    dirs
}

/// The crates whose top-level files are modules of their own: those the table of
/// ARCHITECTURE.md lists by file (`crates/base/src/source.rs`), not as a whole
/// (`crates/lower/`).
fn split_crates() -> BTreeSet<String> {
    architecture_md()
        .lines()
        .filter_map(|line| line.strip_prefix("| `crates/")?.split_once("/src/"))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// The top-level module a file belongs to (`None` for the root's lib.rs and main.rs,
/// and the `lib.rs` of a crate of several modules).
fn module_of(file: &Path) -> Option<String> {
    if let Ok(relative) = file.strip_prefix(root().join("src")) {
        let first = relative.components().next()?.as_os_str().to_string_lossy();
        let name = first.trim_end_matches(".rs").to_string();
        return (name != "lib" && name != "main").then_some(name);
    }
    let in_crates = file.strip_prefix(root().join("crates")).ok()?;
    let crate_name = in_crates.components().next()?.as_os_str().to_string_lossy();
    let src = root().join("crates").join(&*crate_name).join("src");
    if !split_crates().contains(&*crate_name) {
        return Some(crate_name.to_string());
    }
    let first = file.strip_prefix(&src).ok()?.components().next()?;
    let name = first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string();
    (name != "lib").then_some(name)
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
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let after = &code[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
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

/// The files of the modules that `text` (the text of `file`) declares under
/// `#[cfg(test)]` without a body (`mod tests;`): test code kept in a file of its own.
fn test_module_files(file: &Path, text: &str) -> Vec<PathBuf> {
    let dir = if file.ends_with("mod.rs") || file.ends_with("lib.rs") {
        file.parent().unwrap_or(file).to_path_buf()
    } else {
        file.with_extension("")
    };
    let mut out = Vec::new();
    for (at, attribute) in text.match_indices("#[cfg(test)]") {
        let item = text[at + attribute.len()..].trim_start();
        let Some(declaration) = item.strip_prefix("mod ").and_then(|d| d.split_once(';')) else {
            continue;
        };
        let name = declaration.0.trim();
        if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push(dir.join(format!("{name}.rs")));
            out.push(dir.join(name).join("mod.rs"));
        }
    }
    out
}

/// module → (module it names → the first file that names it).
fn dependencies() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut files = Vec::new();
    for dir in source_dirs() {
        rust_files(&dir, &mut files);
    }
    files.sort();
    let texts: BTreeMap<&PathBuf, String> = files
        .iter()
        .map(|file| (file, fs::read_to_string(file).expect("readable")))
        .collect();
    let test_files: BTreeSet<PathBuf> = texts
        .iter()
        .flat_map(|(file, text)| test_module_files(file, text))
        .collect();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let reexported = reexported_items(&files, &modules);
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (file, text) in &texts {
        let Some(module) = module_of(file) else {
            continue;
        };
        let edges = graph.entry(module.clone()).or_default();
        if test_files.contains(*file) {
            continue;
        }
        let code = production_code(text);
        for named in named_modules(&code) {
            let named = match reexported.get(&named) {
                Some(owner) => owner.clone(),
                None => named,
            };
            if named != module && modules.contains(&named) {
                edges.entry(named).or_insert_with(|| (*file).clone());
            }
        }
    }
    graph
}

/// The items a crate's `lib.rs` re-exports from one of its modules (`pub use
/// compilation::{Compilation, Recheck};`), by name → that module: code that names
/// `crate::Compilation` depends on `compilation`.
fn reexported_items(files: &[PathBuf], modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for lib in files.iter().filter(|f| f.ends_with("lib.rs")) {
        let text = fs::read_to_string(lib).expect("readable");
        for line in text.lines().map(str::trim) {
            let Some((module, items)) = line
                .strip_prefix("pub use ")
                .and_then(|rest| rest.strip_suffix(';'))
                .and_then(|rest| rest.split_once("::"))
            else {
                continue;
            };
            if !modules.contains(module) {
                continue;
            }
            let items = items.trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                out.insert(item.to_string(), module.to_string());
            }
        }
    }
    out
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

/// The rows of ARCHITECTURE.md's module table, in order: each row's module (its first
/// cell, `src/NAME/`, `src/NAME.rs`, `crates/NAME/` or `crates/CRATE/src/NAME.rs`) and
/// the modules its last cell, "uses", lists (`—` for none).
fn documented_uses(map: &str) -> Vec<(String, BTreeSet<String>)> {
    map.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .strip_prefix('|')?
                .strip_suffix('|')?
                .split('|')
                .collect();
            let path = cells.first()?.trim().strip_prefix('`')?.strip_suffix('`')?;
            let module = module_named_by(path)?;
            let uses = match cells.last()?.trim() {
                "—" => BTreeSet::new(),
                listed => listed.split(',').map(|m| m.trim().to_string()).collect(),
            };
            Some((module.to_string(), uses))
        })
        .collect()
}

/// The module a path cell of the table names.
fn module_named_by(path: &str) -> Option<&str> {
    let path = path.trim_end_matches('/').trim_end_matches(".rs");
    if let Some(module) = path.strip_prefix("src/") {
        return Some(module);
    }
    let in_crates = path.strip_prefix("crates/")?;
    match in_crates.split_once("/src/") {
        Some((_, module)) => Some(module),
        None => Some(in_crates),
    }
}

fn architecture_md() -> String {
    fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// Each module's row lists exactly the modules it depends on directly, `driver`'s too: a
/// rule such as "driver may use everything" would hide which modules it reaches only
/// through `lib.rs` (`Compilation` runs resolve and the rules), so its row is a list like the
/// others.
#[test]
fn architecture_md_uses_column_is_each_modules_direct_dependencies() {
    let mut documented: BTreeMap<String, BTreeSet<String>> =
        documented_uses(&architecture_md()).into_iter().collect();
    let mut wrong = Vec::new();
    for (module, edges) in dependencies() {
        let Some(listed) = documented.remove(&module) else {
            wrong.push(format!(
                "{module}: no row (`src/{module}…` or `crates/…`) in the table"
            ));
            continue;
        };
        let add: Vec<String> = edges
            .iter()
            .filter(|(used, _)| !listed.contains(*used))
            .map(|(used, file)| {
                let file = file.strip_prefix(root()).unwrap_or(file);
                format!("{used} (named in {})", file.display())
            })
            .collect();
        let remove: Vec<String> = listed
            .into_iter()
            .filter(|m| !edges.contains_key(m))
            .collect();
        if !add.is_empty() || !remove.is_empty() {
            let add = if add.is_empty() {
                "—".to_string()
            } else {
                add.join(", ")
            };
            let remove = if remove.is_empty() {
                "—".to_string()
            } else {
                remove.join(", ")
            };
            wrong.push(format!("{module}: add {add}; remove {remove}"));
        }
    }
    for module in documented.keys() {
        wrong.push(format!("{module}: a row for a module casec does not have"));
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's \"uses\" column is not the direct dependencies in the code:\n{}",
        wrong.join("\n")
    );
}

/// The table reads bottom-up: a module uses only modules whose rows come before its own.
#[test]
fn architecture_md_lists_the_modules_in_dependency_order() {
    let graph = dependencies();
    let mut above = BTreeSet::new();
    let mut wrong = Vec::new();
    for (module, _) in documented_uses(&architecture_md()) {
        let below = graph
            .get(&module)
            .into_iter()
            .flat_map(|edges| edges.keys());
        for used in below.filter(|used| !above.contains(*used)) {
            wrong.push(format!("{module} uses {used}, whose row is not above it"));
        }
        above.insert(module);
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's module table is out of dependency order:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_table_reader_takes_the_first_and_last_cells() {
    let rows = documented_uses(
        "| module | what it does | uses |\n|---|---|---|\n\
         | `crates/base/src/source.rs` | files, a | b | — |\n| `src/diag/` | diagnostics | source, unicode |\n\
         | `crates/lower/` | outputs | diag |\n| a change | `src/x.rs` |\n",
    );
    let rows: Vec<(&str, Vec<&str>)> = rows
        .iter()
        .map(|(m, uses)| (m.as_str(), uses.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        rows,
        [
            ("source", vec![]),
            ("diag", vec!["source", "unicode"]),
            ("lower", vec!["diag"])
        ]
    );
}

#[test]
fn the_dependency_reader_sees_through_comments_and_tests() {
    let code = production_code(
        "use crate::{diag::X, model::{A, B}, unicode};\n// crate::lower is a comment\n\
         //! see [`crate::leaks`]\n\
         #[cfg(test)]\nmod tests { use crate::rules; }\nfn f() { crate::syntax::parse(); }",
    );
    let named: Vec<String> = named_modules(&code).into_iter().collect();
    assert_eq!(named, ["diag", "leaks", "model", "syntax", "unicode"]);
}

#[test]
fn a_test_module_in_a_file_of_its_own_is_test_code() {
    let text = "#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod inline {}\nmod real;";
    assert_eq!(
        test_module_files(Path::new("src/fmt/mod.rs"), text),
        [
            Path::new("src/fmt/tests.rs"),
            Path::new("src/fmt/tests/mod.rs")
        ]
    );
    assert_eq!(
        test_module_files(Path::new("src/lsp/view.rs"), "#[cfg(test)]\nmod tests;")[0],
        Path::new("src/lsp/view/tests.rs")
    );
}

#[test]
fn an_item_a_lib_rs_reexports_names_its_module() {
    let dir = std::env::temp_dir().join(format!("casec-architecture-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a temporary folder");
    let lib = dir.join("lib.rs");
    fs::write(
        &lib,
        "pub mod compilation;\npub use compilation::{Compilation, Recheck};\npub use other::Thing;\n",
    )
    .expect("written");
    let modules = BTreeSet::from(["compilation".to_string()]);
    let found = reexported_items(std::slice::from_ref(&lib), &modules);
    fs::remove_dir_all(&dir).ok();
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        [
            ("Compilation".to_string(), "compilation".to_string()),
            ("Recheck".to_string(), "compilation".to_string())
        ]
    );
    assert!(named_modules("use crate::{Compilation, model::Case};").contains("Compilation"));
}
