//! `allow CODE` in a case: the visible way to accept a warning for that case.
//!
//! Only warnings about text the case itself holds can be allowed (declared `allowable`
//! in [`codes`]);
//! errors must be fixed. An allow is never silent: one naming an unknown code, an
//! error, or a warning the case does not have is reported, so stale allows do not pile
//! up after the text they excused has been fixed.
//!
//! Guarantee: the case's own diagnostics pass through, minus exactly the warnings its
//! allows name; every allow that allows nothing is reported once, unless an error in
//! the case may have kept its warning from being looked for.

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::{Case, Name};

/// Moves the case's diagnostics `found` to `out`, except the warnings it allows, and
/// reports allows that allow nothing. When an earlier error in the case `stopped`
/// checks (a world that does not resolve is never checked), a warning may be missing
/// only because of it: an allow is then not reported as allowing nothing.
pub fn apply(case: &Case, mut found: Vec<Diagnostic>, stopped: bool, out: &mut Vec<Diagnostic>) {
    let mut allowed: Vec<&Name> = Vec::new();
    for allow in &case.allows {
        let code = allow.as_str();
        if let Some(problem) = not_allowable(allow) {
            out.push(problem);
        } else if let Some(first) = allowed.iter().find(|a| a.as_str() == code) {
            out.push(
                Diagnostic::new(
                    codes::UNUSED_ALLOW,
                    format!("`{code}` is allowed twice in case {}", case.id.as_str()),
                )
                .primary(allow.span, "allowed again here")
                .secondary(first.span, "first allowed here")
                .help("remove one of them"),
            );
        } else if !stopped && !found.iter().any(|d| d.code.name == code && !d.is_error()) {
            out.push(
                Diagnostic::new(
                    codes::UNUSED_ALLOW,
                    format!(
                        "`allow {code}` allows nothing: case {} has no `{code}` warning",
                        case.id.as_str()
                    ),
                )
                .primary(allow.span, "nothing to allow")
                .help("remove this `allow`; the text it excused has been fixed or moved"),
            );
        } else {
            allowed.push(allow);
        }
    }
    found.retain(|d| d.is_error() || !allowed.iter().any(|a| a.as_str() == d.code.name));
    out.append(&mut found);
}

fn not_allowable(allow: &Name) -> Option<Diagnostic> {
    let code = allow.as_str();
    if codes::declared(code).is_some_and(|c| c.allowable) {
        return None;
    }
    let choices = codes::allowable().collect::<Vec<_>>().join(", ");
    let known = codes::declared(code).is_some();
    let d = if known {
        Diagnostic::new(codes::UNKNOWN_ALLOW, format!("`{code}` cannot be allowed"))
            .primary(allow.span, "not an allowable warning")
            .help(format!(
                "fix what `{code}` reports instead; a case can allow only {choices}"
            ))
    } else {
        let d = Diagnostic::new(
            codes::UNKNOWN_ALLOW,
            format!("`{code}` is not a diagnostic code"),
        )
        .primary(allow.span, "unknown code");
        match suggest(code, codes::allowable()) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(format!("a case can allow {choices}")),
        }
    };
    Some(d)
}
