//! A deterministic generator of master JSON corpora, shared by casec's unit tests, its
//! round-trip tests and the scale benchmark: a crate of its own (a dev-dependency of
//! casec), so that no test of `src/` includes a file of `tests/`.
//!
//! It starts from the Tujora seed master and builds a master of any number of cases in
//! which every field a case can override deviates from the shared defaults in some of
//! the cases: clock, timezone, background, preferences, permissions, tools,
//! record access, harness defaults, pass rule, C1 text and evidence, plus irregular
//! check lists, conversations, overrides, follow-ups and strings that are awkward to
//! write as `.case` source. Suite-level parts vary too (coverage order, categories
//! without cases, case order that is not the id order, revision notes, data blocks).
//!
//! The output stays inside the schema: categories are in coverage with matching counts,
//! ids and names are valid `.case` names, tools are declared.

use serde_json::{json, Map, Value};

/// The seed master (test data: casec itself never reads it).
pub const SEED_MASTER: &str = include_str!("../../../tests/data/tujora-benchmark-1.0.1.json");

/// A small, fast, seedable PRNG (SplitMix64), so corpora are the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn percent(&mut self, p: u64) -> bool {
        self.next_u64() % 100 < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

/// Strings that are hard to write as source: escapes, quotes, layout-sensitive spaces,
/// text-block delimiters, Unicode, control characters, very long words.
pub const AWKWARD: &[&str] = &[
    "",
    " leading space",
    "trailing space ",
    "double  space inside",
    "  ",
    "a \"quoted\" word",
    "\"",
    "ends with a quote\"",
    "back\\slash, \\n and \\u{41} written literally",
    "\\",
    "line one\nline two",
    "paragraph one\n\nparagraph two",
    "\nleading newline",
    "trailing newline\n",
    "tab\tseparated\tvalues",
    "triple \"\"\" quotes inside",
    "\"\"\"",
    "caf\u{e9}, na\u{ef}ve, \u{65e5}\u{672c}\u{8a9e}, emoji \u{1F600}, combining e\u{301}, rtl \u{5e9}\u{5dc}\u{5d5}\u{5dd}",
    "controls \u{1}\u{1f}\u{7f} and a windows\r\nline end",
    "no\u{a0}break, line\u{2028}separator, zero\u{200b}width, bom\u{feff}",
    "# not a comment; {not a block} [not, a, list] = 1",
    "Pneumonoultramicroscopicsilicovolcanoconiosis-and-then-some-more-letters-to-make-one-very-long-word-that-no-line-of-one-hundred-columns-can-hold-whole",
];

const CLOCKS: &[&str] = &[
    "2026-11-09T23:50:00-05:00",
    "2026-03-08T01:59:59-05:00",
    "2027-01-01T00:00:00+00:00",
    "2026-06-30T12:00:00+05:30",
];

const TIMEZONES: &[&str] = &[
    "Europe/Berlin",
    "Asia/Kolkata",
    "UTC",
    "America/Los_Angeles",
];

const EXTRA_TAGS: &[&str] = &["generated", "edge.case", "_internal", "mixed-Case9"];

const ROLES: &[&str] = &[
    "assistant",
    "system",
    "tool result",
    "User",
    "",
    "caf\u{e9}",
];

const CUSTOM_DIMENSIONS: &[&str] = &["safety", "tone.v2", "_privacy", "recall-accuracy"];

/// The default case fields, as the seed master has them in every case.
struct SharedDefaults {
    clock: String,
    timezone: String,
    permissions: String,
    record_access: String,
    tool_behavior: String,
    unscripted_reply: String,
    ground_truth_policy: String,
    pass_rule: String,
    communication: String,
    /// `(dimension, evidence)` of the four standard dimensions.
    evidence: Vec<(String, String)>,
}

/// What the cases of one category share: the seed's profile texts, or new ones.
struct CategoryDefaults {
    name: String,
    background: String,
    preferences: String,
    timezone: Option<String>,
    tools: Option<Vec<String>>,
    permissions: Option<String>,
}

/// A master of `cases` cases, as a JSON value in the schema's key order.
pub fn generate(cases: usize, seed: u64) -> Value {
    let seed_master: Value = serde_json::from_str(SEED_MASTER).expect("the seed master parses");
    let seed_cases = seed_master["cases"].as_array().expect("seed cases").clone();
    let mut rng = Rng::new(seed);
    let defaults = shared_defaults(&seed_cases[0]);
    let categories = categories(&seed_cases);
    let tools = tool_names(&seed_master);

    let mut generated: Vec<Value> = (0..cases)
        .map(|i| {
            let base = rng.pick(&seed_cases).clone();
            let category = &categories[rng.below(categories.len() - 1)];
            case(&mut rng, i, base, category, &defaults, &tools)
        })
        .collect();
    scramble_order(&mut rng, &mut generated);
    suite(&mut rng, seed_master, generated, &categories)
}

/// The master text of [`generate`] in the master style.
pub fn generate_master(cases: usize, seed: u64) -> String {
    casec::lower::json_style::to_master_string(&generate(cases, seed))
}

fn text_at(value: &Value, path: &[&str]) -> String {
    path.iter()
        .fold(value, |v, key| &v[*key])
        .as_str()
        .expect("a seed text")
        .to_string()
}

fn shared_defaults(seed_case: &Value) -> SharedDefaults {
    let checks = seed_case["evaluator_only"]["required_checks"]
        .as_array()
        .expect("seed checks");
    let mut evidence: Vec<(String, String)> = Vec::new();
    for check in checks {
        let dimension = check["dimension"].as_str().expect("dimension").to_string();
        if !evidence.iter().any(|(d, _)| *d == dimension) {
            evidence.push((
                dimension,
                check["evidence"].as_str().expect("evidence").into(),
            ));
        }
    }
    let communication = checks
        .iter()
        .find(|c| c["id"] == "C1")
        .and_then(|c| c["requirement"].as_str())
        .expect("a C1 check")
        .to_string();
    SharedDefaults {
        clock: text_at(seed_case, &["model_input", "current_time"]),
        timezone: text_at(seed_case, &["model_input", "timezone"]),
        permissions: text_at(seed_case, &["model_input", "permissions"]),
        record_access: text_at(seed_case, &["model_input", "record_access"]),
        tool_behavior: text_at(seed_case, &["harness_only", "default_tool_behavior"]),
        unscripted_reply: text_at(seed_case, &["harness_only", "unscripted_user_reply"]),
        ground_truth_policy: text_at(seed_case, &["harness_only", "hidden_ground_truth_policy"]),
        pass_rule: text_at(seed_case, &["evaluator_only", "pass_rule"]),
        communication,
        evidence,
    }
}

/// The seed's categories, three new ones (one with its own harness defaults) and, last,
/// one that no case uses.
fn categories(seed_cases: &[Value]) -> Vec<CategoryDefaults> {
    let mut out: Vec<CategoryDefaults> = Vec::new();
    for case in seed_cases {
        let name = case["category"].as_str().expect("category");
        if out.iter().any(|c| c.name == name) {
            continue;
        }
        out.push(CategoryDefaults {
            name: name.to_string(),
            background: text_at(case, &["model_input", "person_background_and_past_history"]),
            preferences: text_at(case, &["model_input", "common_patterns_and_preferences"]),
            timezone: None,
            tools: None,
            permissions: None,
        });
    }
    let new = |name: &str, background: &str, preferences: &str| CategoryDefaults {
        name: name.to_string(),
        background: background.to_string(),
        preferences: preferences.to_string(),
        timezone: None,
        tools: None,
        permissions: None,
    };
    out.push(new(
        "errands",
        "The person runs errands alone and sometimes forgets what was already bought or paid.",
        "Prefers one short list at a time, read back in the order of the route.",
    ));
    out.push(CategoryDefaults {
        timezone: Some("Europe/Lisbon".into()),
        tools: Some(vec!["read_records".into(), "get_clock".into()]),
        permissions: Some(
            "May read this case's sandbox records only. May not write, book or track anything."
                .into(),
        ),
        ..new(
            "travel.abroad",
            "The person is travelling and mixes up the local time with the time at home.",
            "Wants times given in both zones, \"local\" first.",
        )
    });
    out.push(new("_misc", "", "  "));
    out.push(new(
        "unused_category",
        "No case uses this category.",
        "None.",
    ));
    out
}

fn tool_names(seed_master: &Value) -> Vec<String> {
    let mut names: Vec<String> = seed_master["tool_contracts"]
        .as_object()
        .expect("tool contracts")
        .keys()
        .cloned()
        .collect();
    names.push("send_message".into());
    names
}

/// `usual` most of the time; otherwise one of a few shared alternatives or an awkward
/// string.
fn deviate(rng: &mut Rng, usual: &str, field: &str, percent: u64) -> String {
    if !rng.percent(percent) {
        return usual.to_string();
    }
    match rng.below(4) {
        0 => rng.pick(AWKWARD).to_string(),
        n => format!("{field} variant {n}: {usual}"),
    }
}

/// A seed text, sometimes made awkward.
fn awkward(rng: &mut Rng, text: &str) -> String {
    if !rng.percent(6) {
        return text.to_string();
    }
    let odd = rng.pick(AWKWARD);
    match rng.below(3) {
        0 => odd.to_string(),
        1 => format!("{odd}{text}"),
        _ => format!("{text}{odd}"),
    }
}

fn case_id(rng: &mut Rng, index: usize) -> String {
    match rng.below(5) {
        0 => format!("gen.{index}"),
        1 => format!("_G-{index:04}"),
        2 => format!("Case{index}b"),
        _ => format!("GEN-{index:05}"),
    }
}

fn case(
    rng: &mut Rng,
    index: usize,
    mut case: Value,
    category: &CategoryDefaults,
    defaults: &SharedDefaults,
    tools: &[String],
) -> Value {
    let user = awkward(
        rng,
        case["model_input"]["current_situation"]
            .as_str()
            .unwrap_or(""),
    );
    case["case_id"] = json!(case_id(rng, index));
    case["title"] = json!(awkward(rng, case["title"].as_str().unwrap_or("")));
    case["category"] = json!(category.name);
    case["tags"] = json!(tags(rng, &case["tags"]));
    model_input(
        rng,
        &mut case["model_input"],
        &user,
        category,
        defaults,
        tools,
    );
    harness_only(rng, &mut case["harness_only"], defaults, tools);
    evaluator_only(rng, &mut case["evaluator_only"], defaults);
    case
}

fn tags(rng: &mut Rng, seed: &Value) -> Vec<String> {
    let mut tags: Vec<String> = seed
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if rng.percent(8) {
        tags.clear();
    }
    if rng.percent(10) {
        tags.push(rng.pick(EXTRA_TAGS).to_string());
        rng.shuffle(&mut tags);
    }
    tags
}

fn model_input(
    rng: &mut Rng,
    mi: &mut Value,
    user: &str,
    category: &CategoryDefaults,
    defaults: &SharedDefaults,
    tools: &[String],
) {
    let timezone = category.timezone.as_deref().unwrap_or(&defaults.timezone);
    let permissions = category
        .permissions
        .as_deref()
        .unwrap_or(&defaults.permissions);
    mi["current_time"] = json!(if rng.percent(6) {
        rng.pick(CLOCKS).to_string()
    } else {
        defaults.clock.clone()
    });
    mi["timezone"] = json!(if rng.percent(6) {
        rng.pick(TIMEZONES).to_string()
    } else {
        timezone.to_string()
    });
    mi["person_background_and_past_history"] =
        json!(deviate(rng, &category.background, "background", 6));
    mi["common_patterns_and_preferences"] =
        json!(deviate(rng, &category.preferences, "preferences", 6));
    mi["current_situation"] = json!(user);
    mi["conversation"] = conversation(rng, user);
    mi["permissions"] = json!(deviate(rng, permissions, "permissions", 6));
    if let Some(own) = &category.tools {
        mi["available_tools"] = json!(own);
    }
    if rng.percent(10) {
        mi["available_tools"] = json!(tool_subset(rng, tools));
    }
    mi["record_access"] = json!(deviate(rng, &defaults.record_access, "record_access", 6));
}

/// Mostly the single user turn the language derives; sometimes several turns, none,
/// or turns with unusual roles.
fn conversation(rng: &mut Rng, user: &str) -> Value {
    let turn = |role: &str, content: &str| json!({ "role": role, "content": content });
    match rng.below(100) {
        0..=79 => json!([turn("user", user)]),
        80..=87 => json!([
            turn("user", "Can you help me with something?"),
            turn("assistant", "Of course. What do you need?"),
            turn("user", user),
        ]),
        88..=91 => json!([]),
        92..=95 => json!([turn("user", &format!("{user} (said again)"))]),
        _ => {
            let role = *rng.pick(ROLES);
            let odd = *rng.pick(AWKWARD);
            json!([turn(role, odd), turn("user", user)])
        }
    }
}

/// A subset of the declared tools in random order (sometimes empty).
fn tool_subset(rng: &mut Rng, tools: &[String]) -> Vec<String> {
    let mut chosen: Vec<String> = tools.iter().filter(|_| rng.percent(50)).cloned().collect();
    rng.shuffle(&mut chosen);
    chosen
}

fn harness_only(rng: &mut Rng, h: &mut Value, defaults: &SharedDefaults, tools: &[String]) {
    h["fixture_facts"] = json!(awkward(rng, h["fixture_facts"].as_str().unwrap_or("")));
    if rng.percent(15) {
        h["tool_behavior_override"] = tool_override(rng, tools);
    }
    h["default_tool_behavior"] = json!(deviate(rng, &defaults.tool_behavior, "tool_behavior", 6));
    if rng.percent(12) {
        h["scripted_user_followup"] = json!({
            "when_asked": awkward(rng, "Which one do you mean?"),
            "reply": awkward(rng, "The one from Tuesday, at the pharmacy."),
        });
    } else if rng.percent(10) {
        h["scripted_user_followup"] = Value::Null;
    }
    h["unscripted_user_reply"] = json!(deviate(
        rng,
        &defaults.unscripted_reply,
        "unscripted_reply",
        6
    ));
    h["hidden_ground_truth_policy"] = json!(deviate(
        rng,
        &defaults.ground_truth_policy,
        "ground_truth_policy",
        6
    ));
}

/// An override with each combination of the optional `side_effect` and
/// `subsequent_verification`.
fn tool_override(rng: &mut Rng, tools: &[String]) -> Value {
    let mut o = Map::new();
    o.insert("tool".into(), json!(rng.pick(tools)));
    o.insert("match".into(), json!(awkward(rng, "create")));
    o.insert(
        "result".into(),
        json!(awkward(rng, "TIMEOUT; request_id=Q1")),
    );
    let shape = rng.below(4);
    if shape & 1 == 1 {
        o.insert(
            "side_effect".into(),
            json!(awkward(rng, "record R7 created")),
        );
    }
    if shape & 2 == 2 {
        o.insert(
            "subsequent_verification".into(),
            json!(awkward(rng, "lookup returns R7")),
        );
    }
    Value::Object(o)
}

fn evaluator_only(rng: &mut Rng, e: &mut Value, defaults: &SharedDefaults) {
    let need = awkward(rng, e["expected_need"].as_str().unwrap_or(""));
    let final_state = awkward(rng, e["expected_final_state"].as_str().unwrap_or(""));
    let actions: Vec<String> = e["required_checks"]
        .as_array()
        .map(|checks| {
            checks
                .iter()
                .filter(|c| c["dimension"] == "execution_and_evidence")
                .filter_map(|c| c["requirement"].as_str())
                .map(|r| awkward(rng, r))
                .collect()
        })
        .unwrap_or_default();
    e["expected_need"] = json!(need);
    e["required_checks"] = json!(checks(rng, &need, &actions, &final_state, defaults));
    if rng.percent(6) {
        e["critical_failures"] = json!([]);
    } else if rng.percent(6) {
        e["critical_failures"] = json!([rng.pick(AWKWARD), "Claim success."]);
    }
    e["pass_rule"] = json!(deviate(rng, &defaults.pass_rule, "pass_rule", 6));
    e["expected_final_state"] = json!(final_state);
}

fn check(id: &str, dimension: &str, requirement: &str, evidence: &str) -> Value {
    json!({ "id": id, "dimension": dimension, "requirement": requirement, "evidence": evidence })
}

/// The check list: mostly the R1, A1…An, S1, C1 pattern (with deviating C1 text or
/// evidence in some cases), otherwise a list that breaks the pattern.
fn checks(
    rng: &mut Rng,
    need: &str,
    actions: &[String],
    final_state: &str,
    defaults: &SharedDefaults,
) -> Vec<Value> {
    // Evidence per dimension, uniform over the case; sometimes the case deviates.
    let mut evidence: Vec<(String, String)> = defaults.evidence.clone();
    for (dimension, text) in evidence.iter_mut() {
        *text = deviate(rng, text, &format!("evidence {dimension}"), 4);
    }
    let evidence_of = |dimension: &str| {
        evidence
            .iter()
            .find(|(d, _)| d == dimension)
            .map_or_else(|| format!("{dimension} evidence"), |(_, e)| e.clone())
    };
    let communication = deviate(rng, &defaults.communication, "communication", 6);
    let recognition = check("R1", "recognition", need, &evidence_of("recognition"));
    let final_check = check(
        "S1",
        "final_state",
        final_state,
        &evidence_of("final_state"),
    );
    let c1 = check(
        "C1",
        "communication",
        &communication,
        &evidence_of("communication"),
    );
    let mut out = vec![recognition];
    for (i, action) in actions.iter().enumerate() {
        let mut evidence = evidence_of("execution_and_evidence");
        if rng.percent(4) {
            evidence = rng.pick(AWKWARD).to_string();
        }
        let id = format!("A{}", i + 1);
        out.push(check(&id, "execution_and_evidence", action, &evidence));
    }
    out.push(final_check);
    out.push(c1);
    match rng.below(100) {
        0..=69 => {}
        70..=73 => {
            out.remove(0);
        }
        74..=77 => out.insert(
            1,
            check(
                "R2",
                "recognition",
                "Notice the second need too.",
                &evidence_of("recognition"),
            ),
        ),
        78..=81 => {
            let dimension = *rng.pick(CUSTOM_DIMENSIONS);
            let at = rng.below(out.len() + 1);
            out.insert(
                at,
                check("X1", dimension, "A custom check.", &evidence_of(dimension)),
            );
        }
        82..=85 => rng.shuffle(&mut out),
        86..=88 => out[0]["requirement"] = json!("A recognition that is not the need."),
        89..=91 => out[1]["dimension"] = json!("final_state"),
        92..=94 => out.retain(|c| !c["id"].as_str().is_some_and(|id| id.starts_with('A'))),
        95..=96 => {
            let n = out.len();
            out[n - 2]["requirement"] = json!("A final check that is not the final state.");
        }
        _ => {
            for (i, c) in out.iter_mut().enumerate() {
                c["id"] = json!(format!("Q{}", i + 1));
            }
        }
    }
    out
}

/// Moves about a tenth of the cases, so the case order is not the id order.
fn scramble_order(rng: &mut Rng, cases: &mut [Value]) {
    for _ in 0..cases.len() / 10 {
        let (a, b) = (rng.below(cases.len()), rng.below(cases.len()));
        cases.swap(a, b);
    }
}

fn suite(
    rng: &mut Rng,
    mut master: Value,
    cases: Vec<Value>,
    categories: &[CategoryDefaults],
) -> Value {
    let mut names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
    rng.shuffle(&mut names);
    let coverage: Map<String, Value> = names
        .iter()
        .map(|name| {
            let count = cases.iter().filter(|c| c["category"] == *name).count();
            (name.to_string(), json!(count))
        })
        .collect();
    let notes: Vec<Value> = cases
        .iter()
        .take(3)
        .zip([
            "Rewrote the fixture.",
            AWKWARD[17],
            "Fixed the \"final\" state\n(twice).",
        ])
        .map(|(c, change)| json!({ "case_id": c["case_id"], "change": change }))
        .collect();
    master["benchmark_name"] = json!(format!("Generated \u{2014} {} \"cases\"", cases.len()));
    master["version"] = json!("2.0.0-gen");
    master["case_count"] = json!(cases.len());
    master["coverage"] = Value::Object(coverage);
    master["use_instructions"]
        .as_array_mut()
        .expect("use instructions")
        .push(json!(AWKWARD[8]));
    master["tool_contracts"]["send_message"] = json!({
        "arguments": ["recipient", "channel:sms|e-mail", "body"],
        "behavior": "Never sends anything:\tthe sandbox records the draft only.",
    });
    master["design_reference"]["extra"] = json!({
        "numbers": [0, -7, 2.5, 12345678901234u64],
        "flags": [true, false, null],
        "nested": { "empty_object": {}, "empty_list": [], "list_of_objects": [{ "a": 1 }, {}] },
        "key with spaces": AWKWARD[5],
        "caf\u{e9}": AWKWARD[14],
    });
    master["cases"] = Value::Array(cases);
    master["revision_notes"] = Value::Array(notes);
    master
}
