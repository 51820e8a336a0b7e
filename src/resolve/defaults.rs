//! Case defaults and their layering.
//!
//! A value a case does not set itself comes from, in order: the profiles the case
//! applies, its category (and the category's profiles), then the suite (and its
//! profiles). Profiles may apply other profiles; a cycle is reported, not followed.

use std::collections::HashMap;

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::model::{Name, Text};
use crate::source::Span;
use crate::syntax::ast::Statement;

use super::values::{self, Kind};

/// Profile fields holding one text, in the order of [`TextField::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextField {
    Clock,
    Timezone,
    Background,
    Preferences,
    Permissions,
    RecordAccess,
    ToolBehavior,
    UnscriptedReply,
    GroundTruthPolicy,
    PassRule,
    Communication,
}

impl TextField {
    pub const ALL: [TextField; 11] = [
        TextField::Clock,
        TextField::Timezone,
        TextField::Background,
        TextField::Preferences,
        TextField::Permissions,
        TextField::RecordAccess,
        TextField::ToolBehavior,
        TextField::UnscriptedReply,
        TextField::GroundTruthPolicy,
        TextField::PassRule,
        TextField::Communication,
    ];

    pub fn key(self) -> &'static str {
        match self {
            TextField::Clock => "clock",
            TextField::Timezone => "timezone",
            TextField::Background => "background",
            TextField::Preferences => "preferences",
            TextField::Permissions => "permissions",
            TextField::RecordAccess => "record_access",
            TextField::ToolBehavior => "tool_behavior",
            TextField::UnscriptedReply => "unscripted_reply",
            TextField::GroundTruthPolicy => "ground_truth_policy",
            TextField::PassRule => "pass_rule",
            TextField::Communication => "communication",
        }
    }

    fn from_key(key: &str) -> Option<TextField> {
        TextField::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// Values one layer sets; `None` means "inherit".
#[derive(Clone, Debug, Default)]
pub struct Defaults {
    texts: [Option<Text>; 11],
    pub tools: Option<(Vec<Name>, Span)>,
    /// Evidence per dimension name.
    pub evidence: Vec<(String, Text)>,
}

impl Defaults {
    pub fn get(&self, field: TextField) -> Option<&Text> {
        self.texts[field as usize].as_ref()
    }

    pub fn evidence(&self, dimension: &str) -> Option<&Text> {
        self.evidence
            .iter()
            .find(|(d, _)| d == dimension)
            .map(|(_, t)| t)
    }

    /// `top` over `self`: each field of `top` that is set wins.
    pub fn overlay(&self, top: &Defaults) -> Defaults {
        let mut out = self.clone();
        for (slot, value) in out.texts.iter_mut().zip(&top.texts) {
            if value.is_some() {
                slot.clone_from(value);
            }
        }
        if top.tools.is_some() {
            out.tools.clone_from(&top.tools);
        }
        for (dimension, text) in &top.evidence {
            match out.evidence.iter_mut().find(|(d, _)| d == dimension) {
                Some(slot) => slot.1 = text.clone(),
                None => out.evidence.push((dimension.clone(), text.clone())),
            }
        }
        out
    }
}

/// A block's own profile fields and the profiles it applies.
#[derive(Clone, Debug, Default)]
pub struct Layer {
    pub own: Defaults,
    pub applies: Vec<Name>,
}

/// Whether `key` is a profile field (including `profile` itself).
pub fn is_profile_key(key: &str) -> bool {
    key == "tools" || key == "evidence" || key == "profile" || TextField::from_key(key).is_some()
}

/// Reads the profile fields among `statements`, ignoring other keys.
pub fn read_layer(statements: &[Statement], diags: &mut Vec<Diagnostic>) -> Layer {
    let mut layer = Layer::default();
    for statement in statements {
        let key = statement.name();
        if let Some(field) = TextField::from_key(key) {
            if let Some(text) = values::text(statement, diags) {
                layer.own.texts[field as usize] = Some(text);
            }
        } else if key == "tools" {
            if let Some(names) = values::names(statement, diags) {
                layer.own.tools = Some((names, statement.span));
            }
        } else if key == "evidence" {
            read_evidence(statement, &mut layer.own, diags);
        } else if key == "profile" {
            if let Some(name) = values::name(statement, diags) {
                layer.applies.push(name);
            }
        }
    }
    layer
}

fn read_evidence(statement: &Statement, own: &mut Defaults, diags: &mut Vec<Diagnostic>) {
    let Some(v) = values::args(
        statement,
        &[Kind::Ident, Kind::Str],
        "evidence DIMENSION \"text\"",
        diags,
    ) else {
        return;
    };
    let dimension = v[0].as_ident().unwrap_or_default().to_string();
    if let Some((_, first)) = own.evidence.iter().find(|(d, _)| *d == dimension) {
        diags.push(
            Diagnostic::error(
                codes::DUPLICATE_FIELD,
                format!("evidence for `{dimension}` is given twice"),
            )
            .primary(v[0].span, "given again here")
            .secondary(first.span, "first given here"),
        );
        return;
    }
    own.evidence.push((dimension, values::text_of(&v[1])));
}

/// Named profiles of a suite and the stdlib, resolved on demand with memoisation.
#[derive(Default)]
pub struct Profiles {
    layers: HashMap<String, (Name, Layer)>,
    resolved: HashMap<String, Defaults>,
}

impl Profiles {
    /// Declares a profile; a second declaration of a name is reported.
    pub fn declare(&mut self, name: Name, layer: Layer, diags: &mut Vec<Diagnostic>) {
        if let Some((first, _)) = self.layers.get(name.as_str()) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE_DEFINITION,
                    format!("profile `{}` is defined twice", name.as_str()),
                )
                .primary(name.span, "defined again here")
                .secondary(first.span, "first defined here")
                .help("rename one of the profiles or merge them"),
            );
            return;
        }
        self.layers.insert(name.as_str().to_string(), (name, layer));
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.layers.keys().map(String::as_str)
    }

    /// Resolves every declared profile (the profiles it applies, then its own fields),
    /// in name order, reporting cycles. Done once, before any [`Profiles::apply`].
    pub fn resolve_all(&mut self, diags: &mut Vec<Diagnostic>) {
        let mut declared: Vec<Name> = self.layers.values().map(|(name, _)| name.clone()).collect();
        declared.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        for name in &declared {
            self.resolve(name, &mut Vec::new(), diags);
        }
    }

    /// The defaults of `layer` applied over `base`: its profiles in order, then its own
    /// fields. Reads only (every profile was resolved by [`Profiles::resolve_all`]), so
    /// cases can resolve in parallel.
    pub fn apply(&self, base: &Defaults, layer: &Layer, diags: &mut Vec<Diagnostic>) -> Defaults {
        let mut out = base.clone();
        for name in &layer.applies {
            match self.resolved.get(name.as_str()) {
                Some(profile) => out = out.overlay(profile),
                None => diags.push(self.unknown(name)),
            }
        }
        out.overlay(&layer.own)
    }

    fn resolve(
        &mut self,
        name: &Name,
        stack: &mut Vec<String>,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Defaults> {
        if let Some(done) = self.resolved.get(name.as_str()) {
            return Some(done.clone());
        }
        let Some((_, layer)) = self.layers.get(name.as_str()).cloned() else {
            diags.push(self.unknown(name));
            return None;
        };
        if stack.iter().any(|s| s == name.as_str()) {
            diags.push(
                Diagnostic::error(
                    codes::PROFILE_CYCLE,
                    format!("profile `{}` applies itself", name.as_str()),
                )
                .primary(
                    name.span,
                    format!("cycle: {} → {}", stack.join(" → "), name.as_str()),
                )
                .help("remove one of the `profile` statements that close the cycle"),
            );
            return None;
        }
        stack.push(name.as_str().to_string());
        let mut out = Defaults::default();
        for applied in &layer.applies {
            if let Some(profile) = self.resolve(applied, stack, diags) {
                out = out.overlay(&profile);
            }
        }
        stack.pop();
        let out = out.overlay(&layer.own);
        self.resolved.insert(name.as_str().to_string(), out.clone());
        Some(out)
    }

    fn unknown(&self, name: &Name) -> Diagnostic {
        let what = if name.as_str().starts_with("std.") {
            "stdlib part"
        } else {
            "profile"
        };
        let d = Diagnostic::error(
            codes::UNKNOWN_PROFILE,
            format!("unknown {what} `{}`", name.as_str()),
        )
        .primary(name.span, "not defined in the suite or the stdlib");
        match suggest(name.as_str(), self.names()) {
            Some(near) => did_you_mean(d, name.span, near),
            None => d.help("define it with `profile NAME { … }` in a suite file"),
        }
    }
}
