//! The leak rule's cases: what counts as a leak, what a disguise does not hide, and
//! what is shared on purpose.

use super::*;

/// The leaks of `hidden` texts into `visible` texts, as (hidden index, leaked words as
/// written in the hidden text, pieces as written in the visible texts).
fn found(
    hidden: &[&'static str],
    visible: &[&'static str],
    allowed: &[&str],
) -> Vec<(usize, String, Vec<String>)> {
    let hidden_tokens: Vec<Tokens> = hidden.iter().map(|t| Tokens::of(t)).collect();
    let visible_tokens: Vec<Tokens> = visible.iter().map(|t| Tokens::of(t)).collect();
    let h = items(hidden, &hidden_tokens);
    let v = items(visible, &visible_tokens);
    leaks(&h, &v, allowed)
        .into_iter()
        .map(|leak| {
            let quote = h[leak.hidden].text[byte_range(h[leak.hidden], leak.hidden_words.clone())]
                .to_string();
            let pieces = leak
                .pieces
                .iter()
                .map(|p| v[p.visible].text[byte_range(v[p.visible], p.words.clone())].to_string())
                .collect();
            (leak.hidden, quote, pieces)
        })
        .collect()
}

fn items<'t>(texts: &[&'t str], tokens: &'t [Tokens]) -> Vec<Item<'t>> {
    texts
        .iter()
        .zip(tokens)
        .map(|(text, tokens)| Item { text, tokens })
        .collect()
}

const FACTS: &str = "M2 schedule is 20:00 daily. No reminder exists yet. Reminder creation returns DELIVERY_PERMISSION_DENIED and creates nothing.";

#[test]
fn a_copied_run_is_one_leak_covering_the_whole_run() {
    let leaks = found(
        &[FACTS],
        &["Tell me: reminder creation returns delivery permission denied and creates nothing?"],
        &[],
    );
    assert_eq!(
        leaks,
        [(
            0,
            "Reminder creation returns DELIVERY_PERMISSION_DENIED and creates nothing".into(),
            vec!["reminder creation returns delivery permission denied and creates nothing".into()]
        )]
    );
}

#[test]
fn shorter_shared_phrases_are_not_leaks() {
    assert!(found(
        &[FACTS],
        &["My evening schedule is busy; creation returns nothing."],
        &[]
    )
    .is_empty());
    assert!(found(
        &["Set one reminder only"],
        &["set one reminder please"],
        &[]
    )
    .is_empty());
}

#[test]
fn short_hidden_items_are_compared_whole() {
    let leaks = found(
        &[
            "Claim reminder success",
            "DELIVERY_PERMISSION_DENIED",
            "not_found",
        ],
        &["Please claim reminder success and say delivery permission denied; not found."],
        &[],
    );
    let quotes: Vec<&str> = leaks.iter().map(|(_, q, _)| q.as_str()).collect();
    assert_eq!(
        quotes,
        ["Claim reminder success", "DELIVERY_PERMISSION_DENIED"]
    );
}

#[test]
fn a_short_sentence_of_a_long_text_is_compared_whole() {
    let leaks = found(
        &[FACTS],
        &["Is it true that no reminder exists yet for me?"],
        &[],
    );
    assert_eq!(leaks[0].1, "No reminder exists yet");
}

#[test]
fn disguises_do_not_hide_a_copy() {
    for disguised in [
        "Cl\u{200B}aim re\u{00AD}minder suc\u{200D}cess",
        "Ｃｌａｉｍ ｒｅｍｉｎｄｅｒ ｓｕｃｃｅｓｓ",
        "Сlаіm rеmіndеr succеss",
        "CLAIM_REMINDER_SUCCESS",
        "c1aim reminder succe55",
    ] {
        let leaks = found(&["Claim reminder success"], &[disguised], &[]);
        assert_eq!(leaks.len(), 1, "{disguised:?}");
    }
}

#[test]
fn a_run_split_across_texts_is_caught_with_each_piece() {
    let hidden = "Reminder creation returns DELIVERY_PERMISSION_DENIED and creates nothing";
    let leaks = found(
        &[hidden],
        &[
            "Reminder creation returns",
            "Go on.",
            "DELIVERY PERMISSION DENIED",
            "and creates nothing",
        ],
        &[],
    );
    assert_eq!(leaks.len(), 1);
    assert_eq!(
        leaks[0].2,
        [
            "Reminder creation returns",
            "DELIVERY PERMISSION DENIED",
            "and creates nothing"
        ]
    );
    let apart = found(
        &[hidden],
        &[
            "Reminder creation returns",
            "a reply of the assistant between",
            "DELIVERY PERMISSION DENIED and",
        ],
        &[],
    );
    assert!(
        apart.is_empty(),
        "pieces under five words, apart: {apart:?}"
    );
}

#[test]
fn allowed_strings_are_shared_on_purpose() {
    let hidden = "Fetch https://example.com/reports/2026/q3.csv and save it to out/report.md";
    let visible =
        "Please fetch https://example.com/reports/2026/q3.csv and save it to out/report.md for me";
    assert_eq!(found(&[hidden], &[visible], &[]).len(), 1);
    let allowed = ["https://example.com/reports/2026/q3.csv", "out/report.md"];
    assert!(
        found(&[hidden], &[visible], &allowed).is_empty(),
        "only `and save it to` is shared besides"
    );
}

#[test]
fn nothing_to_match_is_no_leak() {
    assert!(found(&[], &["anything at all here"], &[]).is_empty());
    assert!(found(&["two words"], &["two words"], &[]).is_empty());
    assert!(found(&[FACTS], &[], &[]).is_empty());
}

#[test]
fn the_pair_key_is_the_key_of_two_words() {
    for (a, b) in [
        (0, 0),
        (1, 2),
        (u64::MAX, 7),
        (0x9E37_79B9, 0xDEAD_BEEF_0000_0001),
    ] {
        assert_eq!(pair_key(a, b), key([a, b].into_iter()));
    }
}

#[test]
fn copied_chinese_text_is_a_leak_and_a_shared_phrase_is_not() {
    let hidden = "回复说明了退款订单没有计入收入，并且列出了每个地区的合计。";
    let leaks = found(
        &[hidden],
        &["请把收入写到 /outputs/a.csv。退款订单没有计入收入，并且列出合计。"],
        &[],
    );
    assert_eq!(
        leaks,
        [(
            0,
            "退款订单没有计入收入，并且列出".into(),
            vec!["退款订单没有计入收入，并且列出".into()]
        )]
    );
    // Four characters in common (three pairs) are not a run.
    assert!(found(&[hidden], &["请列出每个地区。"], &[]).is_empty());
    // A short hidden text is compared whole: an error message of four characters.
    assert_eq!(
        found(&["余额不足"], &["如果余额不足，就停下。"], &[]).len(),
        1
    );
}
