//! Tools the sandbox cannot run: a tool declared with a prose contract only.
//!
//! Every tool of a suite is offered to a model by some harness, so each must say how a
//! call runs: a `service`, declared effects or an `adapter` (docs/tools.md). A tool
//! without one is an error at its declaration, with the cases that offer it, so the
//! suite is refused before any run rather than answering every call with an error.
//!
//! Guarantee: one diagnostic per such tool; linear in tools and cases.

use crate::diag::{codes, Diagnostic};
use crate::model::tool::Binding;
use crate::model::Suite;

pub fn check(suite: &Suite, out: &mut Vec<Diagnostic>) {
    for tool in suite
        .tools
        .iter()
        .filter(|t| matches!(t.binding, Binding::None))
    {
        let name = tool.name.as_str();
        let offering: Vec<&str> = suite
            .cases
            .iter()
            .filter(|c| c.tools.iter().any(|t| t.as_str() == name))
            .map(|c| c.id.as_str())
            .collect();
        let offered = match offering.as_slice() {
            [] => "no case offers it yet".to_string(),
            [one] => format!("case {one} offers it"),
            [first, rest @ ..] => format!("{} cases offer it ({first}, …)", rest.len() + 1),
        };
        out.push(
            Diagnostic::error(
                codes::TOOL_WITHOUT_BEHAVIOR,
                format!("tool `{name}` has a contract but no behaviour: the sandbox cannot run it"),
            )
            .primary(tool.name.span, format!("prose only; {offered}"))
            .help(format!(
                "say how a call of `{name}` runs: bind it to a service (`service records.search {{ … }}`), declare its effects (`read`, `create`, `update`, …), or give an `adapter` program (docs/tools.md)"
            )),
        );
    }
}
