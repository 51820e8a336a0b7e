//! A `quotable` field: shown to the model on purpose, for hidden texts to quote (a
//! policy a check repeats). `casec check`'s leak rule and the blinding proof of
//! `casec bundle` both let hidden texts repeat its words, and both still read every
//! other model-facing text.

use casec::diag::codes;
use casec::{Compilation, Config, Depth, Sources};

/// A shape with a suite-level policy the model reads, and a suite whose check quotes
/// it. `flags` are the policy field's flags after `model`; `user` is the case's message.
fn suite(flags: &str, user: &str) -> String {
    format!(
        r#"shape desk {{
  suite_field policy text required model {flags}
  field user user_message required model
  field check checks evaluator
  grading {{
    dimension goal G exactly 1
    derive goal check
    outcome passed pass
    outcome failed fail
    outcome undecided open
  }}
  layout master {{
    policy policy
    cases cases {{
      id id
      user user
      checks checks
    }}
  }}
  layout bundle {{
    policy suite.policy
    id id
    user user
  }}
  layout result {{
    case id
    outcome outcome
    checks check_results
    triggered triggered
    pending pending_review
  }}
}}
suite "Airline desk" {{
  shape desk
  policy "A reservation may be cancelled free of charge within 24 hours of booking."
}}
case D-1 "Late cancellation" {{
  user "{user}"
  check "Refuses because a reservation may be cancelled free of charge within 24 hours of booking only."
}}
"#
    )
}

const PLAIN_USER: &str = "Cancel my trip from last week, please.";

fn compile(source: &str, depth: Depth) -> Compilation {
    Compilation::new(Config {
        sources: Sources::in_memory([("suite.case", source)]),
        depth,
        recheck: None,
    })
}

fn codes_of(compilation: &Compilation) -> Vec<&'static codes::Code> {
    compilation.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn a_check_quoting_a_policy_is_a_leak_unless_the_policy_is_quotable() {
    let plain = compile(&suite("", PLAIN_USER), Depth::Check);
    assert_eq!(codes_of(&plain), [codes::LEAK], "{:#?}", plain.diagnostics);
    let quotable = compile(&suite("quotable", PLAIN_USER), Depth::Check);
    assert!(
        quotable.diagnostics.is_empty(),
        "{:#?}",
        quotable.diagnostics
    );
    let bundles = quotable.bundles().expect("the suite resolves");
    let set = bundles.expect("the bundles are written");
    let text = format!("{set:?}");
    assert!(
        text.contains("within 24 hours of booking"),
        "the model still reads the policy"
    );
}

#[test]
fn the_blinding_proof_lets_hidden_texts_quote_a_quotable_policy_alone() {
    // Resolved only: the bundles' proof runs on its own, without check's leak rule.
    let plain = compile(&suite("", PLAIN_USER), Depth::Resolve);
    let Some(Err(stopped)) = plain.bundles() else {
        panic!("a check quoting an ordinary model text stops the bundles")
    };
    assert!(stopped.iter().all(|d| d.code == codes::HIDDEN_TEXT_LEAK));
    let quotable = compile(&suite("quotable", PLAIN_USER), Depth::Resolve);
    assert!(matches!(quotable.bundles(), Some(Ok(_))));
    // The same words in the user's message are still a leak, in both.
    let copied = "Can I cancel? It was cancelled free of charge within 24 hours of booking only.";
    let checked = compile(&suite("quotable", copied), Depth::Check);
    assert_eq!(
        codes_of(&checked),
        [codes::LEAK],
        "{:#?}",
        checked.diagnostics
    );
    let resolved = compile(&suite("quotable", copied), Depth::Resolve);
    let Some(Err(stopped)) = resolved.bundles() else {
        panic!("hidden words copied into the user's message stop the bundles")
    };
    assert!(!stopped.is_empty());
    let labels: Vec<String> = stopped[0]
        .labels
        .iter()
        .map(|l| l.message.clone())
        .collect();
    assert!(labels.iter().any(|l| l.contains("user")), "{labels:?}");
}

#[test]
fn only_a_model_field_is_quotable() {
    let source = suite("", PLAIN_USER).replace(
        "suite_field policy text required model ",
        "suite_field policy text required model\n  suite_field notes text public quotable",
    );
    let compilation = compile(&source, Depth::Check);
    let error = compilation
        .diagnostics
        .iter()
        .find(|d| d.code == codes::SHAPE_DEFINITION)
        .expect("a shape_definition error");
    assert!(error
        .message
        .contains("`notes` is `quotable` but not shown to the model"));
}
