//! The integration tests, one crate (one binary to build and link): each module is a
//! file of `tests/` and tests one face of casec from outside, through the library or the
//! `casec` binary. Three stay crates of their own: `golden` and `sandbox` generate a
//! test per snapshot file (their own harness), and `session_memory` installs a counting
//! allocator, which must see that test alone. See ARCHITECTURE.md, "Tests".

// Helpers several test modules use, each compiled once.
#[path = "support/fake_judge.rs"]
mod fake_judge;
#[path = "lsp/client.rs"]
mod lsp_client;
#[path = "support/mod.rs"]
mod support;

mod acceptance_suites;
mod architecture;
mod argument_defaults;
mod asked_which;
mod binary_files;
mod bundle_blinding;
mod bundle_cli;
mod bundle_tujora;
mod check;
mod check_cache;
mod check_staged;
mod cli;
mod cli_contract;
mod completions_man;
mod computed_values;
mod diagnostic_docs;
mod editors;
mod export;
mod fields_schema;
mod fmt;
mod fmt_cli;
mod format_artifacts;
mod github_paths;
mod integer_type;
mod json_artifacts;
mod judge_cli;
mod judge_hardening;
mod judge_output;
mod limits;
mod lsp;
mod lsp_e2e;
mod nesting;
mod now_conditions;
mod observed_conversations;
mod ordered_reads;
mod outputs;
mod path_comparisons;
mod paths;
mod person_endpoint;
mod quick_fixes;
mod quotable_texts;
mod record_schemas;
mod refusal_times;
mod replay_cli;
mod reply_checks;
mod report_html;
mod result_shapes;
mod robustness;
mod roundtrip;
mod runtime;
mod schemas;
mod serve_cli;
mod shared_worlds;
mod step_limit;
mod text_operators;
mod tools;
mod trust;
mod why_checks_fail;
mod workspace_commands;
mod workspace_grading;
