//! Rule tests for the grammar and the tree builder.

use super::*;
use crate::source::FileId;

fn parse_ok(text: &str) -> File {
    let parsed = parse(FileId(0), text);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.file.expect("tree")
}

fn parse_err(text: &str) -> Diagnostic {
    let parsed = parse(FileId(0), text);
    assert!(parsed.file.is_none(), "expected a syntax error in {text:?}");
    parsed.diagnostics.into_iter().next().expect("diagnostic")
}

fn rule_matches(rule: Rule, text: &str) -> bool {
    CaseParser::parse(rule, text).is_ok_and(|mut p| p.next().is_some_and(|p| p.as_str() == text))
}

#[test]
fn ident_rule() {
    for ok in ["a", "TUJ-011", "std.everyday_assistance", "_x9"] {
        assert!(rule_matches(Rule::ident, ok), "{ok}");
    }
    for bad in ["9a", "-a", ".a"] {
        assert!(!rule_matches(Rule::ident, bad), "{bad}");
    }
}

#[test]
fn number_rule() {
    for ok in ["0", "100", "-3", "2.5", "1e300", "3.18e-139", "-2E+5"] {
        assert!(rule_matches(Rule::number, ok), "{ok}");
    }
    for bad in ["1.", "1e", "1e+", "e5"] {
        assert!(!rule_matches(Rule::number, bad), "{bad}");
    }
}

#[test]
fn string_rule() {
    assert!(rule_matches(Rule::string, r#""a \"b\" c""#));
    assert!(rule_matches(Rule::string, r#""""#));
    assert!(!rule_matches(Rule::string, "\"a\nb\""));
    // The character ranges of a string body: everything but `"`, `\` and line breaks.
    assert!(rule_matches(
        Rule::string,
        "\"é😀 \u{0}\u{b}\u{e}#[]~\u{10ffff}\""
    ));
    assert!(rule_matches(Rule::string, "\"a lone \r is kept\""));
    assert!(!rule_matches(Rule::string, "\"a\r\nb\""));
    assert!(!rule_matches(Rule::string, "\"a\"b\""));
    assert!(!rule_matches(Rule::string, "\"a\\\""));
}

#[test]
fn text_block_rule() {
    assert!(rule_matches(
        Rule::text_block,
        "\"\"\"\n  a \"quoted\" word\n\"\"\""
    ));
    assert!(rule_matches(
        Rule::text_block,
        "\"\"\"\n  two \"\" quotes, é and !\n\"\"\""
    ));
    assert!(!rule_matches(
        Rule::text_block,
        "\"\"\"\n  three \"\"\" quotes\n\"\"\""
    ));
}

#[test]
fn comment_rule() {
    assert!(rule_matches(Rule::COMMENT, "# a comment"));
}

#[test]
fn statements_keys_values_and_blocks() {
    let file = parse_ok("case TUJ-011 \"Title\" {\n  tags a b\n  count 3\n}\n");
    assert_eq!(file.statements.len(), 1);
    let case = &file.statements[0];
    assert_eq!(case.name(), "case");
    assert_eq!(case.values.len(), 2);
    assert_eq!(case.values[0].as_ident(), Some("TUJ-011"));
    assert_eq!(case.values[1].as_str(), Some("Title"));
    let block = case.block.as_ref().expect("block");
    assert_eq!(block.statements.len(), 2);
    assert_eq!(block.statements[0].values.len(), 2);
}

#[test]
fn statements_may_share_a_line_with_semicolons_and_braces() {
    let file = parse_ok("a 1; b 2\nc { d 1; e 2 }\nf {}");
    assert_eq!(file.statements.len(), 4);
    assert_eq!(
        file.statements[2].block.as_ref().unwrap().statements.len(),
        2
    );
}

#[test]
fn lists_span_lines_and_hold_blocks() {
    let file = parse_ok("x [\n  1,\n  \"two\",\n  { a 1 },\n]\ny []");
    match &file.statements[0].values[0].kind {
        ValueKind::List(items) => assert_eq!(items.len(), 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn comments_are_kept_beside_the_tree() {
    let file = parse_ok("# head\na 1 # tail\nb {\n  # inner\n}\n");
    assert_eq!(file.comments.len(), 3);
    assert_eq!(file.statements.len(), 2);
}

#[test]
fn spans_cover_their_text() {
    let text = "key \"value\"";
    let file = parse_ok(text);
    let value = &file.statements[0].values[0];
    assert_eq!(&text[value.span.range()], "\"value\"");
    assert_eq!(&text[file.statements[0].key.span.range()], "key");
}

#[test]
fn text_blocks_fold() {
    let file = parse_ok("purpose \"\"\"\n  one\n  two\n  \"\"\"\n");
    assert_eq!(file.statements[0].values[0].as_str(), Some("one two"));
}

#[test]
fn quoted_keys_are_allowed() {
    let file = parse_ok("\"odd key\" 1");
    assert!(file.statements[0].key.quoted);
    assert_eq!(file.statements[0].name(), "odd key");
}

#[test]
fn unclosed_block_points_at_its_brace() {
    let d = parse_err("case X \"t\" {\n  a 1\n");
    assert!(d.message.starts_with("unclosed block"));
    assert_eq!(d.labels[0].span.range(), 11..12);
}

#[test]
fn unterminated_string_is_named() {
    let d = parse_err("a \"open\nb 1\n");
    assert_eq!(d.message, "unterminated string");
    assert_eq!(d.labels[0].span.range(), 2..7);
}

#[test]
fn stray_closing_brace_is_explained() {
    let d = parse_err("a 1\n}\n");
    assert!(d.help.as_deref().unwrap().contains("closes no block"));
}

#[test]
fn two_statements_on_one_line_need_a_separator() {
    let d = parse_err("a 1 b { }\nc \"x\" \"y\" {\n} d");
    assert_eq!(d.code, crate::diag::codes::SYNTAX);
}

#[test]
fn empty_and_comment_only_files_parse() {
    assert!(parse_ok("").statements.is_empty());
    assert!(parse_ok("\n# only a comment\n\n").statements.is_empty());
}

#[test]
fn a_byte_order_mark_may_open_a_file_and_spans_count_its_bytes() {
    let text = "\u{FEFF}key \"value\"";
    let file = parse_ok(text);
    assert_eq!(&text[file.statements[0].key.span.range()], "key");
}

#[test]
fn an_invisible_character_is_named_by_its_code_point() {
    let d = parse_err("a 1\n\u{200B}b 2\n");
    assert_eq!(d.message, "unexpected invisible character U+200B");
    assert!(d.help.as_deref().unwrap().contains("invisible"));
}

/// The direct parser stops where the nesting scan does, so that skipping the scan for
/// the files it parses lets no deeper file through: blocks, lists and a mix of both,
/// at the limit and one level past it.
#[test]
fn the_direct_parser_refuses_what_the_nesting_scan_refuses() {
    use nesting::MAX_DEPTH;
    let blocks = |n: usize| format!("a {}{}\n", "{ b ".repeat(n), "}".repeat(n));
    let lists = |n: usize| format!("a {}{}\n", "[".repeat(n), "]".repeat(n));
    let mixed = |n: usize| {
        let open: String = (0..n)
            .map(|i| if i % 2 == 0 { "[{ b " } else { "[" })
            .collect();
        let close: String = (0..n)
            .rev()
            .map(|i| if i % 2 == 0 { "}]" } else { "]" })
            .collect();
        format!("a {open}{close}\n")
    };
    let levels = |text: &str| text.bytes().filter(|b| matches!(b, b'{' | b'[')).count();
    for (name, make) in [
        ("blocks", &blocks as &dyn Fn(usize) -> String),
        ("lists", &lists),
        ("mixed", &mixed),
    ] {
        let mut tried = 0;
        for n in 1..=MAX_DEPTH + 1 {
            let text = make(n);
            if levels(&text) != MAX_DEPTH && levels(&text) != MAX_DEPTH + 1 {
                continue;
            }
            tried += 1;
            let scan = nesting::too_deep(FileId(3), &text).is_some();
            let direct = direct::parse(FileId(3), &text).is_some();
            assert_eq!(direct, !scan, "{name}, {} levels", levels(&text));
            assert_eq!(parse(FileId(3), &text).file.is_some(), !scan, "{name}");
        }
        assert!(tried > 0, "{name}: no text at the limit");
    }
}

/// Both parsers' results, for the differential tests: the hand-written one (`None` when
/// it gives up) and pest's.
fn both(text: &str) -> (Option<String>, Parsed) {
    let direct = direct::parse(FileId(3), text).map(|(file, diagnostics)| {
        format!(
            "{:?}",
            Parsed {
                file: Some(file),
                diagnostics
            }
        )
    });
    (direct, parse_with_pest(FileId(3), text))
}

/// The hand-written parser accepts exactly what pest accepts, with the same tree,
/// comments and diagnostics. Files nested too deep are refused before either parser runs.
fn assert_same(text: &str) {
    if nesting::too_deep(FileId(3), text).is_some() {
        return;
    }
    let (direct, pest) = both(text);
    match direct {
        Some(direct) => assert_eq!(direct, format!("{pest:?}"), "{text:?}"),
        None => assert!(pest.file.is_none(), "only pest parses {text:?}"),
    }
}

#[test]
fn the_direct_parser_agrees_with_pest_on_every_case_file() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "case") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = Vec::new();
    for dir in ["cases", "stdlib", "tests", "docs", "editors"] {
        walk(&root.join(dir), &mut files);
    }
    assert!(files.len() > 200, "{}", files.len());
    let mut parsed = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (direct, _) = both(&text);
        parsed += usize::from(direct.is_some());
        assert_same(&text);
    }
    assert!(parsed > 200, "{parsed}");
}

#[test]
fn the_direct_parser_agrees_with_pest_on_tricky_inputs() {
    for text in [
        "",
        "\u{FEFF}",
        " \u{FEFF} a",
        "a # c\r\nb",
        "a #\r\r\n",
        "a\r",
        "\"\"\"x\"\"\" 1",
        "a \"\"\"x\"\"\"",
        "a \"\"\"\n x\n\"\"\" \"\"\"",
        "a \"\\\r\n\"",
        "a \"\\\r\"",
        "a \"\\é\" \"\\",
        "a 1abc -2.5e+3x 1.e 1e",
        "a -",
        "a [ # c\n 1 , # d\n { b 1 } ,\n ]",
        "a [,]",
        "a [1,,2]",
        "a [1 2]",
        "a { ; b 1 ;; c { } }\n}",
        "a{b}c",
        "a {}\n\n# end",
        "a 1 b { }\nc \"x\" \"y\" {\n} d",
        "\"k\"v [] {}",
        "a \"\\u{zz}\" \"\\q\"",
        "a \"\"\"\n one \\q\n\"\"\"",
    ] {
        assert_same(text);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    #[test]
    fn the_direct_parser_agrees_with_pest_on_generated_inputs(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "a", "b1", "_x", "x.y-z", "-", "1", "2.5", "1e5", ".", "e", "\"", "\"\"\"",
            "\\", "\\n", "\\\"", "\\u{41}", "{", "}", "[", "]", ",", ";", "\n", "\r\n",
            "\r", " ", "\t", "#", "# c ", "é", "\u{FEFF}", "\"s\"", "\"\"\"\nline\n\"\"\"",
            "\u{200B}",
        ]), 0..40)
    ) {
        assert_same(&tokens.concat());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

    /// Tokens that mostly make files that parse, so that trees (not only errors) are
    /// compared.
    #[test]
    fn the_direct_parser_agrees_with_pest_on_generated_files(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "a ", "k.x-1 ", "\"s\\t\" ", "\"\" ", "-1.5e3 ", "7", "{\n", "{ ", "}\n", "} ",
            "[", "]", ", ", "\n", ";", "# c\n", " ", "\t", "\"\"\"\n t \\q\n\n u\n\"\"\" ",
            "\"\"\" x\"\"\"", "\r\n", "\"\\u{110000}\" ",
        ]), 0..30)
    ) {
        assert_same(&tokens.concat());
    }
}
