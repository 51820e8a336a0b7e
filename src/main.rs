//! The `casec` command line: parses arguments and calls the library.

use std::path::PathBuf;
use std::process::ExitCode;

use casec::diag::codes;
use casec::driver::{self, DiagnosticOptions, FmtMode, Format, Reporter};
use casec::runtime::commands::isolation::Isolation;
use casec::Depth;
use clap::builder::PossibleValuesParser;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

/// jemalloc: casec's phases allocate on every core at once, which glibc's allocator
/// serializes (see the note in Cargo.toml and docs/performance.md).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "casec",
    version,
    about = "Compile .case benchmark suites: check, build, bundle, import, format"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate files or suite folders (default: the current folder).
    Check {
        paths: Vec<PathBuf>,
        /// Keep what each check found in DIR and reuse it for files unchanged since
        /// (the same answer, faster on a large suite; see docs/performance.md). Also
        /// CASEC_CACHE=DIR. A hidden folder in the suite, `.casec-cache`, is never read
        /// as part of it.
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
        /// Check the files as staged in git's index (what `git commit` would record),
        /// not as the working tree holds them: for a pre-commit hook. With --cache, the
        /// changed files are found by git, without a `stat` of every file.
        #[arg(long)]
        staged: bool,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Build the master JSON of a suite.
    Build {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// Write to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Skip the semantic checks: build exactly what the sources say, e.g. a suite
        /// imported from a master that breaks a rule, until it is fixed.
        #[arg(long)]
        no_check: bool,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Write the blinded model bundles of a suite: per case, only what the model may see.
    ///
    /// Every run proves that no harness or evaluator text reaches a bundle; on any error
    /// nothing is written. -o and --jsonl may be combined (both or neither are written).
    Bundle {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// The folder to create: DIR/<case_id>.json per case and DIR/index.json (must be
        /// absent or empty).
        #[arg(short, long, value_name = "DIR", required_unless_present = "jsonl")]
        output: Option<PathBuf>,
        /// Write the bundles as JSON Lines, one case per line, to FILE (`-`: standard
        /// output).
        #[arg(long, value_name = "FILE")]
        jsonl: Option<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Write sandbox initialisation: one JSON file per case that has a world.
    Sandbox {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// The folder to create (must be absent or empty).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Write another benchmark's format, as the suite's shape declares it.
    ///
    /// `--format` names one of the shape's exports: std.donnabench's `donnabench` (JSON
    /// Lines), std.dumate's `dumate` (one task folder per case), …
    Export {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// The export to write (see the suite's shape).
        #[arg(long, value_name = "NAME")]
        format: String,
        /// A file for JSON Lines (default: standard output), a folder to create (absent
        /// or empty) for folders.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        #[command(flatten)]
        report: ExportReportArgs,
    },
    /// Count, per category, the checks and critical failures a machine can decide.
    Stats {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Replay a trace against a case's sandbox and print its result record.
    Replay {
        /// The case: the path of its .case file, or its id (TUJ-034).
        case: String,
        /// The trace to replay: JSON Lines, one event per line (docs/traces.md).
        #[arg(long, value_name = "TRACE.jsonl")]
        trace: PathBuf,
        /// The suite folder (default: the folder above the case file holding suite.case,
        /// or the current folder for a case id).
        suite: Option<PathBuf>,
        /// Write the result record to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Grade the files a real run left in DIR (DIR/outputs/a.csv is /outputs/a.csv):
        /// after the trace, DIR's files become the run's file store (docs/traces.md).
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        #[command(flatten)]
        trust: TrustArgs,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Replay every golden trace and the do-nothing trace of a suite's cases.
    Verify {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        #[command(flatten)]
        trust: TrustArgs,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Judge the review items of result records with a language model (one request per
    /// item) and write judged records, their outcomes recomputed.
    ///
    /// The endpoint is OpenAI-compatible (chat completions); the API key is read from the
    /// environment variable --api-key-env names, never from the command line. An item
    /// the judge leaves without a verdict stays for review (warning `unjudged`).
    Judge {
        /// Result record files (one JSON object each, or JSON Lines of them).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// The suite folder the records belong to.
        #[arg(long, default_value = ".")]
        suite: PathBuf,
        #[command(flatten)]
        judge: JudgeOptions,
        /// People's verdicts, which take precedence: JSON Lines of {"case", "item", "met",
        /// "author", "reason"} (docs/judge.md).
        #[arg(long, value_name = "FILE")]
        overrides: Option<PathBuf>,
        /// Let the judge decide only the items this calibration report (`casec calibrate
        /// -o FILE`, same model) shows it agrees on; the others stay for review.
        #[arg(long, value_name = "FILE")]
        calibration: Option<PathBuf>,
        /// The Cohen's kappa an item needs in the calibration to be decided by the judge.
        #[arg(long, default_value_t = 0.8, requires = "calibration")]
        min_kappa: f64,
        /// The folder to create: one judged file per input, under its name (must be
        /// absent or empty).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Measure a judge against the suite's labels: golden traces (every review item
    /// met) and labelled counter-examples (the items their `violates` lines name).
    ///
    /// Prints agreement per group, per item id and overall (accuracy, balanced accuracy,
    /// Cohen's kappa) and every disagreement; --format json or -o FILE gives the JSON.
    Calibrate {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        #[command(flatten)]
        judge: JudgeOptions,
        /// Write the JSON report to FILE.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        trust: TrustArgs,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Print the JSON Schema of the suite's run records (their keys are its shape's).
    Schema {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// Which record: `result` (replay, serve) or `judged` (casec judge).
        #[arg(long, value_enum, default_value_t = RecordArg::Result)]
        record: RecordArg,
        /// Write to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Aggregate result records into the suite's required reporting (JSON), and with
    /// --html into a page for people.
    Report {
        /// Result record files (one JSON object each, or JSON Lines of them).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// The suite folder the records belong to.
        #[arg(long, default_value = ".")]
        suite: PathBuf,
        /// Write the JSON report to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also write the report as one self-contained HTML page to FILE (charts, the
        /// texts of the failures, the judge's reasons, each run's trace); the JSON then
        /// goes only to -o FILE, if given.
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// The isolated side of a workspace command: reads a job (JSON) on standard input,
    /// runs it, writes its outcome (JSON) on standard output. casec starts it inside
    /// the isolation (crates/runtime/src/commands); not for people.
    #[command(hide = true)]
    WorkspaceJob,
    /// Serve a case's sandbox over stdio JSON-RPC (MCP tools) to drive a live model.
    Serve {
        /// The suite folder (holding suite.case).
        #[arg(default_value = ".")]
        suite: PathBuf,
        /// The case to serve.
        #[arg(long, value_name = "ID")]
        case: String,
        /// Write the session's trace (JSON Lines) to FILE, each event as it is answered.
        #[arg(long, value_name = "FILE")]
        trace_out: Option<PathBuf>,
        /// When the session ends, write its result record to FILE.
        #[arg(long, value_name = "FILE")]
        result_out: Option<PathBuf>,
        #[command(flatten)]
        person: PersonOptions,
        #[command(flatten)]
        trust: TrustArgs,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Turn a master JSON into a suite folder of .case files.
    Import {
        /// A master JSON, or JSON Lines an export writes (`.jsonl`: a `jsonl` export's cases, or
        /// a `turns` export's rows of observed conversations, written as trace files).
        master: PathBuf,
        /// The folder to create (must be absent or empty).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// The stdlib shape the input follows (default: the one its keys show).
        #[arg(long, value_name = "NAME")]
        shape: Option<String>,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Rewrite .case files in canonical form, in place (default: the current folder).
    Fmt {
        /// Files, or folders whose .case files are formatted.
        #[arg(conflicts_with = "stdin")]
        paths: Vec<PathBuf>,
        /// Change nothing: print the diff of what would change and exit 1 if anything would.
        #[arg(long)]
        check: bool,
        /// Format standard input to standard output.
        #[arg(long)]
        stdin: bool,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Explain a diagnostic code: what triggers it, a failing example and the fix (its
    /// entry of docs/diagnostics.md, as Markdown).
    Explain {
        /// The code, as diagnostics show it (`weekday_mismatch`).
        #[arg(
            value_name = "CODE",
            value_parser = PossibleValuesParser::new(codes::ALL.iter().map(|c| c.name)),
            hide_possible_values = true
        )]
        code: String,
    },
    /// Print a shell completion script for casec (bash, zsh, fish, elvish, powershell).
    ///
    /// bash: `casec completions bash > ~/.local/share/bash-completion/completions/casec`;
    /// zsh: into a folder of $fpath as `_casec`; fish: `~/.config/fish/completions/casec.fish`.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write casec's man pages (roff), generated from its command line: casec.1 and
    /// one page per command (casec-check.1, …) into DIR, or casec.1 alone to standard
    /// output.
    Man {
        /// The folder to write the pages into (created if absent; existing pages are
        /// replaced).
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// Run the language server for editors, speaking LSP over standard input and output.
    Lsp {
        /// Standard input and output are the only transport; the flag is accepted for
        /// clients that pass it.
        #[arg(long, hide = true)]
        stdio: bool,
    },
}

#[derive(Args)]
struct ReportArgs {
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,
    /// Treat warnings as errors (`--deny warnings`).
    #[arg(long, value_enum)]
    deny: Option<Deny>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

/// Consent to run the suite's programs: the adapters its tools name (docs/security.md).
#[derive(Args)]
struct TrustArgs {
    /// Run the suite's programs (the adapters its tools name). They run as you, with
    /// your files, so give it only for a suite you trust. Without it a suite that has
    /// adapters is refused (exit 2) before anything runs; a suite without adapters
    /// needs no consent. See docs/security.md.
    #[arg(long)]
    trust: bool,
    /// With --trust, also run programs outside the suite folder and pass them paths
    /// outside it (an absolute path, or one that climbs out with `..`).
    #[arg(long, requires = "trust")]
    trust_outside: bool,
    /// Run workspace commands (tools bound to `commands.run`) on this machine, as you,
    /// without isolation (for machines where bubblewrap cannot isolate them): they can
    /// read and write your files and reach the network. Without it, where bubblewrap
    /// cannot isolate, such a command fails with UNAVAILABLE.
    #[arg(long)]
    unisolated_commands: bool,
}

impl TrustArgs {
    fn trust(&self) -> casec::runtime::trust::Trust {
        casec::runtime::trust::Trust::from_flags(self.trust, self.trust_outside)
    }

    fn isolation(&self) -> Isolation {
        match self.unisolated_commands {
            true => Isolation::Host,
            false => Isolation::Namespaces,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RecordArg {
    Result,
    Judged,
}

/// How `casec serve` reaches a model that plays the case's simulated person
/// (`sandbox/person_turn`), with the judge's settings (docs/people.md).
#[derive(Args)]
struct PersonOptions {
    /// An OpenAI-compatible endpoint that plays the simulated person: its base URL
    /// (`https://…/v1`) or its chat-completions URL.
    #[arg(long, value_name = "URL", requires = "person_model")]
    person_endpoint: Option<String>,
    /// The person model, as the endpoint names it.
    #[arg(long, value_name = "NAME", requires = "person_endpoint")]
    person_model: Option<String>,
    /// The environment variable that holds the person endpoint's API key (unset or
    /// empty: none is sent); the suite's programs never see it.
    #[arg(
        long,
        value_name = "VAR",
        default_value = "OPENAI_API_KEY",
        requires = "person_endpoint"
    )]
    person_api_key_env: String,
    /// Keep the person model's turns in DIR and reuse them (created if absent).
    #[arg(long, value_name = "DIR", requires = "person_endpoint")]
    person_cache: Option<PathBuf>,
    /// The seed sent with every person request (temperature is always 0).
    #[arg(long, default_value_t = 0, requires = "person_endpoint")]
    person_seed: u64,
    /// Seconds a person request may take before it is tried again (three tries at most).
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..), requires = "person_endpoint")]
    person_timeout: u64,
}

impl PersonOptions {
    fn args(&self) -> Option<driver::JudgeArgs<'_>> {
        Some(driver::JudgeArgs {
            endpoint: self.person_endpoint.as_deref()?,
            model: self.person_model.as_deref()?,
            api_key_env: &self.person_api_key_env,
            cache: self.person_cache.as_deref(),
            seed: self.person_seed,
            jobs: 1,
            timeout: std::time::Duration::from_secs(self.person_timeout),
        })
    }
}

/// How `casec judge` and `casec calibrate` reach the judge.
#[derive(Args)]
struct JudgeOptions {
    /// The OpenAI-compatible endpoint: its base URL (`https://…/v1`) or its
    /// chat-completions URL.
    #[arg(long, value_name = "URL")]
    endpoint: String,
    /// The judge model, as the endpoint names it.
    #[arg(long, value_name = "NAME")]
    model: String,
    /// The environment variable that holds the API key (unset or empty: none is sent).
    #[arg(long, value_name = "VAR", default_value = "OPENAI_API_KEY")]
    api_key_env: String,
    /// Keep the judge's answers in DIR and reuse them (created if absent).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// The seed sent with every request (temperature is always 0).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    jobs: u64,
    /// Seconds a request may take before it is tried again (three tries at most).
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
}

impl JudgeOptions {
    fn args(&self) -> driver::JudgeArgs<'_> {
        driver::JudgeArgs {
            endpoint: &self.endpoint,
            model: &self.model,
            api_key_env: &self.api_key_env,
            cache: self.cache.as_deref(),
            seed: self.seed,
            jobs: usize::try_from(self.jobs).unwrap_or(1),
            timeout: std::time::Duration::from_secs(self.timeout),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Human,
    Json,
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
enum Deny {
    Warnings,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// [`ReportArgs`] for `casec export`, whose `--format` names the export: diagnostics
/// take `--diagnostics FORMAT` there.
#[derive(Args)]
struct ExportReportArgs {
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    diagnostics: FormatArg,
    /// Treat warnings as errors (`--deny warnings`).
    #[arg(long, value_enum)]
    deny: Option<Deny>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
}

fn options(format: FormatArg, deny: Option<Deny>, color: Color) -> DiagnosticOptions {
    DiagnosticOptions {
        format: match format {
            FormatArg::Human => Format::Human,
            FormatArg::Json => Format::Json,
            FormatArg::Github => Format::Github,
        },
        deny_warnings: deny.is_some(),
        color: match color {
            Color::Auto => driver::stderr_is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            Color::Always => true,
            Color::Never => false,
        },
    }
}

/// Runs `command` with the run's one [`Reporter`], made from `options`, then prints
/// the run's summary: the command's exit code.
fn reporting(options: DiagnosticOptions, command: impl FnOnce(&Reporter) -> u8) -> u8 {
    let reporter = Reporter::new(options);
    let code = command(&reporter);
    reporter.finish(code)
}

impl ReportArgs {
    fn options(&self) -> DiagnosticOptions {
        options(self.format, self.deny, self.color)
    }
}

impl ExportReportArgs {
    fn options(&self) -> DiagnosticOptions {
        options(self.diagnostics, self.deny, self.color)
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                driver::EXIT_USAGE
            } else {
                driver::EXIT_OK
            });
        }
    };
    let code = match cli.command {
        Command::Check {
            paths,
            cache,
            staged,
            report,
        } => {
            let from_env = || {
                std::env::var_os(driver::cache::CACHE_VAR)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            };
            let cache = cache.or_else(from_env);
            let snapshot = match staged {
                true => driver::cache::Snapshot::Staged,
                false => driver::cache::Snapshot::WorkingTree,
            };
            reporting(report.options(), |reporter| {
                driver::check(&paths, cache.as_deref(), snapshot, reporter)
            })
        }
        Command::Build {
            suite,
            output,
            no_check,
            report,
        } => {
            let depth = if no_check {
                Depth::Resolve
            } else {
                Depth::Check
            };
            reporting(report.options(), |reporter| {
                driver::build(&suite, output.as_deref(), depth, reporter)
            })
        }
        Command::Bundle {
            suite,
            output,
            jsonl,
            report,
        } => reporting(report.options(), |reporter| {
            driver::bundle(
                &suite,
                driver::Outputs {
                    folder: output.as_deref(),
                    jsonl: jsonl.as_deref(),
                },
                reporter,
            )
        }),
        Command::Sandbox {
            suite,
            output,
            report,
        } => reporting(report.options(), |reporter| {
            driver::sandbox(&suite, &output, reporter)
        }),
        Command::Stats { suite, report } => {
            reporting(report.options(), |reporter| driver::stats(&suite, reporter))
        }
        Command::Export {
            suite,
            format,
            output,
            report,
        } => reporting(report.options(), |reporter| {
            driver::export_suite(&suite, &format, output.as_deref(), reporter)
        }),
        Command::Replay {
            case,
            trace,
            suite,
            output,
            workspace,
            trust,
            report,
        } => reporting(report.options(), |reporter| {
            driver::replay(
                driver::ReplayArgs {
                    case: &case,
                    trace: &trace,
                    suite: suite.as_deref(),
                    output: output.as_deref(),
                    workspace: workspace.as_deref(),
                    trust: trust.trust(),
                    isolation: trust.isolation(),
                },
                reporter,
            )
        }),
        Command::Verify {
            suite,
            trust,
            report,
        } => reporting(report.options(), |reporter| {
            driver::verify(&suite, trust.trust(), trust.isolation(), reporter)
        }),
        Command::Judge {
            results,
            suite,
            judge,
            overrides,
            calibration,
            min_kappa,
            output,
            report,
        } => reporting(report.options(), |reporter| {
            driver::judge_results(
                &results,
                &suite,
                driver::JudgeInputs {
                    overrides: overrides.as_deref(),
                    calibration: calibration.as_deref().map(|c| (c, min_kappa)),
                },
                &output,
                &judge.args(),
                reporter,
            )
        }),
        Command::Calibrate {
            suite,
            judge,
            output,
            trust,
            report,
        } => reporting(report.options(), |reporter| {
            driver::calibrate(
                &suite,
                output.as_deref(),
                &judge.args(),
                trust.trust(),
                reporter,
            )
        }),
        Command::Schema {
            suite,
            record,
            output,
            report,
        } => reporting(report.options(), |reporter| {
            driver::record_schema(
                &suite,
                match record {
                    RecordArg::Result => casec::lower::record_schema::Record::Result,
                    RecordArg::Judged => casec::lower::record_schema::Record::Judged,
                },
                output.as_deref(),
                reporter,
            )
        }),
        Command::Report {
            results,
            suite,
            output,
            html,
            report,
        } => reporting(report.options(), |reporter| {
            driver::report_results(
                &results,
                &suite,
                output.as_deref(),
                html.as_deref(),
                reporter,
            )
        }),
        Command::Serve {
            suite,
            case,
            trace_out,
            result_out,
            person,
            trust,
            report,
        } => reporting(report.options(), |reporter| {
            driver::serve(
                &suite,
                &case,
                driver::ServeOutputs {
                    trace: trace_out.as_deref(),
                    result: result_out.as_deref(),
                },
                (trust.trust(), trust.isolation()),
                person.args().as_ref(),
                reporter,
            )
        }),
        Command::Import {
            master,
            output,
            shape,
            report,
        } => reporting(report.options(), |reporter| {
            driver::import(&master, &output, shape.as_deref(), reporter)
        }),
        Command::Fmt {
            paths,
            check,
            stdin,
            report,
        } => {
            let mode = if check {
                FmtMode::Check
            } else {
                FmtMode::Write
            };
            reporting(report.options(), |reporter| match stdin {
                true => driver::fmt_stdin(mode, reporter),
                false => driver::fmt_paths(&paths, mode, reporter),
            })
        }
        Command::Explain { code } => explain(&code),
        Command::Completions { shell } => completions(shell),
        Command::Man { output } => man_pages(output.as_deref()),
        Command::Lsp { stdio: _ } => casec::lsp::stdio(),
        Command::WorkspaceJob => casec::runtime::commands::job_main(),
    };
    ExitCode::from(code)
}

/// `casec explain CODE`: the code's docs entry, on standard output (clap has refused
/// a name that is no code, with the closest one).
fn explain(code: &str) -> u8 {
    let Some(code) = codes::declared(code) else {
        return driver::EXIT_USAGE;
    };
    match driver::output::print(code.docs_entry().as_bytes()) {
        Ok(()) => driver::EXIT_OK,
        Err(e) => io_error(None, &e),
    }
}

/// `casec completions SHELL`: the completion script, on standard output.
fn completions(shell: clap_complete::Shell) -> u8 {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "casec", &mut script);
    match driver::output::print(&script) {
        Ok(()) => driver::EXIT_OK,
        Err(e) => io_error(None, &e),
    }
}

/// The man pages of the command line: `casec.1`, then one page per command
/// (`casec-check.1`, …), each with its file name and roff text.
fn man_page_files() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn add(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        let subcommands: Vec<clap::Command> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .cloned()
            .collect();
        let man = clap_mangen::Man::new(cmd);
        let mut page = Vec::new();
        man.render(&mut page)?;
        pages.push((man.get_filename(), page));
        for sub in subcommands {
            add(sub, pages)?;
        }
        Ok(())
    }
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    add(cmd, &mut pages)?;
    Ok(pages)
}

/// `casec man [-o DIR]`: every page into DIR (each written atomically), or `casec.1`
/// to standard output.
fn man_pages(output: Option<&std::path::Path>) -> u8 {
    let written = man_page_files().and_then(|pages| match output {
        None => driver::output::print(pages.first().map_or(&[][..], |(_, p)| p)),
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            pages
                .iter()
                .try_for_each(|(name, page)| driver::write_atomically(&dir.join(name), page))
        }
    });
    match written {
        Ok(()) => driver::EXIT_OK,
        Err(e) => io_error(output, &e),
    }
}

/// Reports an output that could not be written; the usage exit code.
fn io_error(path: Option<&std::path::Path>, e: &std::io::Error) -> u8 {
    let d = driver::output::write_error(path, e);
    let text = casec::diag::render::human(
        &d,
        &casec::source::SourceDb::new(),
        casec::diag::render::HumanStyle::PLAIN,
    );
    eprint!("{text}");
    driver::EXIT_USAGE
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every command's arguments are well formed (unique names, valid defaults): clap
    /// checks this only when a command is first parsed.
    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
