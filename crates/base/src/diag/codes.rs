//! Every diagnostic code casec can emit, each declared once: its name, severity,
//! whether a case may `allow` it, a one-line title and its documentation.
//!
//! Codes are stable names (`snake_case`), used in `allow` attributes, in JSON output and
//! as headings of `docs/diagnostics.md`. A declaration's doc comment is the code's entry
//! there: what triggers it, a failing example and the fix; the page's entries are
//! generated from these declarations ([`Code::docs_entry`]) and checked by
//! `tests/diagnostic_docs.rs` (`UPDATE_GOLDEN=1` rewrites them). A [`super::Diagnostic`]
//! is made from a [`Code`], so its severity is the declared one: it is stated nowhere
//! else.

use std::fmt;

use super::Severity;

/// One diagnostic code, as declared below.
#[derive(Clone, Copy, Debug)]
pub struct Code {
    /// The stable name: `allow NAME`, the JSON `code`, the docs heading.
    pub name: &'static str,
    pub title: &'static str,
    pub severity: Severity,
    /// A warning a case may accept with `allow CODE` (only warnings about text the case
    /// itself holds).
    pub allowable: bool,
    /// The command could not do what it was asked, rather than finding the suite at
    /// fault: exit code 2 (see [`super::Diagnostic::is_usage_error`]).
    pub usage: bool,
    /// Markdown: what triggers it, a failing example and the fix (the declaration's doc
    /// comment, one leading space per line).
    docs: &'static str,
}

/// A code is its name: each name is declared once.
impl PartialEq for Code {
    fn eq(&self, other: &Code) -> bool {
        self.name == other.name
    }
}

impl Eq for Code {}

impl std::hash::Hash for Code {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Code {
    /// The code's entry in docs/diagnostics.md: its heading, its severity (and whether
    /// a case may allow it), then its documentation.
    pub fn docs_entry(&self) -> String {
        let severity = match (self.severity, self.allowable, self.usage) {
            (Severity::Error, _, true) => "**Error** (exit code 2).",
            (Severity::Error, _, false) => "**Error.**",
            (Severity::Warning, false, _) => "**Warning.**",
            (Severity::Warning, true, _) => "**Warning, allowable.**",
        };
        let docs: Vec<&str> = self
            .docs
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect();
        format!("### `{}`\n\n{severity} {}\n", self.name, docs.join("\n"))
    }
}

macro_rules! severity {
    (error) => {
        Severity::Error
    };
    (warning) => {
        Severity::Warning
    };
}

/// Whether the flags after a severity hold `allowable`.
macro_rules! allowable {
    () => {
        false
    };
    (allowable $($rest:ident)*) => {
        true
    };
    (usage $($rest:ident)*) => {
        allowable!($($rest)*)
    };
}

/// Whether the flags after a severity hold `usage`.
macro_rules! usage {
    () => {
        false
    };
    (usage $($rest:ident)*) => {
        true
    };
    (allowable $($rest:ident)*) => {
        usage!($($rest)*)
    };
}

macro_rules! codes {
    ($($(#[doc = $doc:literal])* $name:ident = $code:literal ($severity:ident $(, $flag:ident)*): $title:literal;)*) => {
        $(
            #[doc = concat!("`", $code, "`: ", $title, " (docs/diagnostics.md).")]
            pub const $name: &Code = &Code {
                name: $code,
                title: $title,
                severity: severity!($severity),
                allowable: allowable!($($flag)*),
                usage: usage!($($flag)*),
                docs: concat!($($doc, "\n"),*),
            };
        )*
        /// Every diagnostic code, in declaration order (the order of the docs).
        pub const ALL: &[&Code] = &[$($name),*];
    };
}

/// The declaration of the code named `name`.
pub fn declared(name: &str) -> Option<&'static Code> {
    ALL.iter().find(|c| c.name == name).copied()
}

/// The codes a case may allow, in declaration order.
pub fn allowable() -> impl Iterator<Item = &'static str> {
    ALL.iter().filter(|c| c.allowable).map(|c| c.name)
}

codes! {
    /// The file does not follow the grammar: a string left open at the end of its
    /// line, a block never closed, a `}` that closes nothing, a `{` not at the end of a
    /// statement, or blocks and lists nested more than 256 levels deep (the label marks the
    /// bracket that opens level 257; real suites nest a few levels, and a deeper file is not
    /// read at all, so that no input can exhaust the stack), or a name written in letters
    /// outside ASCII (a column `地区`: the help shows it as the string `"地区"`, which a
    /// file check's `columns` and `row` take). The file is skipped from there on; other files are still
    /// checked.
    ///
    /// ```case
    /// case TUJ-001 "Unclosed" {
    ///   category medication
    ///   user "Hello"
    /// ```
    ///
    /// **Fix.** Close the string or block the label points at; flatten nesting that deep;
    /// quote a name in another script. UI tests: `tests/ui/syntax_unclosed_block.case`,
    /// `tests/ui/syntax_too_deep.case`, `tests/ui/syntax_name_in_another_script.case`.
    SYNTAX = "syntax" (error): "the file does not follow the grammar";

    /// A string holds an escape the language does not know. Valid escapes are
    /// `\"`, `\\`, `\n`, `\r`, `\t` and `\u{…}` (1–6 hex digits of a Unicode scalar value).
    ///
    /// ```case
    /// profile demo {
    ///   background "Tab\q separated"
    /// }
    /// ```
    ///
    /// **Fix.** Write `\\` for a backslash, or use one of the valid escapes.
    INVALID_ESCAPE = "invalid_escape" (error): "a string contains an unknown escape sequence";

    /// A text block (`"""`) is not laid out as the language requires: its content
    /// must start on the line after the opening quotes, and the closing quotes must stand
    /// alone on their line.
    ///
    /// ```case
    /// profile demo {
    ///   background """Busy.
    ///     Often out.
    ///   """
    /// }
    /// ```
    ///
    /// **Fix.** Move the text to the next line; use a quoted string for one-line text.
    TEXT_BLOCK = "text_block" (error): "a text block is not laid out as the language requires";

    /// A statement the block does not accept, usually a misspelt key.
    ///
    /// ```case
    /// profile demo {
    ///   backgroud "A typo in a field name."
    /// }
    /// ```
    ///
    /// **Fix.** Use the key the help suggests (`did you mean background?`), or one the help
    /// lists.
    UNKNOWN_FIELD = "unknown_field" (error): "a statement this block does not accept";

    /// A field that may appear once is given twice in one block (also: evidence for
    /// one dimension twice, a data-block key twice). Both places are labelled.
    ///
    /// ```case
    /// profile demo {
    ///   background "Busy."
    ///   background "Often out."
    /// }
    /// ```
    ///
    /// **Fix.** Keep one of them.
    DUPLICATE_FIELD = "duplicate_field" (error): "a field given twice in one block";

    /// A required statement is absent (a case without `facts`), or a case cannot
    /// inherit a value it needs (`clock`, `tools`, `communication`, evidence for a dimension)
    /// from its category, its profiles or the suite. Not reported for a case whose category
    /// is unknown: its `unknown_category` error says it all. Nor for a required key written
    /// misspelt (`usr` for `user`): the `unknown_field` error names the correction, and its
    /// fix supplies the key.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   category errands
    ///   user "What is on my list today?"
    ///   need "Read the list rather than guess."
    ///   …
    /// }
    /// ```
    ///
    /// **Fix.** Add the field to the case, or set the default in its category, a profile or
    /// the suite, as the help says.
    MISSING_FIELD = "missing_field" (error): "a required field is absent";

    /// A statement has the wrong number or kind of values (a number where text is
    /// expected, a block where none is allowed), an explicit check without an id among checks
    /// with ids, or a bare name in a data block.
    ///
    /// ```case
    /// profile demo {
    ///   background 12
    /// }
    /// ```
    ///
    /// **Fix.** Write the statement as the help's usage line shows (`background "…"`).
    BAD_ARGUMENTS = "bad_arguments" (error): "a statement has the wrong number or kind of values";

    /// A `profile NAME` applies a profile (or `std.` stdlib part) that is not
    /// defined.
    ///
    /// ```case
    /// profile demo {
    ///   profile std.everyday_asistance
    /// }
    /// ```
    ///
    /// **Fix.** Use the suggested name, or define the profile with `profile NAME { … }`.
    UNKNOWN_PROFILE = "unknown_profile" (error): "a profile or stdlib part that is not defined";

    /// A case names a category the suite does not declare.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   category errand
    ///   …
    /// }
    /// ```
    ///
    /// **Fix.** Use the suggested category, or declare it in suite.case with
    /// `category NAME COUNT { … }`.
    UNKNOWN_CATEGORY = "unknown_category" (error): "a case names a category the suite does not declare";

    /// A case's `tools` or override names a tool the suite does not declare.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   …
    ///   tools current_time read_record
    /// }
    /// ```
    ///
    /// **Fix.** Use the suggested tool, or declare it in suite.case with `tool NAME { … }`.
    UNKNOWN_TOOL = "unknown_tool" (error): "a tool the suite does not declare";

    /// A case uses a tag that is not in the suite's `tags` vocabulary.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   category errands
    ///   tags routin
    ///   …
    /// }
    /// ```
    ///
    /// **Fix.** Use the suggested tag, or add it to the suite's `tags`.
    UNKNOWN_TAG = "unknown_tag" (error): "a tag the suite does not declare";

    /// Profiles apply each other in a cycle; the label shows the cycle.
    ///
    /// ```case
    /// profile first {
    ///   profile second
    /// }
    /// profile second {
    ///   profile first
    /// }
    /// ```
    ///
    /// **Fix.** Remove one of the `profile` statements that close the cycle.
    PROFILE_CYCLE = "profile_cycle" (error): "profiles that include each other";

    /// Two definitions of one name: two suites, tools, categories or profiles with
    /// the same name, or a suite profile using the reserved `std.` prefix. Both places are
    /// labelled.
    ///
    /// ```case
    /// profile demo {
    ///   background "Busy."
    /// }
    /// profile demo {
    ///   background "Often out."
    /// }
    /// ```
    ///
    /// **Fix.** Rename one or merge them.
    DUPLICATE_DEFINITION = "duplicate_definition" (error): "two definitions of one name";

    /// Two cases share an id. Both places are labelled; the second case is left
    /// out.
    ///
    /// ```case
    /// case UI-1 "A case" { … }
    /// case UI-1 "The same id again" { … }
    /// ```
    ///
    /// **Fix.** Give each case a unique id.
    DUPLICATE_CASE = "duplicate_case" (error): "two cases with the same id";

    /// No suite where one is needed: casec was pointed at a folder without
    /// `suite.case`, `suite.case` declares no `suite`, or cases live in files that belong to
    /// no suite.
    ///
    /// ```case
    /// # a.case, in a folder without suite.case
    /// case UI-1 "A case" {
    ///   …
    /// }
    /// ```
    ///
    /// **Fix.** Point casec at the suite folder, or add `suite.case` with
    /// `suite "Name" { … }`.
    MISSING_SUITE = "missing_suite" (error): "no suite block where one is needed";

    /// `suite`, `tool`, `category` or a shared `world` outside `suite.case` (or anything but a profile
    /// in the stdlib).
    ///
    /// ```case
    /// # notes.case
    /// tool current_time {
    ///   arguments
    ///   behavior "Return the case time."
    /// }
    /// ```
    ///
    /// **Fix.** Move the declaration into the suite folder's `suite.case`.
    MISPLACED_DECLARATION = "misplaced_declaration" (error): "a declaration outside the file it belongs in";

    /// An explicit check id whose letter names no dimension. (A `{ dimension
    /// NAME }` after the check does not help: an id must start with its dimension's letter,
    /// `check_dimension_mismatch`.)
    ///
    /// ```case
    /// check R1 "Read the list rather than guess."
    /// check X1 "Read L1"
    /// ```
    ///
    /// **Fix.** Start the id with its dimension's letter: R (recognition), A
    /// (execution_and_evidence), S (final_state), C (communication).
    UNKNOWN_DIMENSION = "unknown_dimension" (error): "a check whose dimension cannot be derived";

    /// The suite's explicit `order` names an id that is no case, names one twice, or
    /// leaves cases out.
    ///
    /// ```case
    /// suite "UI test" {
    ///   …
    ///   order UI-1 UI-2
    /// }
    /// ```
    ///
    /// **Fix.** List every case once, or remove `order` to sort cases by id.
    CASE_ORDER = "case_order" (error): "an explicit case order that does not list every case once";

    /// A file or folder could not be read or written: a path that
    /// does not exist, a file that is not UTF-8, an output that cannot be written. The
    /// diagnostic names the path instead of a span.
    ///
    /// ```
    /// $ casec check tests/ui/io_not_utf8      # notes.case was saved as Latin-1
    /// io
    ///   × tests/ui/io_not_utf8/notes.case: not valid UTF-8 at byte 23
    ///   help: save the file as UTF-8
    /// ```
    ///
    /// Reading a suite also refuses, with this code, what it will not read
    /// ([language.md, "Loading a suite"](language.md#loading-a-suite)): a symbolic link whose
    /// real path lies outside the suite folder, a `.case` file that is not a regular file (a
    /// FIFO, a socket, a device: `casec check /dev/stdin` too), and a second path to a file or
    /// folder read already (a link loop).
    ///
    /// ```
    /// $ ln -s ~/notes/secrets.case suite/extra.case; mkfifo suite/pipe.case; casec check suite
    /// io
    ///   × suite/extra.case: symbolic link to a file outside the suite folder: not read
    /// io
    ///   × suite/pipe.case: a FIFO (named pipe), not a regular file: not read
    /// ```
    ///
    /// **Fix.** Check the path, the permissions, or save the file as UTF-8; copy a file a link
    /// points to into the suite; replace a FIFO or device with a regular file. UI test: the
    /// suite folder `tests/ui/io_not_utf8/`; links and special files exist only on disk, and
    /// `tests/paths.rs` (`links`) and `tests/limits.rs` show them.
    IO = "io" (error, usage): "a file or folder could not be read or written";

    /// An input past one of casec's limits, each far above any suite casec is
    /// measured on ([language.md, "Limits"](language.md#limits)): a source file of more than
    /// 256 MiB, or a master `casec import` reads of more than 1 GiB (named with its size, not
    /// read), a suite whose files hold more than 1 GiB (named at the file where they pass it;
    /// none is read), or a suite of more than 500,000 cases (located at the first case past the
    /// limit, counted as soon as the files are parsed, before any case is resolved).
    ///
    /// ```
    /// limit
    ///   × big.case: this file holds 344 MiB, more than the 256 MiB casec reads of one file: not read
    /// limit
    ///   × the suite holds 1,000,000 cases, more than the 500,000 casec reads in one suite
    /// ```
    ///
    /// **Fix.** Split the file, or the suite into several suites. No UI test can hold such an
    /// input: `tests/limits.rs` shows each limit (a sparse file, sparse files past the suite's
    /// limit, a generated suite past the case limit).
    LIMIT = "limit" (error): "an input past one of casec's limits: a file's size, a suite's size or number of cases";

    /// In `casec import`: the master JSON does not parse, does not follow the master
    /// schema (a missing or mistyped field, keys out of order), or holds a name the language
    /// cannot write (a case id with spaces, a category missing from `coverage`).
    ///
    /// ```json
    /// {
    ///   "benchmark_name": "Broken",
    ///   "version": "1.0",
    /// }
    /// ```
    ///
    /// **Fix.** Correct the master at the place or path the message names. UI test:
    /// `tests/ui/master_json.master.json` (UI inputs named `*.master.json` are imported).
    MASTER_JSON = "master_json" (error): "the master JSON does not parse or does not follow the schema";

    /// In `casec import`, reporting a casec bug: the importer compiles the `.case`
    /// sources it wrote and compares the master they build with the input, byte for byte; this
    /// error means they differ or do not compile, and nothing is written. A master that does
    /// not follow the schema (a tool in `available_tools` missing from `tool_contracts`, say)
    /// is a `master_json` error instead, before any source is written:
    ///
    /// ```json
    /// "available_tools": [ "current_time", "teleport" ]
    /// ```
    ///
    /// **Fix.** Report the master file with the casec version: the importer should have
    /// represented it or refused it as `master_json`. No UI test can show this code; the
    /// round-trip and robustness tests assert that it never fires.
    IMPORT_ROUND_TRIP = "import_round_trip" (error): "an imported suite would not rebuild the same master";

    /// The suite's `case_count` differs from the number of cases present; the
    /// message says by how much. Checked only when parsing and resolution reported no error
    /// (a case left out by another error would put the count off by one); fix those first.
    ///
    /// ```case
    /// suite "UI test" {
    ///   …
    ///   case_count 2
    /// }
    /// case UI-1 "A case" { … }
    /// ```
    ///
    /// **Fix.** Set `case_count` to the number of cases, or add the missing cases.
    CASE_COUNT_MISMATCH = "case_count_mismatch" (error): "the suite's `case_count` differs from the cases present";

    /// A `category NAME COUNT` declares another number of cases than the suite has
    /// in that category (the master's `coverage`). The category's name and count are labelled.
    /// Checked under the same condition as `case_count_mismatch`.
    ///
    /// ```case
    /// category errands 3 { background "Busy."; preferences "Short answers." }
    /// case UI-1 "A case" {
    ///   category errands
    ///   …
    /// }
    /// ```
    ///
    /// **Fix.** Set the count to the cases present, or add or move cases.
    CATEGORY_COUNT_MISMATCH = "category_count_mismatch" (error): "a category's declared count differs from its cases";

    /// A tag and the case feature it stands for disagree. `multi_turn_clarification`
    /// promises a scripted `followup`; `tool_failure_or_ambiguous_result` promises an
    /// `override`. Both directions are checked: a tagged case without the feature, and a case
    /// with the feature but without the tag (when the suite's `tags` has that tag at all).
    /// Scoring reports "tool failures handled correctly" and "clarification cases completed
    /// correctly" by these tags.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   tags multi_turn_clarification
    ///   …
    ///   override search_notes "list L1" {
    ///     result "TIMEOUT"
    ///   }
    /// }
    /// ```
    ///
    /// **Fix.** Add the follow-up or override the tag promises, or add or remove the tag.
    TAG_MISMATCH = "tag_mismatch" (error): "a tag and the case feature it stands for disagree";

    /// An override names a tool that the case does not make available, so the
    /// harness would never see the call it matches.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   …
    ///   tools current_time
    ///   override search_notes "list L1" {
    ///     result "TIMEOUT"
    ///   }
    /// }
    /// ```
    ///
    /// **Fix.** Add the tool to the case's `tools`, or override one of its tools.
    OVERRIDE_TOOL_UNAVAILABLE = "override_tool_unavailable" (error): "an override names a tool the case does not make available";

    /// Two checks of one case have the same id. Both are labelled.
    ///
    /// ```case
    /// check A1 "Read L1"
    /// check A1 "Name the item"
    /// ```
    ///
    /// **Fix.** Give each check its own id (`A2`).
    DUPLICATE_CHECK_ID = "duplicate_check_id" (error): "two checks of one case with the same id";

    /// A check's dimension is not the one its id letter names (R recognition, A
    /// execution_and_evidence, S final_state, C communication), is no dimension at all, or an
    /// id with a dimension does not start with a dimension letter.
    ///
    /// ```case
    /// check A1 "Read L1" {
    ///   dimension final_state
    /// }
    /// ```
    ///
    /// **Fix.** Use the dimension of the letter, or the letter of the dimension.
    CHECK_DIMENSION_MISMATCH = "check_dimension_mismatch" (error): "a check's dimension does not match its id letter";

    /// A case does not have exactly one R, one S and one C check and at least one A
    /// check: one is missing (labelled at the case) or there is a second one (labelled, with
    /// the first). Implicit checks meet this unless a case has no `check` statement.
    ///
    /// ```case
    /// check R1 "Read the list rather than guess."
    /// check R2 "Notice the stamps."
    /// check A1 "Read L1"
    /// check C1 "Answer plainly."
    /// ```
    ///
    /// **Fix.** Add the missing check (`check S1 "…"`), merge the extra one, or give it an A id.
    CHECK_COUNT = "check_count" (error): "a case with more or fewer checks of a dimension than its grading wants";

    /// Check ids are not numbered `R1`, `A1` … `An` in the order written, `S1`,
    /// `C1`.
    ///
    /// ```case
    /// check A1 "Read L1"
    /// check A3 "Name the item"
    /// ```
    ///
    /// **Fix.** Renumber as the label says (`A2`).
    CHECK_NUMBERING = "check_numbering" (error): "the check ids of a dimension not numbered 1, 2, … in order";

    /// A case lists no critical failure of its own (`critical "…"`). The global
    /// critical failures of the suite apply to every case; each case still needs at least one
    /// that is specific to it.
    ///
    /// ```case
    /// case UI-1 "A case" {
    ///   …
    ///   final "Nothing changes."
    /// }
    /// ```
    ///
    /// **Fix.** Add `critical "…"`: a mistake that fails the case whatever else passes.
    MISSING_CRITICAL = "missing_critical" (error): "a case without a critical failure";

    /// A `clock` is not an RFC 3339 time (date, `T`, time, offset). Reported once
    /// where the clock is written, however many cases inherit it.
    ///
    /// ```case
    /// clock "2026-11-09T10:30:00"
    /// ```
    ///
    /// **Fix.** Write the full time with its offset: `2026-11-09T10:30:00-05:00`.
    INVALID_CLOCK = "invalid_clock" (error): "a clock that is not an RFC 3339 time";

    /// A `timezone` is not a zone name of the IANA database; the help suggests the
    /// nearest one.
    ///
    /// ```case
    /// timezone "America/New_Yrok"
    /// ```
    ///
    /// **Fix.** Use the suggested zone (`America/New_York`).
    UNKNOWN_TIMEZONE = "unknown_timezone" (error): "a timezone that is not an IANA zone name";

    /// The clock's offset is not its timezone's offset at that instant (daylight
    /// saving time included). The offset and the timezone are labelled.
    ///
    /// ```case
    /// timezone "America/New_York"
    /// clock "2026-11-09T10:30:00-04:00"
    /// ```
    ///
    /// **Fix.** Write the zone's offset (`-05:00` in November), or name the zone the clock was
    /// meant for.
    CLOCK_OFFSET_MISMATCH = "clock_offset_mismatch" (error): "a clock whose offset is not its timezone's at that instant";

    /// A weekday written directly before or after a date is not that
    /// date's weekday. Dates are a month name or abbreviation and a day (`November 12`,
    /// `Nov 12th`), optionally with a four-digit year, or ISO dates (`2026-11-12`); a date
    /// without a year is taken in the year nearest the case clock. Sentence punctuation
    /// between them breaks the pairing. Only text written in the case is checked.
    ///
    /// ```case
    /// facts "List L1 holds one item: buy stamps before Friday November 12."
    /// ```
    ///
    /// **Fix.** Write the right weekday (`Thursday`) or correct the date; if the text is
    /// deliberately wrong (a user's mistaken belief), `allow weekday_mismatch` with a comment.
    WEEKDAY_MISMATCH = "weekday_mismatch" (warning, allowable): "a weekday written next to a date that falls on another day";

    /// A record id — one to three capital letters and one to four
    /// digits, like `M1`, `L2`, `BQ1` — named in the case's `need`, checks or `final` appears
    /// in none of its facts, override or follow-up, so the model can never retrieve it. In a
    /// case with a world, only ids of its schema's collections count, and a record the world
    /// holds (or a `new` id it declares) is never reported: the model finds it through the
    /// tools. This is the defect Tujora's revision notes fix by hand. An id directly after the word
    /// `check` or `checks` (`after check A1 passes`) refers to a check and is not reported;
    /// other check-like ids (R1, A1, C1) are read as records, because records use those names
    /// too (a reminder R1, an appointment A1, a conversation C1).
    ///
    /// ```case
    /// facts "List L1 holds one item: buy stamps."
    /// check "Read L1 and L2"
    /// ```
    ///
    /// **Fix.** Add the record to the facts, or fix the id; if the word is not a record (a
    /// vitamin B12), `allow unsupported_record` with a comment.
    UNSUPPORTED_RECORD = "unsupported_record" (warning, allowable): "a record id in the answer key that the case's fixtures never name";

    /// A tool's `adapter` names a program or script inside the suite folder that is
    /// not there: the program when it is a relative path (`tools/notes`), or the script a
    /// bare interpreter runs, its first argument when that reads as a file
    /// (`python3 "tools/notes.py"`, `node "notes.js"`). Every call of the tool would fail
    /// with `ADAPTER_ERROR` at run time. Checked for a suite read from a folder, relative
    /// to it; absolute paths and programs found on `PATH` differ between machines and are
    /// not checked. Nothing is run.
    ///
    /// ```case
    /// tool note_add {
    ///   behavior "Keep a note."
    ///   adapter "python3" "tools/notes.py" { writes notes }   # no tools/notes.py
    /// }
    /// ```
    ///
    /// **Fix.** Add the program to the suite folder, or correct its path (relative to the
    /// folder that holds `suite.case`).
    MISSING_ADAPTER_PROGRAM = "missing_adapter_program" (error): "an adapter's program is not in the suite folder";

    /// A `bytes` field includes a file (`content from "seed/sales.xlsx"`) that cannot be
    /// read as part of the suite: its path is absolute or climbs out of the suite folder
    /// (`..`), it is missing, a symbolic link leads outside the folder, it is not a
    /// regular file, or it is larger than 64 MiB. Its form is checked wherever the suite
    /// is checked; the file itself when the suite is read from its folder (`casec check
    /// DIR`, `build`, `sandbox`, `export`, `verify`), whose outputs carry its bytes.
    ///
    /// ```case
    /// files F1 { path "/workspace/sales.xlsx"; content from "../private/sales.xlsx" }
    /// ```
    ///
    /// **Fix.** Put the file inside the suite folder (a `seed/` folder beside suite.case)
    /// and name it by its path relative to that folder.
    INCLUDE = "include" (error): "a file a suite includes cannot be read from the suite folder";

    /// A case whose tools run workspace commands (`commands.run`) names a file its
    /// workspace cannot hold: a file of its world, or one its checks read, at a path that
    /// is not absolute, has `.` or `..` parts, or lies under a system folder (`/tmp`,
    /// `/etc`, `/usr`, `/proc`, …), which the isolation mounts from the machine or keeps
    /// private. A command never sees such a seeded file, and never leaves such a checked
    /// one; tools still can. UI test: `tests/ui/outside_workspace.case`.
    ///
    /// ```case
    /// files F1 { path "/tmp/input.csv"; content "a,b\n" }
    /// ```
    ///
    /// **Fix.** Put the file under a folder of the workspace (`/workspace/input.csv`,
    /// `/outputs/…`).
    OUTSIDE_WORKSPACE = "outside_workspace" (warning, allowable): "a file a case's commands cannot see or leave";

    /// A case whose tools run workspace commands has an endpoint at an `https://` URL.
    /// The endpoints are served to the programs a command runs over plain HTTP (through
    /// `http_proxy`): the sandbox has no certificate a program would trust, so a script
    /// cannot fetch an `https://` URL, though the `http` tool answers it. UI test:
    /// `tests/ui/https_endpoint.case`.
    ///
    /// ```case
    /// endpoints EP1 { url "https://rates.example.com/today"; status 200; body "{}" }
    /// ```
    ///
    /// **Fix.** Write the URL with `http://`, in the record and wherever the task gives
    /// it (the instruction, a README file).
    HTTPS_ENDPOINT = "https_endpoint" (warning, allowable): "an endpoint a case's commands cannot fetch";

    /// An `expect`, `forbid`, `any` or `not` block holds no assertion. An empty `expect`
    /// always passes, an empty `forbid` always fires, an empty `any` never holds and an
    /// empty `not` never holds either: none of them tells a good run from a bad one, so a
    /// forgotten body would grade every run alike.
    ///
    /// ```case
    /// expect A1 {}
    /// forbid F1 {}
    /// ```
    ///
    /// **Fix.** Write the assertions that decide the check or critical failure
    /// ([worlds.md](worlds.md#assertions)), or replace the block with `review A1` when
    /// only a reader can decide it.
    EMPTY_ASSERTIONS = "empty_assertions" (error): "a block of assertions with none in it";

    /// A string is empty or blank; only a string the case itself holds can be allowed.
    ///
    /// ```case
    /// critical ""
    /// ```
    ///
    /// **Fix.** Write the text, or remove the statement if the field is optional.
    EMPTY_TEXT = "empty_text" (warning, allowable): "an empty or blank string";

    /// A string has a leading or trailing space, or two or more spaces (or tabs) in a
    /// row; only a string the case itself holds can be allowed. Text blocks trim their
    /// lines, so only spaces inside a line count there; escaped whitespace (`\n`, `\t`)
    /// is deliberate and not reported. Each stray run is labelled.
    ///
    /// ```case
    /// user "What is on  my list today? "
    /// ```
    ///
    /// **Fix.** Remove the extra spaces.
    TEXT_SPACING = "text_spacing" (warning, allowable): "a string with leading, trailing or doubled spaces";

    /// Text the model under test sees — everything its bundle is
    /// built from: the system instruction, the user message and conversation, the person's
    /// background and preferences, permissions, record access, the contracts of the offered
    /// tools — gives away text only the harness or evaluator may see: the case's title,
    /// fixture facts, override, scripted follow-up, harness defaults, expected need, checks
    /// and their evidence, critical failures, pass rule, expected final state, and the suite's
    /// scoring rules, global critical failures and revision notes. The rule (one, shared with
    /// the blinding proof of `casec bundle`, so the two agree; details in
    /// [outputs.md](outputs.md#the-blinding-proof)):
    ///
    /// * a run of **5** consecutive words of a hidden text;
    /// * a hidden text of **3 or 4** words, whole (a critical failure "Claim reminder success",
    ///   an error code `DELIVERY_PERMISSION_DENIED`);
    /// * a sentence of **4** words or more of a longer hidden text, whole.
    ///
    /// Words are compared as they read, not as they are written: letter case, punctuation,
    /// `_` (`REPORT_THE_STAMPS` is three words), invisible characters (zero-width spaces, soft
    /// hyphens), fullwidth and styled letters (NFKC), Cyrillic and Greek look-alike letters and
    /// digits written for letters (`0` for `o`) do not hide a copy. Chinese and Japanese, written
    /// without spaces, are read as overlapping pairs of characters (`退款订单` is `退款`, `款订`,
    /// `订单`), so there a word is a pair and a run of 5 is six characters. The model-facing texts are
    /// read as one stream, the user message and the conversation turns first, so a copy cut
    /// between the user message and a turn is one copy; each piece is labelled, and so are the
    /// hidden words. A copy between texts the case only inherits (the suite's tool contracts
    /// and scoring rules) is reported once, not for every case. What one case's model sees may
    /// repeat another case's hidden text: that model is not tested on it.
    ///
    /// ```case
    /// user "My list L1 holds one item: buy stamps. Right?"
    /// facts "List L1 holds one item: buy stamps."
    /// ```
    ///
    /// The same rule keeps a simulated person's texts (the fields a shape makes visible to
    /// the `person`, [people.md](people.md)) from repeating an evaluator's text: the person
    /// plays the user from them, and must not know how the assistant is graded.
    ///
    /// **Fix.** Reword the model-facing text so that it does not hand over hidden facts or the
    /// answer (the person's text so that it repeats no check). UI tests: `tests/ui/leak.case`,
    /// `tests/ui/leak_disguised.case` (disguises, a split copy, record access, an error code),
    /// `tests/ui/leak_chinese.case`, `tests/ui/person_leak.case`.
    LEAK = "leak" (error): "model-facing text gives away hidden text (the one leak rule of `casec check` and `casec bundle`)";

    /// An `allow` names something that is not an allowable warning: an unknown
    /// code (the help suggests the nearest allowable one) or an error code, which cannot be
    /// allowed.
    ///
    /// ```case
    /// allow weekday_mismatc leak
    /// ```
    ///
    /// **Fix.** Correct the code, or fix what the error reports instead of allowing it.
    UNKNOWN_ALLOW = "unknown_allow" (warning): "an `allow` of a code that is not an allowable warning";

    /// An `allow` allows nothing: the case has no such warning (the text was
    /// fixed, or the warning is about inherited text), or the code is allowed twice. A case
    /// with an error from an earlier phase (its world does not resolve, say) lost the checks
    /// that error stopped, so its allows are not reported until the error is fixed
    /// (`tests/ui/unused_allow_after_error.case`).
    ///
    /// ```case
    /// # The facts once wrote the wrong weekday.
    /// allow weekday_mismatch
    /// ```
    ///
    /// **Fix.** Remove the `allow` (and its comment).
    UNUSED_ALLOW = "unused_allow" (warning): "an `allow` that allows nothing";

    /// Triggered by the blinding proof of `casec bundle`, run on the bundles as built: a
    /// bundle string gives away a hidden text of its case or of the suite, by the rule of
    /// [`leak`](#leak). `casec bundle` checks the suite first, and the check applies the same
    /// rule to the texts the bundle is built from, so a leak normally stops the run as `leak`;
    /// the proof is the guarantee over the bytes that would be written (it would catch a
    /// lowering that put hidden text into a bundle), and what a caller of the library gets
    /// that builds bundles from a model it did not check. The primary label is the hidden
    /// text, the secondary label the model-facing text that repeats it. No bundle is written.
    ///
    /// **Failing example**
    ///
    /// ```
    /// case DEMO-1 "Clock drift" {
    ///   category errands
    ///   user "What time is it? The kitchen clock runs five minutes fast."
    ///   facts "The case clock reads 10:30. The kitchen clock runs five minutes fast."
    ///   …
    /// }
    /// ```
    ///
    /// ```
    ///   × fixture facts of case DEMO-1 leaks into the bundle of DEMO-1: "The kitchen clock runs five
    ///   │ minutes fast"
    /// ```
    ///
    /// (`tests/ui/hidden_text_leak.case` is compiled without the checks, `# casec: no-check`,
    /// so that the proof reports on its own.)
    ///
    /// **Fix.** Take the hidden text out of the model-facing one: the model must find facts
    /// through its tools, not read them in its prompt. Here, drop the sentence from `user`. If
    /// the overlap is legitimate (a title that repeats the user's question, a check that quotes
    /// a whole sentence of the system instruction), reword the hidden text: casec cannot tell
    /// which way text was copied.
    HIDDEN_TEXT_LEAK = "hidden_text_leak" (error): "harness or evaluator text would reach a model bundle";

    /// Triggered by `casec bundle` when a case id cannot name its bundle file: an id
    /// `index` (its bundle would overwrite `index.json`). No bundle is written. (Two ids equal
    /// but for letter case are reported earlier, by `casec check`: `case_file_name`.)
    ///
    /// **Failing example**
    ///
    /// ```
    /// case index "Year lookup" { … }
    /// ```
    ///
    /// ```
    ///   × case id `index` would overwrite the bundle index
    /// ```
    ///
    /// **Fix.** Rename the case: no id may be `index`.
    BUNDLE_FILE_NAME = "bundle_file_name" (error): "a case id that cannot name its own bundle file";

    /// A case id cannot name the files casec writes or reads for its case
    /// (`<id>.json` in bundle and sandbox folders, `<id>/` in export folders, `<id>.case` from
    /// `casec import`, `<id>.trace.jsonl` and `<id>.counter-<LABEL>.trace.jsonl` beside it):
    /// two ids equal but for letter case (`DEMO-1` and `demo-1` would be one file on a
    /// case-insensitive file system, such as macOS's and Windows'), or an id longer than 200
    /// bytes (a file name has at most 255).
    ///
    /// ```case
    /// case DEMO-1 "Clock lookup" { … }
    /// case demo-1 "Day lookup" { … }            # error: DEMO-1 but for letter case
    /// case CASE-xxxx…xxxx "Year lookup" { … }   # error: 201 bytes
    /// ```
    ///
    /// **Fix.** Rename the case so that every id, lowercased, is unique and at most 200 bytes
    /// long.
    CASE_FILE_NAME = "case_file_name" (error): "a case id that cannot name the files written for its case: too long, or another's but for letter case";

    /// `casec export` cannot write a case in the format its shape declares: a
    /// folder export `seed`s the case's workspace but the case has no `world` (or the suite no
    /// file tools), its `evaluator` has no world to grade a run in, or a seeded file's path would
    /// leave its folder (`/workspace/../x`). A `turns` export cannot lay out an observed
    /// conversation (`observed/*.trace.jsonl`) that does not begin with its `episode` line,
    /// has an event before the person's first message, ends twice or before its last turn,
    /// is not named by its episode id, or is cited by a case the suite does not have.
    ///
    /// ```case
    /// case task_1 "Summarize the sales" {      # error: case task_1 has no files to seed
    ///   domain data_processing
    ///   …                                      # no `world { files F1 { path "/workspace/…"; … } }`
    /// }
    /// ```
    ///
    /// **Fix.** Give the case a `world` with its workspace's files (and `expect` blocks with
    /// `file` assertions for the evaluator), or write file paths as absolute paths of plain names.
    EXPORT = "export" (error): "a case that cannot be written in an export format";

    /// A `shape` declaration that cannot be used (see [shapes.md](shapes.md)): an
    /// unknown field kind or flag, a kind at the wrong level (`system_prompt` for a case), two
    /// fields of one semantic kind, a grading that names an unknown dimension or field or
    /// leaves a verdict without a name, a layout key whose source is neither a field, a
    /// built-in nor a part of the item laid out, a missing `layout master`, `bundle` or
    /// `result`, a result layout without the keys `casec report` reads, a `checks` field no
    /// `derive` names (its statements would make no check), `inherited` on a suite field,
    /// `quotable` on a field that is not `model` — and a bundle layout that would show the model a field not declared `model`.
    ///
    /// ```case
    /// shape errands {
    ///   field answer text required evaluator
    ///   …
    ///   layout bundle {
    ///     id id
    ///     answer answer        # error: the bundle would show `answer`, which only the evaluator may read
    ///   }
    /// }
    /// ```
    ///
    /// **Fix.** Follow the message: remove the key from the bundle (or declare the field
    /// `model` if the model is meant to see it), name a declared field, add the missing
    /// layout. stdlib/casec.case and stdlib/tujora.case are complete examples.
    SHAPE_DEFINITION = "shape_definition" (error): "a shape declaration (field, grading, layout, export) that cannot be used";

    /// The suite's `shape` names a shape that neither the suite nor the stdlib
    /// declares.
    ///
    /// ```case
    /// suite "…" {
    ///   shape std.tujra        # error: did you mean `std.tujora`?
    /// }
    /// ```
    ///
    /// **Fix.** Name a declared shape: the stdlib's are `std.casec` (the default), `std.tujora`,
    /// `std.donnabench` and `std.dumate`; or declare your own with `shape NAME { … }`.
    UNKNOWN_SHAPE = "unknown_shape" (error): "a suite names a shape that is not declared";

    /// A `schema` declaration that cannot be used: an unknown field type, an
    /// `enum` without values or `ref` without a collection, a `ref` to a collection the schema
    /// does not declare, an id prefix that is not capital letters, or a reserved name (`new`
    /// for a collection, `history` for a field).
    ///
    /// ```case
    /// schema errands_world {
    ///   collection things {
    ///     id_prefix TH
    ///     field size nubmer        # error: unknown field type `nubmer`; did you mean `number`?
    ///   }
    /// }
    /// ```
    ///
    /// **Fix.** Use a field type of the language: `text`, `date`, `time`, `datetime`,
    /// `duration`, `recurrence`, `bool`, `number`, `enum VALUE…`, `ref COLLECTION…`,
    /// `list TYPE`, optionally followed by `optional`.
    ///
    /// A schema with an error is reported once, where it is wrong: the suite's `world_schema`
    /// naming it is not also `unknown_schema`, and its cases' worlds are not also reported as
    /// untyped (`tests/ui/schema_error_reported_once.case`).
    SCHEMA_DEFINITION = "schema_definition" (error): "a world schema declaration that cannot be used";

    /// The suite's `world_schema` names a schema that neither the suite nor the
    /// stdlib declares.
    ///
    /// ```case
    /// suite "…" {
    ///   world_schema std.everyday_wrld     # error: did you mean `std.everyday_world`?
    /// }
    /// ```
    ///
    /// **Fix.** Name a declared schema; the stdlib's is `std.everyday_world`. The suite's
    /// cases with a world are not reported again for it
    /// (`tests/ui/unknown_schema_reported_once.case`).
    UNKNOWN_SCHEMA = "unknown_schema" (error): "a suite names a world schema that is not declared";

    /// A case's world starts `from` a shared world that suite.case does not declare
    /// (`world NAME { … }`), or removes with `without` a record the shared world does not
    /// write (that one is `unknown_record`).
    ///
    /// ```case
    /// world home { lists L1 { title "Groceries" } }      # in suite.case
    /// case C-1 "…" {
    ///   world { from hom }                               # error: did you mean `home`?
    /// }
    /// ```
    ///
    /// **Fix.** Name a `world` of suite.case ([worlds.md](worlds.md#shared-worlds-world-name-and-from)).
    /// UI test: `tests/ui/shared_world.case`.
    UNKNOWN_WORLD = "unknown_world" (error): "a case's world starts from a shared world the suite does not declare";

    /// A world record, a `new` declaration, an expectation or a call condition
    /// names a collection the world schema does not declare.
    ///
    /// ```case
    /// world {
    ///   remiders R1 { label "Call Sam"; at "2026-11-09 16:00"; status active }   # did you mean `reminders`?
    /// }
    /// ```
    ///
    /// **Fix.** Use a collection of the schema (listed in [worlds.md](worlds.md#the-stdlib-schema)).
    UNKNOWN_COLLECTION = "unknown_collection" (error): "a collection the world schema does not declare";

    /// A record, a history entry or a condition names a field its collection does
    /// not have, or a path goes on past a value that has no fields (`at.tme`).
    ///
    /// ```case
    /// reminders R1 { labl "Call Sam"; at "2026-11-09 16:00"; status active }   # did you mean `label`?
    /// ```
    ///
    /// **Fix.** Use the collection's field; paths follow references (`booking.status`) and
    /// datetimes (`at.date`, `at.time`) only.
    UNKNOWN_RECORD_FIELD = "unknown_record_field" (error): "a field the collection does not declare";

    /// A value that does not fit its field's type: a date, time, datetime,
    /// duration or recurrence that does not parse, an enum value that is not listed, a list
    /// item of the wrong type, or an operator that does not apply (`before` on text).
    ///
    /// ```case
    /// reminders R1 { label "Call Sam"; at "4pm today"; status active }   # `at` is a datetime
    /// ```
    ///
    /// **Fix.** Write the value as its type asks: `"2026-11-09 16:00"` for a datetime in the
    /// case zone, `"16:00"`, `"2026-11-09"`, `"30m"`, `daily` or `"weekly tuesday"`, one of the
    /// enum's values.
    RECORD_FIELD_TYPE = "record_field_type" (error): "a value that does not fit its field's type";

    /// A record leaves out a field its collection requires.
    ///
    /// ```case
    /// reminders R1 { label "Call Sam"; status active }   # record R1 has no `at`
    /// ```
    ///
    /// **Fix.** Add the field. When the prose genuinely leaves a value unknown, the field
    /// should be `optional` in the schema; do not invent a value to satisfy it.
    MISSING_RECORD_FIELD = "missing_record_field" (error): "a record without one of its required fields";

    /// Two records (or a record and a `new` declaration) of one world share an id.
    /// Ids are unique across the whole world, not per collection.
    ///
    /// ```case
    /// reminders R1 { label "Call Sam"; at "2026-11-09 16:00"; status active }
    /// reminders R1 { label "Call Sam again"; at "2026-11-09 16:30"; status active }   # used twice
    /// ```
    ///
    /// **Fix.** Number the second record on (`R2`).
    DUPLICATE_RECORD = "duplicate_record" (error): "two records of one world with the same id";

    /// A file of a world (a record of the collection the suite's `files.*` tools
    /// work on) whose path is given twice in the world, or cannot name a file: empty, holding a
    /// NUL character, or with an empty part (`//`, a `/` at its end), a `.` or `..` part or a
    /// name longer than 255 bytes. The sandbox would serve one of two files at a path and
    /// `casec export` seed the other; a path that cannot name a file would fail only when an
    /// export writes it.
    ///
    /// ```case
    /// world {
    ///   files F1 { path "/workspace/sales.csv"; content "…" }
    ///   files F2 { path "/workspace/sales.csv"; content "…" }    # error: given twice
    ///   files F3 { path "/workspace//notes.md"; content "…" }    # error: an empty part
    /// }
    /// ```
    ///
    /// **Fix.** Keep one record of each file, and write paths as absolute paths of names
    /// (`/workspace/data/in.csv`).
    WORLD_FILE_PATH = "world_file_path" (error): "a file of a world at a path given twice, or at a path that cannot name a file";

    /// A record id that is not its collection's `id_prefix` followed by digits, or
    /// a request id that does not use the schema's `request_prefix`.
    ///
    /// ```case
    /// tasks R2 { title "Call Sam"; status pending }   # task ids are T1, T2, …
    /// ```
    ///
    /// **Fix.** Use the prefix (`tasks T1`). Prose ids follow the same scheme, which is how
    /// casec finds the ids the prose names.
    RECORD_ID_PREFIX = "record_id_prefix" (error): "a record or request id that does not start with its prefix";

    /// A `ref` field (in a record or a condition) names a record the world does
    /// not hold, or a record of a collection the field does not accept.
    ///
    /// ```case
    /// reminders R1 { label "Call Sam"; at "2026-11-09 16:00"; status active; subject T1 }   # no T1
    /// ```
    ///
    /// **Fix.** Add the referenced record to the world or correct the id.
    DANGLING_REFERENCE = "dangling_reference" (error): "a reference to a record the world does not hold";

    /// A datetime written with an offset that its timezone (the case's, or the
    /// bracketed one) does not have at that instant.
    ///
    /// ```case
    /// reminders R1 { label "Call Sam"; at "2026-11-09T16:00:00-04:00"; status active }
    /// # New York is at -05:00 on November 9, 2026
    /// ```
    ///
    /// **Fix.** Write the local time without an offset (`"2026-11-09 16:00"`) and let casec
    /// compute it, or correct the offset; a time in another zone takes a bracketed zone:
    /// `"2026-11-12 14:00[America/Los_Angeles]"`.
    ZONE_OFFSET_MISMATCH = "zone_offset_mismatch" (error): "a datetime whose offset contradicts its timezone";

    /// The facts, a check, a critical failure or the override prose name a record
    /// id (letters of a collection's prefix, then digits) that the world neither holds nor
    /// declares `new`, or a request id no override issues.
    ///
    /// ```case
    /// facts "R1 reminds the user to call Sam at 16:00; R2 reminds them to call Nina."
    /// world {
    ///   reminders R1 { label "Call Sam"; at "2026-11-09 16:00"; status active }   # no R2
    /// }
    /// ```
    ///
    /// **Fix.** Add the record (`reminders R2 { … }`), or `new reminders R2` when the run creates
    /// it, or `request Q1` on the override that issues a request id.
    UNMODELLED_RECORD = "unmodelled_record" (error): "a record id named in the prose that the world lacks";

    /// An expectation (`exists`, `retrieved`, `record`, `unchanged`, …) or a call
    /// condition names an id that is not a record, a `new` id or a request id of the case.
    ///
    /// ```case
    /// expect A1 { retrieved R3 }   # the world holds R1 only
    /// ```
    ///
    /// **Fix.** Correct the id, or add the record to the world.
    UNKNOWN_RECORD = "unknown_record" (error): "an expectation or override naming a record the world lacks";

    /// A call condition of an expectation names an argument the tool's contract
    /// does not have, or compares an enumerated argument (`operation:create|update|…`) with a
    /// value the contract does not list.
    ///
    /// ```case
    /// expect A1 { called search_notes { colection reminders } }   # did you mean `collection`?
    /// ```
    ///
    /// **Fix.** Use the argument names of the suite's `tool` declaration (the part before `:`),
    /// and `fields.NAME` for the fields of a write.
    UNKNOWN_ARGUMENT = "unknown_argument" (error): "a call filter naming an argument the tool does not take";

    /// An expectation is about a tool the case does not offer, so the model under
    /// test can never call it.
    ///
    /// ```case
    /// expect A1 { called tracker { operation locate } }   # the case offers no tracker
    /// ```
    ///
    /// **Fix.** Assert about an offered tool, or add the tool to the case's `tools`.
    UNOFFERED_TOOL = "unoffered_tool" (error): "an expectation or override about a tool the case does not offer";

    /// The machine part of an override can never apply: its tool is not offered
    /// by the case, or its `when` names an unknown argument, an operation the contract does not
    /// list, an unknown collection, or a record the world does not hold.
    ///
    /// ```case
    /// override save_record "create reminder" {
    ///   result "TIMEOUT"
    ///   when { collection reminders; operation insert }   # operations: create, update, delete, skip_occurrence
    ///   error TIMEOUT
    /// }
    /// ```
    ///
    /// **Fix.** Match what a call of the case can actually carry.
    OVERRIDE_MATCHES_NOTHING = "override_matches_nothing" (error): "a machine override that no call of the case can match";

    /// `expect`, `forbid` or `review` names a check or critical failure the case
    /// does not have. `expect` takes check ids (R1, A1…, S1, C1 as derived), `forbid` takes
    /// critical failure ids (F1, F2, … in the order written), `review` takes both.
    ///
    /// ```case
    /// expect S2 { unchanged R1 }   # the case has S1
    /// ```
    ///
    /// **Fix.** Use the case's ids; `casec sandbox` lists them with their text.
    UNKNOWN_CHECK = "unknown_check" (error): "an expectation tied to a check or critical failure the case lacks";

    /// A case with a world leaves a check or critical failure it writes itself
    /// without an `expect`/`forbid` and without a `review` mark. (Inherited checks such as the
    /// profile's C1 need review unless an `expect` names them.)
    ///
    /// ```case
    /// expect S1 { unchanged R1 }   # R1, A1 and F1 are decided by nothing
    /// ```
    ///
    /// **Fix.** Give each an assertion when the state or trace decides it, `review ID` when
    /// only a reader can judge it, or both.
    UNCLASSIFIED_CHECK = "unclassified_check" (error): "a check of a modelled case with neither an expectation nor a review mark";

    /// A case offers, in its own `tools` statement, a tool whose
    /// binding works on some collections only (a `booking` service's slots and bookings, a
    /// `device_tracker`'s trackers, a file store's files, a declared effect's collection),
    /// while its world holds no record of those collections and declares no `new` id in them.
    ///
    /// ```case
    /// tools current_time search_notes check_record save_record tracker   # no trackers in the world
    /// ```
    ///
    /// **Fix.** Add the records the prose implies. When offering the tool with nothing to find
    /// is the point of the case, allow the warning visibly, with the reason:
    ///
    /// ```case
    /// # The tracker is offered on purpose with no tracker to find.
    /// allow tool_without_records
    /// ```
    TOOL_WITHOUT_RECORDS = "tool_without_records" (warning, allowable): "a case offers a tool its world gives nothing to work on";

    /// A `tool` declaration that cannot be used: an unknown argument type, an
    /// argument declared twice, `fields ARG` where ARG is not a `collection` argument, an
    /// unknown service, a service parameter that names no argument of the tool (or one of a
    /// type the parameter cannot take), a collection or field the world schema lacks, an enum
    /// value the field does not have, an argument whose `ref` names a collection the world
    /// schema lacks (no call could give one), effects declared without a world schema, a
    /// `create` that never sets a required field, an argument whose type cannot give the
    /// field it sets, two ways of running the calls (a service and effects, say), or an
    /// adapter whose `env` names something that is not a variable name or a variable that
    /// holds a credential by its name (one with `KEY`, `TOKEN`, `SECRET`, `PASSWORD`,
    /// `PASSWD`, `CREDENTIAL`, `AUTH` or `COOKIE` in it: a suite's program never gets one,
    /// [security.md](security.md)). UI test for the last: `tests/ui/tool_definition_adapter_env.case`.
    ///
    /// ```case
    /// tool save_record {
    ///   behavior "Apply authorized changes."
    ///   argument collection collection
    ///   argument operation enum create update insert   # error: `service records.write` cannot do insert
    ///   argument fields fields collection
    ///   service records.write {
    ///     collection_argument collection
    ///     operation_argument operation
    ///     fields_argument fields
    ///   }
    /// }
    /// ```
    ///
    /// **Fix.** Follow the help: name an argument, collection or field that exists, with a type
    /// the service takes (docs/tools.md lists every service and its parameters), or declare the
    /// missing piece.
    TOOL_DEFINITION = "tool_definition" (error): "a tool declaration (argument, service, effect) that cannot be used";

    /// A tool has a contract (`behavior "…"`) but says nothing about how a call
    /// runs: no `service`, no declared effects, no `adapter`. The sandbox could only answer
    /// every call with an error, so the suite is refused; the diagnostic names the tool and the
    /// cases that offer it.
    ///
    /// ```case
    /// tool email_send {
    ///   behavior "Send an email to a contact."
    ///   argument to ref contacts
    ///   argument body text
    /// }
    /// ```
    ///
    /// **Fix.** Say what a call does: bind it to a service, declare its effects over the world,
    /// or give an adapter program:
    ///
    /// ```case
    /// tool email_send {
    ///   behavior "Send an email to a contact."
    ///   argument to ref contacts
    ///   argument body text
    ///   create sent_emails {
    ///     set to from to
    ///     set body from body
    ///   }
    /// }
    /// ```
    TOOL_WITHOUT_BEHAVIOR = "tool_without_behavior" (error): "a tool with a prose contract only, which the sandbox cannot run";

    /// An argument of a tool that some case offers has no `doc` (an `object`
    /// argument's members count too). The model calling the tool learns what to pass only from
    /// each argument's description, and some harnesses refuse a tool whose parameter has none
    /// (Inspect AI: `Description not provided for parameter …`). Until the argument has a
    /// `doc`, its description is derived from its type ("free text", "a number", "one of:
    /// inbox, sent", "the id of a record of contacts"; the table in
    /// [tools.md](tools.md#arguments)), which the help shows. Reported once per argument, at
    /// its declaration, naming the tool and the cases that offer it; a tool no case offers is
    /// not reported, nor are the stdlib's tools (documented, and kept so by casec's tests). It
    /// cannot be allowed: the argument is declared outside any case.
    ///
    /// ```case
    /// tool email_search {
    ///   behavior "Search the inbox and sent mail."
    ///   argument query text optional          # warning: described only as "free text"
    ///   argument folder enum inbox sent optional
    ///   read emails { match query; where folder folder }
    /// }
    /// ```
    ///
    /// **Fix.** Say what a model should pass, what leaving an optional argument out means,
    /// and, for a date or time type, how to write the value (a `doc` replaces the description
    /// the type gives):
    ///
    /// ```case
    ///   argument query text optional {
    ///     doc "Words to look for in a message's subject, body, sender or recipient; empty lists every message."
    ///   }
    ///   argument folder enum inbox sent optional {
    ///     doc "inbox for received mail, sent for mail the person sent; leave it out to search both."
    ///   }
    /// ```
    UNDOCUMENTED_ARGUMENT = "undocumented_argument" (warning): "an argument of a tool a case offers without a `doc`";

    /// A line of a trace file (`casec replay --trace`, or a golden
    /// `<ID>.trace.jsonl` read by `casec verify`) is not a trace event: not JSON, not an
    /// object, without a `type` of `call`, `asked`, `question`, `reply`, `user`, `end`,
    /// `episode` or `error`, with a key its type does not have, a `call` whose `arguments`
    /// are not an object, or a `violates` label outside a counter-example (a run's trace
    /// cannot carry its own grading), one naming another case in a counter-example, or one
    /// naming no case (or a case the suite does not have) in an observed conversation,
    /// whose turns may only be `cited_by` the suite's cases. Every malformed line is
    /// reported with its line; nothing is replayed. The format is in [traces.md](traces.md).
    ///
    /// ```jsonl
    /// {"type": "call", "tool": "search_notes", "arguments": "reminders"}
    /// {"type": "say", "content": "Done."}
    /// ```
    ///
    /// **Fix.** Write one JSON object per line: `{"type": "call", "tool": "search_notes",
    /// "arguments": {"collection": "reminders"}}`, `{"type": "reply", "content": "Done."}`.
    TRACE_LINE = "trace_line" (error): "a trace line that is not a JSON trace event";

    /// A file given to `casec report` holds something that is not a result record of
    /// the suite: not JSON, no case id naming a case of the suite (under the key its result
    /// layout gives it), an outcome other than the suite's three outcome names, no checks
    /// object or no array of triggered critical failures, or a second record of a case
    /// already reported. No report is written. A file with
    /// no text at all (or only blank lines) is refused too (`casec judge` refuses it the same
    /// way): that is what a `casec serve` killed before its session ended leaves at
    /// `--result-out`, not a run with no records; `casec replay` of the session's trace gives
    /// its record.
    ///
    /// ```json
    /// {"case_id": "TUJ-999", "outcome": "passed", "checks": {}, "critical_failures_triggered": []}
    /// ```
    ///
    /// **Fix.** Report the records `casec replay` (or a harness following the suite's
    /// `result_record_template`) wrote for this suite, one per case; pass `--suite` when the
    /// records belong to another suite folder.
    RESULT_RECORD = "result_record" (error): "a file given to `casec report` that is not a result record of the suite";

    /// A line of the overrides file given to `casec judge --overrides` is not a
    /// person's verdict on an item of the suite: not a JSON object, a key other than `case`,
    /// `item`, `met`, `author`, `reason` and `evidence`, a missing author or reason, a case the
    /// suite does not have, an id that is no check or critical failure of that case, or a
    /// second verdict on the same item (and evidence digest). Nothing is judged and nothing is
    /// written.
    ///
    /// ```jsonl
    /// {"case": "TUJ-021", "item": "Z9", "met": true, "author": "ana", "reason": "explains the clash"}
    /// ```
    ///
    /// **Fix.** Name a case of the suite and one of its checks (`R1`, `A2`, …) or critical
    /// failures (`F1`, `GF2`, …), with a boolean `met` (a check met, a critical failure
    /// committed), a non-empty `author` and `reason`; to limit a verdict to one run, copy the
    /// `evidence_digest` of its item from a judged record into `evidence`
    /// ([judge.md](judge.md#overrides)).
    JUDGE_OVERRIDE = "judge_override" (error): "a line of a judge override file that is not a verdict on an item of the suite";

    /// The report given to `casec judge --calibration` cannot gate the judge: it is
    /// not JSON, not a report of `casec calibrate` (no `per_item`, no `settings`), or it was
    /// made for another judge model or another prompt version, so its agreement says nothing
    /// of this judge. Nothing is judged and nothing is written.
    ///
    /// ```json
    /// {"per_item": {"R1": {"samples": 2, "negatives": 1, "kappa": 1.0}}, "settings": {"model": "gpt-4o-mini", "prompt_version": "casec-judge-1"}}
    /// ```
    ///
    /// **Fix.** Calibrate the judge you run: `casec calibrate SUITE --endpoint URL --model NAME
    /// -o calibration.json` with the same `--model`, then `casec judge … --calibration
    /// calibration.json`; calibrate again when casec's prompt version changes.
    CALIBRATION = "calibration" (error): "a calibration report that cannot gate the judge: not one, or of another judge model or prompt";

    /// The judge gave no verdict for some review items of a record: the endpoint
    /// could not be reached or answered an error, its answer was not one clear JSON verdict
    /// (`{"met": bool, "reason": str}`), its choices contradicted each other, or the record
    /// lacks evidence the item is judged on. Those items keep `needs_review` (or stay pending)
    /// and the case stays undecided (the suite's third outcome name): a missing verdict is
    /// never a pass.
    /// The label gives each item's reason; `--deny warnings` makes the run fail.
    ///
    /// ```text
    /// ⚠ 7 review items of `TUJ-021` without a verdict (R1, C1, F3, GF1, GF2, GF3, GF4): the case stays undecided
    /// ```
    ///
    /// **Fix.** Run `casec judge` again when the endpoint answers (with `--cache`, the verdicts
    /// already given are not asked again); check `--endpoint`, `--model` and the API key
    /// variable; or decide the items in an overrides file.
    UNJUDGED = "unjudged" (warning): "a review item the judge left without a verdict: its case stays undecided";

    /// A command that runs a suite's programs (`casec verify`,
    /// `replay`, `serve`, `calibrate`) was pointed at a suite whose tools have an `adapter`,
    /// and the user has not consented: the programs would run as the user, with the user's
    /// files. Or, with `--trust`, a program given as a path, or an argument that is an
    /// absolute path or climbs with `..`, resolves (links followed) outside the suite folder,
    /// and `--trust-outside` was not given. Or `casec calibrate` was asked to run a program
    /// whose adapter's `env` names the variable that holds the judge's key
    /// (`--api-key-env`). The command refuses before it runs or writes anything; a suite
    /// without adapters needs no consent. See [security.md](security.md).
    ///
    /// ```
    /// $ casec verify notes      # its tool note_add has `adapter "python3" "tools/notes.py"`
    /// untrusted_adapter
    ///   × the suite's tool `note_add` runs the program `python3 tools/notes.py`, and you have not
    ///   │ allowed this suite's programs to run
    ///   help: a suite's programs run as you, with your files: if you trust this suite, run the command
    ///         again with --trust (docs/security.md)
    /// ```
    ///
    /// **Fix.** Read the suite's programs first. If you trust them, run the command again with
    /// `--trust` (Python: `casec.load(path, trust=True)`; Inspect: `-T trust=true`); if they
    /// must reach outside the suite folder, also `--trust-outside`. Never declare the judge's
    /// key variable in an adapter's `env`. UI test: `tests/ui/untrusted_adapter.case` (the
    /// refusal every running command gives).
    UNTRUSTED_ADAPTER = "untrusted_adapter" (error, usage): "a command would run a suite's program without the user's consent (`--trust`), or one outside the suite folder without `--trust-outside`";
}
