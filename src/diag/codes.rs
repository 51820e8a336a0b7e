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
    EXPORT = "export": "a case that cannot be written in an export format";
    // Worlds, machine overrides and expectations: documented in docs/diagnostics.md.
    SCHEMA_DEFINITION = "schema_definition": "a world schema declaration that cannot be used";
    UNKNOWN_SCHEMA = "unknown_schema": "a suite names a world schema that is not declared";
    UNKNOWN_COLLECTION = "unknown_collection": "a collection the world schema does not declare";
    UNKNOWN_RECORD_FIELD = "unknown_record_field": "a field the collection does not declare";
    RECORD_FIELD_TYPE = "record_field_type": "a value that does not fit its field's type";
    MISSING_RECORD_FIELD = "missing_record_field": "a record without one of its required fields";
    DUPLICATE_RECORD = "duplicate_record": "two records of one world with the same id";
    RECORD_ID_PREFIX = "record_id_prefix": "a record or request id that does not start with its prefix";
    DANGLING_REFERENCE = "dangling_reference": "a reference to a record the world does not hold";
    ZONE_OFFSET_MISMATCH = "zone_offset_mismatch": "a datetime whose offset contradicts its timezone";
    UNMODELLED_RECORD = "unmodelled_record": "a record id named in the prose that the world lacks";
    UNKNOWN_RECORD = "unknown_record": "an expectation or override naming a record the world lacks";
    UNKNOWN_ARGUMENT = "unknown_argument": "a call filter naming an argument the tool does not take";
    UNOFFERED_TOOL = "unoffered_tool": "an expectation or override about a tool the case does not offer";
    OVERRIDE_MATCHES_NOTHING = "override_matches_nothing": "a machine override that no call of the case can match";
    UNKNOWN_CHECK = "unknown_check": "an expectation tied to a check or critical failure the case lacks";
    UNCLASSIFIED_CHECK = "unclassified_check": "a check of a modelled case with neither an expectation nor a review mark";
    TOOL_WITHOUT_RECORDS = "tool_without_records": "a case offers a tool its world gives nothing to work on";
    // Tools as data: src/resolve/tools/.
    TOOL_DEFINITION = "tool_definition": "a tool declaration (argument, service, effect) that cannot be used";
    TOOL_WITHOUT_BEHAVIOR = "tool_without_behavior": "a tool with a prose contract only, which the sandbox cannot run";
    // Shapes: src/resolve/shape.rs.
    SHAPE_DEFINITION = "shape_definition": "a shape declaration (field, grading, layout, export) that cannot be used";
    UNKNOWN_SHAPE = "unknown_shape": "a suite names a shape that is not declared";
    // Semantic checks: src/check/.
    CASE_COUNT_MISMATCH = "case_count_mismatch": "the suite's `case_count` differs from the cases present";
    CATEGORY_COUNT_MISMATCH = "category_count_mismatch": "a category's declared count differs from its cases";
    TAG_MISMATCH = "tag_mismatch": "a tag and the case feature it stands for disagree";
    OVERRIDE_TOOL_UNAVAILABLE = "override_tool_unavailable": "an override names a tool the case does not make available";
    DUPLICATE_CHECK_ID = "duplicate_check_id": "two checks of one case with the same id";
    CHECK_DIMENSION_MISMATCH = "check_dimension_mismatch": "a check's dimension does not match its id letter";
    CHECK_COUNT = "check_count": "a case with more or fewer checks of a dimension than its grading wants";
    CHECK_NUMBERING = "check_numbering": "the check ids of a dimension not numbered 1, 2, … in order";
    MISSING_CRITICAL = "missing_critical": "a case without a critical failure";
    INVALID_CLOCK = "invalid_clock": "a clock that is not an RFC 3339 time";
    UNKNOWN_TIMEZONE = "unknown_timezone": "a timezone that is not an IANA zone name";
    CLOCK_OFFSET_MISMATCH = "clock_offset_mismatch": "a clock whose offset is not its timezone's at that instant";
    WEEKDAY_MISMATCH = "weekday_mismatch": "a weekday written next to a date that falls on another day";
    UNSUPPORTED_RECORD = "unsupported_record": "a record id in the answer key that the case's fixtures never name";
    EMPTY_TEXT = "empty_text": "an empty or blank string";
    TEXT_SPACING = "text_spacing": "a string with leading, trailing or doubled spaces";
    LEAK = "leak": "model-facing text gives away hidden text (the one leak rule of `casec check` and `casec bundle`)";
    UNKNOWN_ALLOW = "unknown_allow": "an `allow` of a code that is not an allowable warning";
    UNUSED_ALLOW = "unused_allow": "an `allow` that allows nothing";
    TRACE_LINE = "trace_line": "a trace line that is not a JSON trace event";
    RESULT_RECORD = "result_record": "a file given to `casec report` that is not a result record of the suite";
}
