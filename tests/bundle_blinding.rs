//! Property tests of the blinding boundary on generated suites.
//!
//! Every hidden field of a generated suite (each harness and evaluator field of every
//! case, every harness default, the scoring rules, the global critical failures and the
//! revision notes) carries a random marker. Model-facing texts are drawn from a
//! vocabulary disjoint from the hidden one. Then:
//!
//! * the bundles build, no marker byte sequence appears in any of them, and each
//!   tool's contract reaches exactly the bundles of the cases that offer the tool;
//! * copying any hidden text into the user message of a case that holds it stops the
//!   bundles with a `hidden_text_leak` error that points at both the hidden text and
//!   the copy, and `casec check` reports the same copy (`leak`);
//! * the same copy in another case's user message is no leak: that case's model is
//!   not tested on it.

use casec::diag::codes;
use casec::{Compilation, Config, Depth, Sources};
use proptest::prelude::*;

const TOOLS: [&str; 3] = ["t_alpha", "t_beta", "t_gamma"];
const MODEL_WORDS: &[&str] = &[
    "apple", "river", "stone", "window", "garden", "paper", "candle", "bridge",
];
const HIDDEN_WORDS: &[&str] = &[
    "zebra", "quartz", "violet", "harbor", "ember", "lantern", "meadow", "cobalt",
];

/// Hidden text: three to six hidden words around a marker.
fn hidden_text(marker: String) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(HIDDEN_WORDS), 3..7).prop_map(move |words| {
        let (head, tail) = words.split_at(words.len() / 2);
        format!("{} {marker} {}", head.join(" "), tail.join(" "))
    })
}

fn model_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(MODEL_WORDS), 1..10).prop_map(|w| w.join(" "))
}

#[derive(Clone, Debug)]
struct GenCase {
    title: String,
    user: String,
    tools: Vec<&'static str>,
    facts: String,
    tool_override: Option<[String; 4]>,
    followup: Option<[String; 2]>,
    need: String,
    checks: Vec<String>,
    final_state: String,
    critical: Vec<String>,
}

#[derive(Clone, Debug)]
struct GenSuite {
    system_instruction: String,
    tool_behaviors: Vec<String>,
    /// Scoring rules, global critical failure, revision note, harness and evaluator
    /// defaults, in the order `render` writes them.
    suite_hidden: Vec<String>,
    cases: Vec<GenCase>,
}

/// A marker unlike any word of either vocabulary: `mk`, a random stem, a counter.
struct Markers {
    stem: String,
    next: usize,
}

impl Markers {
    fn next(&mut self) -> String {
        self.next += 1;
        format!("mk{}{}x", self.stem, self.next)
    }
}

fn gen_case(markers: &mut Markers) -> impl Strategy<Value = GenCase> {
    let mut h = || hidden_text(markers.next());
    let texts = (h(), h(), h(), [h(), h(), h(), h()], [h(), h()], h(), h());
    // Two checks and two critical failures with markers of their own, of which the
    // first one or two are kept.
    let lists = ([h(), h()], [h(), h()], 1..=2usize, 1..=2usize);
    let model = (
        model_text(),
        prop::sample::subsequence(TOOLS.to_vec(), 1..=3),
    );
    (texts, lists, model, any::<bool>(), any::<bool>()).prop_map(
        |(
            (title, facts, need, ov, fu, final_state, extra_check),
            (checks, critical, n_checks, n_critical),
            (user, tools),
            has_ov,
            has_fu,
        )| {
            let mut checks = checks[..n_checks].to_vec();
            checks.push(extra_check);
            let critical = critical[..n_critical].to_vec();
            GenCase {
                title,
                user,
                tools,
                facts,
                tool_override: has_ov.then_some(ov),
                followup: has_fu.then_some(fu),
                need,
                checks,
                final_state,
                critical,
            }
        },
    )
}

fn gen_suite() -> impl Strategy<Value = GenSuite> {
    ("[a-z]{6}", 1usize..5).prop_flat_map(|(stem, n)| {
        let mut markers = Markers { stem, next: 0 };
        let suite_hidden: Vec<_> = (0..16).map(|_| hidden_text(markers.next())).collect();
        let cases: Vec<_> = (0..n).map(|_| gen_case(&mut markers)).collect();
        (
            model_text(),
            prop::collection::vec(model_text(), 3),
            suite_hidden,
            cases,
        )
            .prop_map(
                |(system_instruction, tool_behaviors, suite_hidden, cases)| GenSuite {
                    system_instruction,
                    tool_behaviors,
                    suite_hidden,
                    cases,
                },
            )
    })
}

impl GenSuite {
    fn render(&self) -> String {
        let h = &self.suite_hidden;
        let mut s = format!(
            r#"suite "Generated" {{
  shape std.tujora
  version "1"
  created_on "2026-11-30"
  language "en-US"
  purpose "Generated."
  case_count {count}
  data_status "Synthetic."
  system_instruction "{si}"
  critical "{h0}"
  scoring {{
    outcomes PASS FAIL NOT_TESTED
    official_complete_run "{h1}"
    overall_pass_rate "{h2}"
    incomplete_run_reporting "{h3}"
    category_pass_rate "{h4}"
    report "{h5}"
    human_review "{h6}"
    result_template {{ note "{h7}" }}
  }}
  design_reference {{}}
  revision C-0 "{h8}"
  tool_behavior "{h9}"
  unscripted_reply "{h10}"
  ground_truth_policy "{h11}"
  pass_rule "{h12}"
  communication "{h13}"
  evidence recognition "{h14}"
  evidence execution_and_evidence "{h15}"
  evidence final_state "{h15}"
  evidence communication "{h14}"
  clock "2026-11-09T10:30:00-05:00"
  timezone "America/New_York"
  permissions "window paper"
  record_access "garden stone"
  tools {tools}
}}
category errands {count} {{ background "river stone"; preferences "candle bridge" }}
"#,
            count = self.cases.len(),
            si = self.system_instruction,
            h0 = h[0],
            h1 = h[1],
            h2 = h[2],
            h3 = h[3],
            h4 = h[4],
            h5 = h[5],
            h6 = h[6],
            h7 = h[7],
            h8 = h[8],
            h9 = h[9],
            h10 = h[10],
            h11 = h[11],
            h12 = h[12],
            h13 = h[13],
            h14 = h[14],
            h15 = h[15],
            tools = TOOLS.join(" "),
        );
        for (tool, behavior) in TOOLS.iter().zip(&self.tool_behaviors) {
            let marker = contract_marker(tool);
            s += &format!(
                "tool {tool} {{ behavior \"{marker} {behavior}\"; argument {marker} text; service clock }}\n"
            );
        }
        for (i, case) in self.cases.iter().enumerate() {
            s += &case.render(i);
        }
        s
    }

    fn hidden(&self) -> Vec<&str> {
        self.hidden_with_owners()
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    /// Every hidden text with the case that holds it (`None`: the suite's, which every
    /// case holds).
    fn hidden_with_owners(&self) -> Vec<(&str, Option<usize>)> {
        let mut all: Vec<(&str, Option<usize>)> = self
            .suite_hidden
            .iter()
            .map(|t| (t.as_str(), None))
            .collect();
        for (i, c) in self.cases.iter().enumerate() {
            let mut own: Vec<&str> = [&c.title, &c.facts, &c.need, &c.final_state]
                .map(String::as_str)
                .to_vec();
            own.extend(c.tool_override.iter().flatten().map(String::as_str));
            own.extend(c.followup.iter().flatten().map(String::as_str));
            own.extend(c.checks.iter().chain(&c.critical).map(String::as_str));
            all.extend(own.into_iter().map(|t| (t, Some(i))));
        }
        all
    }
}

impl GenCase {
    fn render(&self, i: usize) -> String {
        let mut s = format!(
            "case C-{i} \"{}\" {{\n  category errands\n  tools {}\n  user \"{}\"\n  facts \"{}\"\n",
            self.title,
            self.tools.join(" "),
            self.user,
            self.facts
        );
        if let Some([matches, result, side_effect, verify]) = &self.tool_override {
            s += &format!(
                "  override {} \"{matches}\" {{ result \"{result}\"; side_effect \"{side_effect}\"; verify \"{verify}\" }}\n",
                self.tools[0]
            );
        }
        if let Some([asked, reply]) = &self.followup {
            s += &format!("  followup {{ asked \"{asked}\"; reply \"{reply}\" }}\n");
        }
        s += &format!("  need \"{}\"\n", self.need);
        for check in &self.checks {
            s += &format!("  check \"{check}\"\n");
        }
        s += &format!("  final \"{}\"\n", self.final_state);
        for critical in &self.critical {
            s += &format!("  critical \"{critical}\"\n");
        }
        s + "}\n"
    }
}

/// A word that only the contract of `tool` holds.
fn contract_marker(tool: &str) -> String {
    format!("contract{}", tool.replace('_', ""))
}

/// Parses and resolves without the semantic checks: `casec check`'s own `leak` rule
/// would stop a copy within one case first, and this proves the bundle layer alone.
fn compile(source: &str) -> Compilation {
    let compilation = Compilation::new(Config {
        sources: Sources::in_memory([("suite.case", source)]),
        depth: Depth::Resolve,
        recheck: None,
    });
    assert!(
        !compilation.has_errors(),
        "{:#?}\n{source}",
        compilation.diagnostics
    );
    compilation
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_marker_reaches_a_bundle(suite in gen_suite()) {
        let source = suite.render();
        let compilation = compile(&source);
        let set = match compilation.bundles() {
            Some(Ok(set)) => set,
            other => panic!("bundles stopped: {other:#?}"),
        };
        let mut outputs: Vec<Vec<u8>> = set.files().into_iter().map(|(_, bytes)| bytes).collect();
        outputs.push(set.jsonl().into_bytes());
        let hidden = suite.hidden();
        prop_assert!(hidden.len() >= 16 + 7 * suite.cases.len());
        for text in hidden {
            let marker = text.split(' ').find(|w| w.starts_with("mk")).unwrap();
            for bytes in &outputs {
                prop_assert!(
                    !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
                    "marker {marker} of {text:?} leaked"
                );
            }
        }
        for (case, bundle) in suite.cases.iter().zip(&set.bundles) {
            for tool in TOOLS {
                prop_assert_eq!(
                    bundle.json.contains(&contract_marker(tool)),
                    case.tools.contains(&tool),
                    "{} in {}", tool, bundle.case_id
                );
            }
        }
    }

    #[test]
    fn copying_hidden_text_into_a_user_message_stops_the_bundles(
        suite in gen_suite(),
        pick in any::<prop::sample::Index>(),
        target in any::<prop::sample::Index>(),
    ) {
        let mut suite = suite;
        let hidden: Vec<(String, Option<usize>)> = suite
            .hidden_with_owners()
            .into_iter()
            .map(|(t, owner)| (t.to_string(), owner))
            .collect();
        let (copied, owner) = pick.get(&hidden).clone();
        // A case's hidden text leaks into that case; the suite's into any.
        let case = owner.unwrap_or_else(|| target.index(suite.cases.len()));
        suite.cases[case].user = format!("apple {copied} river");
        let source = suite.render();
        let compilation = compile(&source);
        let Some(Err(diagnostics)) = compilation.bundles() else {
            panic!("the copy of {copied:?} was not caught");
        };
        let quoted = format!("\"{copied}\"");
        let copy = format!("\"apple {copied} river\"");
        let found = diagnostics.iter().any(|d| {
            d.code == codes::HIDDEN_TEXT_LEAK
                && d.labels.iter().any(|l| l.primary && compilation.db.slice(l.span).contains(&quoted))
                && d.labels.iter().any(|l| !l.primary && compilation.db.slice(l.span) == copy)
        });
        prop_assert!(found, "no leak of {:?} reported: {:#?}", copied, diagnostics);
        // `casec check` finds the same leak, at the copy.
        let checked = Compilation::new(Sources::in_memory([("suite.case", source.as_str())]));
        let leak = checked.diagnostics.iter().find(|d| d.code == codes::LEAK);
        prop_assert!(leak.is_some(), "check missed the copy of {:?}: {:#?}", copied, checked.diagnostics);
    }

    /// What one case's model sees may repeat another case's hidden text: that model is
    /// not tested on it.
    #[test]
    fn another_case_s_hidden_text_is_not_a_leak(
        suite in gen_suite(),
        pick in any::<prop::sample::Index>(),
    ) {
        let mut suite = suite;
        prop_assume!(suite.cases.len() >= 2);
        let hidden: Vec<(String, usize)> = suite
            .hidden_with_owners()
            .into_iter()
            .filter_map(|(t, owner)| Some((t.to_string(), owner?)))
            .collect();
        let (copied, owner) = pick.get(&hidden).clone();
        let other = (owner + 1) % suite.cases.len();
        suite.cases[other].user = format!("apple {copied} river");
        let source = suite.render();
        let compilation = compile(&source);
        let bundles = compilation.bundles();
        prop_assert!(matches!(bundles, Some(Ok(_))), "{:#?}", bundles);
    }
}
