//! Rule tests: one per layout rule of the canonical format. Whole-file examples live in
//! `tests/fmt/` (golden) and the guarantees are tested over every file in `tests/fmt.rs`.

use super::format_source;
use crate::source::FileId;

fn fmt(text: &str) -> String {
    match format_source(FileId(0), text) {
        Ok(out) => out,
        Err(diags) => panic!("{text:?} was refused: {diags:#?}"),
    }
}

#[track_caller]
fn formats_to(input: &str, expected: &str) {
    assert_eq!(fmt(input), expected, "formatting {input:?}");
    assert_eq!(fmt(expected), expected, "not idempotent on {expected:?}");
}

#[test]
fn spacing_and_indentation_are_normalised() {
    formats_to(
        "case   X  \"t\"   {\n\t\tcategory   a\n      tags b  c\n}",
        "case X \"t\" {\n  category a\n  tags b c\n}\n",
    );
}

#[test]
fn statements_sharing_a_line_are_split() {
    formats_to(
        "a 1; b 2\nc { d 1; e {} }\n",
        "a 1\nb 2\n\nc {\n  d 1\n  e {}\n}\n",
    );
}

#[test]
fn blank_lines_are_kept_once_but_not_after_openers_or_before_closers() {
    formats_to(
        "x {\n\n\n  a 1\n\n\n\n  b 2\n  c 3\n\n}\n",
        "x {\n  a 1\n\n  b 2\n  c 3\n}\n",
    );
}

#[test]
fn top_level_blocks_are_set_apart_by_one_blank_line() {
    formats_to(
        "a 1\nb 2\n\nc 3\nd {}\ne { f 1 }\n\n\n\ng 4\n",
        "a 1\nb 2\n\nc 3\n\nd {}\n\ne {\n  f 1\n}\n\ng 4\n",
    );
}

#[test]
fn the_file_starts_at_its_first_line_and_ends_with_one_newline() {
    formats_to("\n\n  a 1\n\n\n", "a 1\n");
    formats_to("", "");
    formats_to("\n;\n", "");
}

#[test]
fn own_line_comments_stay_above_their_statement() {
    formats_to(
        "x {\n      # about a\n  a 1\n\n    # about b\n\n  b 2\n}\n",
        "x {\n  # about a\n  a 1\n\n  # about b\n\n  b 2\n}\n",
    );
}

#[test]
fn a_forced_blank_line_goes_above_the_comments_of_a_block() {
    formats_to("a {}\n# about b\nb {}\n", "a {}\n\n# about b\nb {}\n");
}

#[test]
fn trailing_comments_stay_on_their_line() {
    formats_to(
        "a 1    # one   \nb { c 2; d 3 } # after\ne 4; f 5 # f\n",
        "a 1 # one\n\nb {\n  c 2\n  d 3\n} # after\n\ne 4\nf 5 # f\n",
    );
}

#[test]
fn comments_after_openers_and_before_closers_stay_there() {
    formats_to(
        "x { # opener\n  a 1\n  # last words\n}\ny {   # only\n}\n",
        "x { # opener\n  a 1\n  # last words\n}\n\ny { # only\n}\n",
    );
}

#[test]
fn comments_at_the_end_of_the_file_are_kept() {
    formats_to("a 1\n\n\n# end\n# really", "a 1\n\n# end\n# really\n");
    formats_to("# only a comment", "# only a comment\n");
}

#[test]
fn one_line_lists_stay_on_one_line() {
    formats_to(
        "x [ a ,b,  \"c\" , ]  [ ]\ny [{ a 1;b [1,2] }, {}]\n",
        "x [a, b, \"c\"] []\ny [{ a 1; b [1, 2] }, {}]\n",
    );
}

#[test]
fn multi_line_lists_put_each_item_on_its_own_line() {
    formats_to(
        "x [a,\n b, { c 1 }, {\nd 2 }, [\n1]]\n",
        "x [\n  a,\n  b,\n  { c 1 },\n  {\n    d 2\n  },\n  [\n    1,\n  ],\n]\n",
    );
    formats_to("x [\n]\n", "x []\n");
}

#[test]
fn comments_in_lists_stay_with_their_items() {
    formats_to(
        "x [ # opener\n  # about a\n  a # after a\n  , b, # after b\n\n  c\n  # last\n]\n",
        "x [ # opener\n  # about a\n  a, # after a\n  b, # after b\n\n  c,\n  # last\n]\n",
    );
    formats_to("x [\n  # nothing yet\n]\n", "x [\n  # nothing yet\n]\n");
}

#[test]
fn text_blocks_are_reindented_not_rewrapped() {
    formats_to(
        "x {\n      a \"\"\"   \n  one two\n       three\n\n\n four\n              \"\"\" {}\n}\n",
        "x {\n  a \"\"\"\n    one two\n    three\n\n    four\n  \"\"\" {}\n}\n",
    );
}

#[test]
fn text_blocks_in_lists_follow_their_item() {
    formats_to(
        "x [\n\"\"\"\n one\n\"\"\", \"two\"]\n",
        "x [\n  \"\"\"\n    one\n  \"\"\",\n  \"two\",\n]\n",
    );
}

#[test]
fn strings_names_and_numbers_are_copied_as_written() {
    formats_to(
        "\"odd key\"   \"\\u{e9}\\t\\\"\"  -2.50 std.x_y-z\n",
        "\"odd key\" \"\\u{e9}\\t\\\"\" -2.50 std.x_y-z\n",
    );
}

#[test]
fn windows_line_endings_become_unix_ones() {
    formats_to(
        "a 1\r\n\r\n\r\nb \"\"\"\r\n  text\r\n\"\"\"\r\n",
        "a 1\n\nb \"\"\"\n  text\n\"\"\"\n",
    );
}

#[test]
fn files_with_errors_are_refused_with_their_diagnostics() {
    for bad in ["a {\n", "a \"\\q\"\n", "a \"\"\"x\n y\n\"\"\"\n", "}"] {
        let diags = format_source(FileId(0), bad).expect_err(bad);
        assert!(!diags.is_empty(), "{bad:?}");
    }
}

#[test]
fn a_byte_order_mark_is_dropped() {
    formats_to(
        "\u{FEFF}# note\ncase X \"t\" {\n    user \"hi\"\n}\n",
        "# note\ncase X \"t\" {\n  user \"hi\"\n}\n",
    );
}
