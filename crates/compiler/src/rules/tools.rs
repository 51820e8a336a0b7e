//! Tools a model cannot use as they are declared: a tool with a prose contract only,
//! and an argument of an offered tool without a `doc`.
//!
//! Every tool of a suite is offered to a model by some harness, so each must say how a
//! call runs: a `service`, declared effects or an `adapter` (docs/tools.md). A tool
//! without one is an error at its declaration, with the cases that offer it, so the
//! suite is refused before any run rather than answering every call with an error.
//!
//! A model knows what to pass for an argument from its description, which some
//! harnesses require (Inspect AI refuses a tool with an undescribed parameter). Every
//! argument gets one, derived from its type when it has no `doc`, but a type says
//! little ("free text"): an argument without a `doc` of a tool some case offers is a
//! warning at the argument's declaration. A tool no case offers is no model's concern
//! yet, and the stdlib's tools are its own tests' concern (authors cannot edit them).
//!
//! Guarantee: one diagnostic per tool without behaviour and one per undocumented
//! argument (object members included); linear in tools, arguments and cases.

use std::collections::HashMap;

use crate::diag::{codes, Diagnostic};
use crate::lower::tools::type_description;
use crate::model::tool::{ArgType, Argument, Binding, Tool};
use crate::model::Suite;
use crate::source::{Origin, SourceDb};

pub fn check(suite: &Suite, db: &SourceDb, out: &mut Vec<Diagnostic>) {
    let offering = offering(suite);
    let offered = |tool: &Tool| {
        let cases = offering
            .get(tool.name.as_str())
            .map_or(&[][..], Vec::as_slice);
        match cases {
            [] => "no case offers it yet".to_string(),
            [one] => format!("case {one} offers it"),
            [first, rest @ ..] => format!("{} cases offer it ({first}, …)", rest.len() + 1),
        }
    };
    for tool in suite
        .tools
        .iter()
        .filter(|t| matches!(t.binding, Binding::None))
    {
        let name = tool.name.as_str();
        out.push(
            Diagnostic::new(
                codes::TOOL_WITHOUT_BEHAVIOR,
                format!("tool `{name}` has a contract but no behaviour: the sandbox cannot run it"),
            )
            .primary(tool.name.span, format!("prose only; {}", offered(tool)))
            .help(format!(
                "say how a call of `{name}` runs: bind it to a service (`service records.search {{ … }}`), declare its effects (`read`, `create`, `update`, …), or give an `adapter` program (docs/tools.md)"
            )),
        );
    }
    for tool in suite.tools.iter().filter(|t| {
        offering.contains_key(t.name.as_str()) && db.file(t.span.file).origin != Origin::Stdlib
    }) {
        undocumented(tool, &tool.arguments, "", &offered(tool), out);
    }
}

/// The ids of the cases offering each tool, by tool name, in case order.
fn offering(suite: &Suite) -> HashMap<&str, Vec<&str>> {
    let mut offering: HashMap<&str, Vec<&str>> = HashMap::new();
    for case in &suite.cases {
        for tool in &case.tools {
            offering
                .entry(tool.as_str())
                .or_default()
                .push(case.id.as_str());
        }
    }
    offering
}

/// An `undocumented_argument` warning for each argument among `arguments` (members of
/// the object argument `path` when it is not empty) without a `doc`.
fn undocumented(
    tool: &Tool,
    arguments: &[Argument],
    path: &str,
    offered: &str,
    out: &mut Vec<Diagnostic>,
) {
    for argument in arguments {
        let name = argument.name.as_str();
        let full = format!("{path}{name}");
        if argument.doc.is_none() {
            let optional = if argument.required { "" } else { " optional" };
            let members = match argument.ty {
                ArgType::Object(_) => " argument …",
                _ => "",
            };
            out.push(
                Diagnostic::new(
                    codes::UNDOCUMENTED_ARGUMENT,
                    format!(
                        "argument `{full}` of tool `{}` has no `doc`",
                        tool.name.as_str()
                    ),
                )
                .primary(
                    argument.name.span,
                    format!("a model is told only its type; {offered}"),
                )
                .help(format!(
                    "say what a model should pass: `argument {name} {}{optional} {{ doc \"…\"{members} }}`; until then its description is derived from its type: \"{}\"",
                    argument.ty.describe(),
                    type_description(&argument.ty)
                )),
            );
        }
        if let ArgType::Object(members) = &argument.ty {
            undocumented(tool, members, &format!("{full}."), offered, out);
        }
    }
}
