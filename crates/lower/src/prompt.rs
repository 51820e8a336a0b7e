//! A case's bundle as a chat prompt, for a harness that talks to the model: the system
//! prompt, the rest of the bundle as the case's context, and the conversation as
//! messages. It is the bundle re-arranged, never more than the bundle: every text comes
//! from [`bundle_value`], so the blinding proof of the bundle covers the prompt.
//!
//! Which bundle keys go where is read from the shape's bundle layout by what each key
//! holds, never by its name: the suite field of kind `system_prompt` is the system
//! prompt; the case id is for routing, not for the model (docs/outputs.md); the
//! `conversation` field becomes the messages; and a `user_message` field that a turn of
//! the conversation already says is left out of the context, so the model reads the
//! opening message once.

use serde_json::{Map, Value};

use crate::model::shape::{Builtin, Kind, Layout, LayoutSource, Slot};
use crate::model::{Case, Suite};

use super::bundle::bundle_value;

/// A case's bundle as a chat prompt.
#[derive(Clone, Debug, PartialEq)]
pub struct Prompt {
    /// The suite's system prompt, when the bundle shows one.
    pub system: Option<String>,
    /// The rest of the bundle, in its layout's order.
    pub context: Map<String, Value>,
    /// The conversation's turns (`role`, `content`), in order.
    pub conversation: Vec<(String, String)>,
}

/// The prompt of one case: its bundle, re-arranged.
pub fn prompt(suite: &Suite, case: &Case) -> Prompt {
    // A layout renders as a JSON object.
    let mut context = match bundle_value(suite, case) {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    let mut system = None;
    let said: Vec<&str> = case
        .conversation
        .iter()
        .map(|t| t.content.as_str())
        .collect();
    arrange(suite, &suite.shape.bundle, &mut context, &said, &mut system);
    Prompt {
        system,
        context,
        conversation: case
            .conversation
            .iter()
            .map(|t| (t.role.as_str().to_string(), t.content.as_str().to_string()))
            .collect(),
    }
}

/// Takes out of `object` (rendered from `layout`) what is not context: the system
/// prompt (into `system`), the case id, the conversation and a user message it says.
fn arrange(
    suite: &Suite,
    layout: &Layout,
    object: &mut Map<String, Value>,
    said: &[&str],
    system: &mut Option<String>,
) {
    for entry in &layout.entries {
        let key = entry.key.as_str();
        match &entry.value {
            Slot::Object(inner) => {
                if let Some(Value::Object(nested)) = object.get_mut(key) {
                    arrange(suite, inner, nested, said, system);
                }
            }
            Slot::Source { source, .. } => match role_of(suite, source) {
                Role::Context => {}
                Role::Routing | Role::Conversation => {
                    object.shift_remove(key);
                }
                Role::UserMessage => {
                    let repeated = matches!(object.get(key), Some(Value::String(s)) if said.contains(&s.as_str()));
                    if repeated {
                        object.shift_remove(key);
                    }
                }
                Role::System => {
                    if let Some(Value::String(text)) = object.shift_remove(key) {
                        system.get_or_insert(text);
                    }
                }
            },
        }
    }
}

/// What a bundle key is for, in a chat prompt.
enum Role {
    Context,
    System,
    Routing,
    Conversation,
    UserMessage,
}

fn role_of(suite: &Suite, source: &LayoutSource) -> Role {
    let shape = &suite.shape;
    match source {
        LayoutSource::Builtin(Builtin::CaseId) => Role::Routing,
        LayoutSource::SuiteField(id) if shape.suite_fields[*id].kind == Kind::SystemPrompt => {
            Role::System
        }
        LayoutSource::Field(id) => match shape.case_fields[*id].kind {
            Kind::Conversation => Role::Conversation,
            Kind::UserMessage => Role::UserMessage,
            _ => Role::Context,
        },
        _ => Role::Context,
    }
}
