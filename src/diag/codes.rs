//! Every diagnostic code casec can emit, with a one-line title.
//!
//! Codes are stable names (`snake_case`), used in `allow` attributes, in JSON output and
//! as headings of `docs/diagnostics.md`. A test checks that each one has a docs entry and
//! a UI test.

macro_rules! codes {
    ($($name:ident = $code:literal: $title:literal;)*) => {
        $(pub const $name: &str = $code;)*
        /// `(code, title)` of every diagnostic.
        pub const ALL: &[(&str, &str)] = &[$(($code, $title)),*];
    };
}

codes! {
    SYNTAX = "syntax": "the file does not follow the grammar";
    INVALID_ESCAPE = "invalid_escape": "a string contains an unknown escape sequence";
    TEXT_BLOCK = "text_block": "a text block is not laid out as the language requires";
    UNKNOWN_FIELD = "unknown_field": "a statement this block does not accept";
    DUPLICATE_FIELD = "duplicate_field": "a field given twice in one block";
    MISSING_FIELD = "missing_field": "a required field is absent";
    BAD_ARGUMENTS = "bad_arguments": "a statement has the wrong number or kind of values";
    UNKNOWN_PROFILE = "unknown_profile": "a profile or stdlib part that is not defined";
    UNKNOWN_CATEGORY = "unknown_category": "a case names a category the suite does not declare";
    UNKNOWN_TOOL = "unknown_tool": "a tool the suite does not declare";
    UNKNOWN_TAG = "unknown_tag": "a tag the suite does not declare";
    PROFILE_CYCLE = "profile_cycle": "profiles that include each other";
    DUPLICATE_DEFINITION = "duplicate_definition": "two definitions of one name";
    DUPLICATE_CASE = "duplicate_case": "two cases with the same id";
    MISSING_SUITE = "missing_suite": "no suite block where one is needed";
    MISPLACED_DECLARATION = "misplaced_declaration": "a declaration outside the file it belongs in";
    UNKNOWN_DIMENSION = "unknown_dimension": "a check whose dimension cannot be derived";
    CASE_ORDER = "case_order": "an explicit case order that does not list every case once";
    IO = "io": "a file or folder could not be read or written";
    MASTER_JSON = "master_json": "the master JSON does not parse or does not follow the schema";
    IMPORT_ROUND_TRIP = "import_round_trip": "an imported suite would not rebuild the same master";
    HIDDEN_TEXT_LEAK = "hidden_text_leak": "harness or evaluator text would reach a model bundle";
    BUNDLE_FILE_NAME = "bundle_file_name": "a case id that cannot name its own bundle file";
}
