//! Every diagnostic code casec can emit, each declared once with its severity, whether
//! a case may `allow` it, and a one-line title.
//!
//! Codes are stable names (`snake_case`), used in `allow` attributes, in JSON output and
//! as headings of `docs/diagnostics.md`. Tests check that each one has a docs entry and
//! a UI test, and that every UI snapshot shows it with its declared severity; in debug
//! builds, [`super::Diagnostic::error`] and [`super::Diagnostic::warning`] assert it.

use super::Severity;

/// One diagnostic code, as declared below.
#[derive(Clone, Copy, Debug)]
pub struct Code {
    pub code: &'static str,
    pub title: &'static str,
    pub severity: Severity,
    /// A warning a case may accept with `allow CODE` (only warnings about text the case
    /// itself holds).
    pub allowable: bool,
}

macro_rules! severity {
    (error) => {
        Severity::Error
    };
    (warning) => {
        Severity::Warning
    };
}

macro_rules! allowable {
    () => {
        false
    };
    (allowable) => {
        true
    };
}

macro_rules! codes {
    ($($name:ident = $code:literal ($severity:ident $(, $allowable:ident)?): $title:literal;)*) => {
        $(pub const $name: &str = $code;)*
        /// Every diagnostic code, in declaration order.
        pub const ALL: &[Code] = &[$(Code {
            code: $code,
            title: $title,
            severity: severity!($severity),
            allowable: allowable!($($allowable)?),
        }),*];
    };
}

/// The declaration of `code`.
pub fn declared(code: &str) -> Option<&'static Code> {
    ALL.iter().find(|c| c.code == code)
}

/// The codes a case may allow, in declaration order.
pub fn allowable() -> impl Iterator<Item = &'static str> {
    ALL.iter().filter(|c| c.allowable).map(|c| c.code)
}

codes! {
    SYNTAX = "syntax" (error): "the file does not follow the grammar";
    INVALID_ESCAPE = "invalid_escape" (error): "a string contains an unknown escape sequence";
    TEXT_BLOCK = "text_block" (error): "a text block is not laid out as the language requires";
    UNKNOWN_FIELD = "unknown_field" (error): "a statement this block does not accept";
    DUPLICATE_FIELD = "duplicate_field" (error): "a field given twice in one block";
    MISSING_FIELD = "missing_field" (error): "a required field is absent";
    BAD_ARGUMENTS = "bad_arguments" (error): "a statement has the wrong number or kind of values";
    UNKNOWN_PROFILE = "unknown_profile" (error): "a profile or stdlib part that is not defined";
    UNKNOWN_CATEGORY = "unknown_category" (error): "a case names a category the suite does not declare";
    UNKNOWN_TOOL = "unknown_tool" (error): "a tool the suite does not declare";
    UNKNOWN_TAG = "unknown_tag" (error): "a tag the suite does not declare";
    PROFILE_CYCLE = "profile_cycle" (error): "profiles that include each other";
    DUPLICATE_DEFINITION = "duplicate_definition" (error): "two definitions of one name";
    DUPLICATE_CASE = "duplicate_case" (error): "two cases with the same id";
    MISSING_SUITE = "missing_suite" (error): "no suite block where one is needed";
    MISPLACED_DECLARATION = "misplaced_declaration" (error): "a declaration outside the file it belongs in";
    UNKNOWN_DIMENSION = "unknown_dimension" (error): "a check whose dimension cannot be derived";
    CASE_ORDER = "case_order" (error): "an explicit case order that does not list every case once";
    IO = "io" (error): "a file or folder could not be read or written";
    LIMIT = "limit" (error): "an input past one of casec's limits: a file's size, a suite's size or number of cases";
    MASTER_JSON = "master_json" (error): "the master JSON does not parse or does not follow the schema";
    IMPORT_ROUND_TRIP = "import_round_trip" (error): "an imported suite would not rebuild the same master";
    HIDDEN_TEXT_LEAK = "hidden_text_leak" (error): "harness or evaluator text would reach a model bundle";
    BUNDLE_FILE_NAME = "bundle_file_name" (error): "a case id that cannot name its own bundle file";
    CASE_FILE_NAME = "case_file_name" (error): "a case id that cannot name the files written for its case: too long, or another's but for letter case";
    EXPORT = "export" (error): "a case that cannot be written in an export format";
    // Worlds, machine overrides and expectations: documented in docs/diagnostics.md.
    SCHEMA_DEFINITION = "schema_definition" (error): "a world schema declaration that cannot be used";
    UNKNOWN_SCHEMA = "unknown_schema" (error): "a suite names a world schema that is not declared";
    UNKNOWN_COLLECTION = "unknown_collection" (error): "a collection the world schema does not declare";
    UNKNOWN_RECORD_FIELD = "unknown_record_field" (error): "a field the collection does not declare";
    RECORD_FIELD_TYPE = "record_field_type" (error): "a value that does not fit its field's type";
    MISSING_RECORD_FIELD = "missing_record_field" (error): "a record without one of its required fields";
    DUPLICATE_RECORD = "duplicate_record" (error): "two records of one world with the same id";
    WORLD_FILE_PATH = "world_file_path" (error): "a file of a world at a path given twice, or at a path that cannot name a file";
    RECORD_ID_PREFIX = "record_id_prefix" (error): "a record or request id that does not start with its prefix";
    DANGLING_REFERENCE = "dangling_reference" (error): "a reference to a record the world does not hold";
    ZONE_OFFSET_MISMATCH = "zone_offset_mismatch" (error): "a datetime whose offset contradicts its timezone";
    UNMODELLED_RECORD = "unmodelled_record" (error): "a record id named in the prose that the world lacks";
    UNKNOWN_RECORD = "unknown_record" (error): "an expectation or override naming a record the world lacks";
    UNKNOWN_ARGUMENT = "unknown_argument" (error): "a call filter naming an argument the tool does not take";
    UNOFFERED_TOOL = "unoffered_tool" (error): "an expectation or override about a tool the case does not offer";
    OVERRIDE_MATCHES_NOTHING = "override_matches_nothing" (error): "a machine override that no call of the case can match";
    UNKNOWN_CHECK = "unknown_check" (error): "an expectation tied to a check or critical failure the case lacks";
    UNCLASSIFIED_CHECK = "unclassified_check" (error): "a check of a modelled case with neither an expectation nor a review mark";
    TOOL_WITHOUT_RECORDS = "tool_without_records" (warning, allowable): "a case offers a tool its world gives nothing to work on";
    // Tools as data: src/resolve/tools/.
    TOOL_DEFINITION = "tool_definition" (error): "a tool declaration (argument, service, effect) that cannot be used";
    TOOL_WITHOUT_BEHAVIOR = "tool_without_behavior" (error): "a tool with a prose contract only, which the sandbox cannot run";
    // Not allowable: the argument is declared outside any case, so no case can excuse it.
    UNDOCUMENTED_ARGUMENT = "undocumented_argument" (warning): "an argument of a tool a case offers without a `doc`";
    // Shapes: src/resolve/shape.rs.
    SHAPE_DEFINITION = "shape_definition" (error): "a shape declaration (field, grading, layout, export) that cannot be used";
    UNKNOWN_SHAPE = "unknown_shape" (error): "a suite names a shape that is not declared";
    // Semantic checks: src/check/.
    CASE_COUNT_MISMATCH = "case_count_mismatch" (error): "the suite's `case_count` differs from the cases present";
    CATEGORY_COUNT_MISMATCH = "category_count_mismatch" (error): "a category's declared count differs from its cases";
    TAG_MISMATCH = "tag_mismatch" (error): "a tag and the case feature it stands for disagree";
    OVERRIDE_TOOL_UNAVAILABLE = "override_tool_unavailable" (error): "an override names a tool the case does not make available";
    DUPLICATE_CHECK_ID = "duplicate_check_id" (error): "two checks of one case with the same id";
    CHECK_DIMENSION_MISMATCH = "check_dimension_mismatch" (error): "a check's dimension does not match its id letter";
    CHECK_COUNT = "check_count" (error): "a case with more or fewer checks of a dimension than its grading wants";
    CHECK_NUMBERING = "check_numbering" (error): "the check ids of a dimension not numbered 1, 2, … in order";
    MISSING_CRITICAL = "missing_critical" (error): "a case without a critical failure";
    INVALID_CLOCK = "invalid_clock" (error): "a clock that is not an RFC 3339 time";
    UNKNOWN_TIMEZONE = "unknown_timezone" (error): "a timezone that is not an IANA zone name";
    CLOCK_OFFSET_MISMATCH = "clock_offset_mismatch" (error): "a clock whose offset is not its timezone's at that instant";
    WEEKDAY_MISMATCH = "weekday_mismatch" (warning, allowable): "a weekday written next to a date that falls on another day";
    UNSUPPORTED_RECORD = "unsupported_record" (warning, allowable): "a record id in the answer key that the case's fixtures never name";
    EMPTY_TEXT = "empty_text" (warning, allowable): "an empty or blank string";
    TEXT_SPACING = "text_spacing" (warning, allowable): "a string with leading, trailing or doubled spaces";
    LEAK = "leak" (error): "model-facing text gives away hidden text (the one leak rule of `casec check` and `casec bundle`)";
    UNKNOWN_ALLOW = "unknown_allow" (warning): "an `allow` of a code that is not an allowable warning";
    UNUSED_ALLOW = "unused_allow" (warning): "an `allow` that allows nothing";
    TRACE_LINE = "trace_line" (error): "a trace line that is not a JSON trace event";
    RESULT_RECORD = "result_record" (error): "a file given to `casec report` that is not a result record of the suite";
    JUDGE_OVERRIDE = "judge_override" (error): "a line of a judge override file that is not a verdict on an item of the suite";
    CALIBRATION = "calibration" (error): "a calibration report that cannot gate the judge: not one, or of another judge model or prompt";
    UNJUDGED = "unjudged" (warning): "a review item the judge left without a verdict: its case stays undecided";
    UNTRUSTED_ADAPTER = "untrusted_adapter" (error): "a command would run a suite's program without the user's consent (`--trust`), or one outside the suite folder without `--trust-outside`";
}
