//! Case defaults and their layering.
//!
//! A field the shape declares `inherited` that a case does not set comes from, in
//! order: the profiles the case applies, its category (and the category's profiles),
//! then the suite (and its profiles). Profiles may apply other profiles; a cycle is
//! reported, not followed. Layers are read against the suite's shape: a profile of the
//! suite is checked whether or not anything applies it; a stdlib profile (written for
//! some shape, maybe not this suite's) only when something does.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::model::shape::Shape;
use crate::model::Name;
use crate::syntax::ast::Statement;

use super::fields::{self, Given, Keyed};
use super::keys::{self, body, KeySpec};
use super::values::{self, ValueType};

/// Values one layer sets, by case field id; `None` means "inherit".
#[derive(Clone, Debug, Default)]
pub struct Defaults {
    values: Vec<Option<Given>>,
}

impl Defaults {
    pub fn get(&self, field: usize) -> Option<&Given> {
        self.values.get(field)?.as_ref()
    }

    fn set(&mut self, field: usize, value: Given) {
        if self.values.len() <= field {
            self.values.resize(field + 1, None);
        }
        self.values[field] = Some(value);
    }

    /// `top` over `self`: each field `top` sets wins; evidence merges by dimension.
    pub fn overlay(mut self, top: &Defaults) -> Defaults {
        for (field, value) in top.values.iter().enumerate() {
            if let Some(value) = value {
                let below = self.values.get_mut(field).and_then(Option::take);
                self.set(field, over(below, value));
            }
        }
        self
    }
}

/// `top` over what a lower layer set for its field: `top` wins, evidence merges by
/// dimension (a dimension `top` names again takes `top`'s text).
fn over(below: Option<Given>, top: &Given) -> Given {
    match (below, top) {
        (Some(Given::Evidence(mut all)), Given::Evidence(more)) => {
            for (dimension, text) in more {
                match all.iter_mut().find(|(d, _)| d == dimension) {
                    Some(slot) => slot.1 = text.clone(),
                    None => all.push((dimension.clone(), text.clone())),
                }
            }
            Given::Evidence(all)
        }
        _ => top.clone(),
    }
}

/// The defaults a case block inherits, as the layers they come from (bottom first: its
/// category's or the suite's, the profiles it applies in order, its own fields), read
/// field by field: a case copies only the values it takes, once, where overlaying the
/// layers would copy every inherited value at each layer.
pub struct Stack<'a> {
    layers: Vec<&'a Defaults>,
}

impl<'a> Stack<'a> {
    /// The value of `field`, as [`Defaults::overlay`] of the layers in order gives it.
    pub fn get(&self, field: usize) -> Option<Cow<'a, Given>> {
        let mut set = self.layers.iter().filter_map(|l| l.get(field));
        let top = set.next_back()?;
        if !matches!(top, Given::Evidence(_)) {
            return Some(Cow::Borrowed(top));
        }
        let below = set.fold(None, |below, value| Some(over(below, value)));
        Some(Cow::Owned(over(below, top)))
    }
}

/// A block's own defaults and the profiles it applies.
#[derive(Clone, Debug, Default)]
pub struct Layer {
    pub own: Defaults,
    pub applies: Vec<Name>,
}

/// The `profile` statement that applies a profile from inside a block.
pub const APPLY: KeySpec<'static> = KeySpec {
    key: "profile",
    required: false,
    repeated: true,
    doc: "Apply a named profile (later statements and the block's own fields win).",
};

/// The keys a defaults block (a profile, a category) accepts: the shape's inherited
/// fields and `profile`.
pub fn layer_keys(shape: &Shape) -> Vec<KeySpec<'_>> {
    fields::key_specs(
        shape.case_fields.iter().filter(|f| f.inherited),
        "",
        &[APPLY],
    )
}

/// Reads the inherited fields set in `block` and the profiles it applies; other keys
/// are left to the caller.
pub fn read_layer(block: &Keyed, shape: &Shape, diags: &mut Vec<Diagnostic>) -> Layer {
    let mut layer = Layer::default();
    for (id, field) in shape
        .case_fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.inherited)
    {
        if let Some(given) = fields::read(field, block, diags) {
            layer.own.set(id, given);
        }
    }
    for statement in block.named("profile") {
        if let Some(name) = values::name(statement, diags) {
            layer.applies.push(name);
        }
    }
    layer
}

/// A `profile NAME { … }` declaration, read against the suite's shape.
struct Declared {
    name: Name,
    layer: Layer,
    /// A stdlib profile's diagnostics, reported only if something applies it.
    deferred: Vec<Diagnostic>,
}

/// Named profiles of a suite and the stdlib, resolved once, then applied read-only.
#[derive(Default)]
pub struct Profiles {
    declared: HashMap<String, Declared>,
    resolved: HashMap<String, Defaults>,
}

impl Profiles {
    /// Reads `profile NAME { … }` statements (`true`: from the stdlib, named `std.NAME`).
    pub fn read(
        statements: &[(&Statement, bool)],
        shape: &Arc<Shape>,
        diags: &mut Vec<Diagnostic>,
    ) -> Profiles {
        let keys = layer_keys(shape);
        let mut profiles = Profiles::default();
        for (statement, stdlib) in statements {
            let mut found = Vec::new();
            let Some(name) = header(statement, *stdlib, &mut found) else {
                diags.extend(found);
                continue;
            };
            keys::check_keys(
                body(statement),
                &[&keys],
                &format!("profile `{}`", name.as_str()),
                name.span,
                &mut found,
            );
            let layer = read_layer(&Keyed::new(body(statement)), shape, &mut found);
            let deferred = if *stdlib {
                found
            } else {
                diags.extend(found);
                Vec::new()
            };
            if let Some(first) = profiles.declared.get(name.as_str()) {
                diags.push(
                    Diagnostic::new(
                        codes::DUPLICATE_DEFINITION,
                        format!("profile `{}` is defined twice", name.as_str()),
                    )
                    .primary(name.span, "defined again here")
                    .secondary(first.name.span, "first defined here")
                    .help("rename one of the profiles or merge them"),
                );
                continue;
            }
            profiles.declared.insert(
                name.as_str().to_string(),
                Declared {
                    name,
                    layer,
                    deferred,
                },
            );
        }
        profiles
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.declared.keys().map(String::as_str)
    }

    /// Resolves every declared profile (the profiles it applies, then its own fields),
    /// in name order, reporting cycles, and the deferred diagnostics of the stdlib
    /// profiles that `applied` (every profile name any block applies) reaches. Done
    /// once, before any [`Profiles::apply`].
    pub fn resolve_all(&mut self, applied: &HashSet<String>, diags: &mut Vec<Diagnostic>) {
        let mut names: Vec<String> = self.declared.keys().cloned().collect();
        names.sort();
        for name in &names {
            let declared = self.declared.get(name).map(|d| d.name.clone());
            if let Some(name) = declared {
                self.resolve(&name, &mut Vec::new(), diags);
            }
        }
        let mut reached: HashSet<String> = HashSet::new();
        let mut stack: Vec<String> = applied.iter().cloned().collect();
        while let Some(name) = stack.pop() {
            if !reached.insert(name.clone()) {
                continue;
            }
            if let Some(declared) = self.declared.get(&name) {
                stack.extend(
                    declared
                        .layer
                        .applies
                        .iter()
                        .map(|n| n.as_str().to_string()),
                );
            }
        }
        let mut reached: Vec<&String> = reached.iter().collect();
        reached.sort();
        for name in reached {
            if let Some(declared) = self.declared.get(name) {
                diags.extend(declared.deferred.iter().cloned());
            }
        }
    }

    /// The defaults of `layer` applied over `base`: its profiles in order, then its own
    /// fields. Reads only (every profile was resolved by [`Profiles::resolve_all`]), so
    /// cases can resolve in parallel.
    pub fn apply(&self, base: &Defaults, layer: &Layer, diags: &mut Vec<Diagnostic>) -> Defaults {
        let stack = self.stack(base, layer, diags);
        let mut out = Defaults::default();
        for defaults in stack.layers {
            out = out.overlay(defaults);
        }
        out
    }

    /// [`Profiles::apply`], as the layers to read a field from: what a case inherits.
    pub fn stack<'a>(
        &'a self,
        base: &'a Defaults,
        layer: &'a Layer,
        diags: &mut Vec<Diagnostic>,
    ) -> Stack<'a> {
        let mut layers = Vec::with_capacity(layer.applies.len() + 2);
        layers.push(base);
        for name in &layer.applies {
            match self.resolved.get(name.as_str()) {
                Some(profile) => layers.push(profile),
                None => diags.push(self.unknown(name)),
            }
        }
        layers.push(&layer.own);
        Stack { layers }
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
        let Some(layer) = self.declared.get(name.as_str()).map(|d| d.layer.clone()) else {
            diags.push(self.unknown(name));
            return None;
        };
        if stack.iter().any(|s| s == name.as_str()) {
            diags.push(
                Diagnostic::new(
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
        let d = Diagnostic::new(
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

/// The name of `profile NAME { … }` (`std.` prefixed for the stdlib).
fn header(statement: &Statement, stdlib: bool, diags: &mut Vec<Diagnostic>) -> Option<Name> {
    let v = values::args_with_block(statement, &[ValueType::Ident], "profile NAME { … }", diags)?;
    let name = values::declared_name(&v[0], stdlib);
    if !stdlib && name.as_str().starts_with("std.") {
        diags.push(
            Diagnostic::new(
                codes::DUPLICATE_DEFINITION,
                "the `std.` prefix is reserved for the stdlib",
            )
            .primary(name.span, "a suite profile cannot use this name")
            .help("choose a name without the `std.` prefix"),
        );
        return None;
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Text;
    use crate::source::{FileId, Span};

    fn text(s: &str) -> Text {
        Text::new(s, Span::new(FileId(0), 0..0))
    }

    fn evidence(pairs: &[(&str, &str)]) -> Given {
        Given::Evidence(
            pairs
                .iter()
                .map(|(d, t)| (d.to_string(), text(t)))
                .collect(),
        )
    }

    fn layer(values: &[(usize, Given)]) -> Defaults {
        let mut defaults = Defaults::default();
        for (field, value) in values {
            defaults.set(*field, value.clone());
        }
        defaults
    }

    /// A case reads its layers field by field; the suite and its categories overlay
    /// them: both give every field the same value, evidence merged by dimension.
    #[test]
    fn reading_the_layers_gives_what_overlaying_them_gives() {
        let layers = [
            layer(&[
                (0, Given::Text(text("base"))),
                (1, evidence(&[("a", "1"), ("b", "2")])),
            ]),
            layer(&[
                (1, evidence(&[("b", "3"), ("c", "4")])),
                (2, Given::Text(text("p"))),
            ]),
            layer(&[(0, Given::Text(text("own"))), (1, evidence(&[("a", "5")]))]),
        ];
        let stack = Stack {
            layers: layers.iter().collect(),
        };
        let overlaid = layers
            .iter()
            .fold(Defaults::default(), |out, top| out.overlay(top));
        for field in 0..4 {
            let read = stack.get(field).map(|g| format!("{g:?}"));
            assert_eq!(
                read,
                overlaid.get(field).map(|g| format!("{g:?}")),
                "field {field}"
            );
        }
        let merged = format!("{:?}", evidence(&[("a", "5"), ("b", "3"), ("c", "4")]));
        assert_eq!(stack.get(1).map(|g| format!("{g:?}")), Some(merged));
    }
}
