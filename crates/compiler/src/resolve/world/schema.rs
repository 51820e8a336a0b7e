//! World schemas: the typed collections a suite's sandbox holds, declared in `.case`
//! syntax (`schema NAME { collection … { field … } }`).
//!
//! A schema is written once (the stdlib ships `std.everyday_world`) and named by a
//! suite with `world_schema NAME`. Reading validates the declaration itself: known field
//! types, references to declared collections, unique names and id prefixes.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::diag::codes::{self, Code};
use crate::diag::{suggest, Diagnostic};
use crate::model::tool::Tool;
use crate::model::world::{
    Collection, FieldSpec, FieldType, WorldSchema, RESERVED_COLLECTIONS, RESERVED_FIELDS,
};
use crate::model::Name;
use crate::resolve::duplicate;
use crate::resolve::keys::{self, body, first, KeySpec};
use crate::resolve::values::{self, ValueType};
use crate::source::Span;
use crate::syntax::ast::{Statement, Value};

use super::super::tools::{read_tool, ToolCx};

pub const SCHEMA_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "doc",
        required: false,
        repeated: false,
        doc: "What the schema is for.",
    },
    KeySpec {
        key: "request_prefix",
        required: false,
        repeated: false,
        doc: "Letters of request ids issued by write tools (Q for Q1).",
    },
    KeySpec {
        key: "collection",
        required: false,
        repeated: true,
        doc: "`collection NAME { id_prefix …; field … }`: one collection of records.",
    },
    KeySpec {
        key: "tool",
        required: false,
        repeated: true,
        doc: "`tool NAME { argument …; service … }`: a tool over the schema's collections.",
    },
];

pub const COLLECTION_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "doc",
        required: false,
        repeated: false,
        doc: "What the collection holds.",
    },
    KeySpec {
        key: "id_prefix",
        required: true,
        repeated: false,
        doc: "The letters record ids start with (M for M1).",
    },
    KeySpec {
        key: "read_only",
        required: false,
        repeated: false,
        doc: "Writes to this collection are refused.",
    },
    KeySpec {
        key: "field",
        required: false,
        repeated: true,
        doc: "`field NAME TYPE [optional]`: one typed field.",
    },
];

const FIELD_KEYS: &[KeySpec<'static>] = &[KeySpec {
    key: "doc",
    required: false,
    repeated: false,
    doc: "What the field means.",
}];

const TYPE_NAMES: &[&str] = &[
    "text",
    "date",
    "time",
    "datetime",
    "duration",
    "recurrence",
    "bool",
    "number",
    "enum",
    "ref",
    "list",
];

/// The schemas of a run: the valid ones by name (`std.` prefixed for the stdlib), and
/// the names of those declared with errors (already reported), so that naming one is
/// not a second error.
#[derive(Clone, Default)]
pub struct Schemas {
    pub valid: HashMap<String, Arc<WorldSchema>>,
    pub invalid: HashSet<String>,
}

/// Every schema declared in the stdlib and the suite's files. Duplicates and invalid
/// declarations are reported and left out.
pub fn read_schemas(statements: &[(&Statement, bool)], diags: &mut Vec<Diagnostic>) -> Schemas {
    let mut out = Schemas::default();
    for (statement, stdlib) in statements {
        let Some(schema) = read_schema(statement, *stdlib, diags) else {
            if let Some(name) = statement.values.first().and_then(|v| v.as_ident()) {
                let prefix = if *stdlib { "std." } else { "" };
                out.invalid.insert(format!("{prefix}{name}"));
            }
            continue;
        };
        if let Some(first) = out.valid.get(schema.name.as_str()) {
            diags.push(duplicate("schema", &schema.name, first.name.span));
            continue;
        }
        out.valid
            .insert(schema.name.as_str().to_string(), Arc::new(schema));
    }
    out
}

fn read_schema(
    statement: &Statement,
    stdlib: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<WorldSchema> {
    let header = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "schema NAME { collection … }",
        diags,
    )?;
    let name = values::declared_name(&header[0], stdlib);
    let statements = body(statement);
    let context = format!("schema `{}`", name.as_str());
    keys::check_keys(statements, &[SCHEMA_KEYS], &context, name.span, diags);
    let before = diags.len();
    let request_prefix = first(statements, "request_prefix").and_then(|s| values::name(s, diags));
    if let Some(s) = first(statements, "doc") {
        values::text(s, diags);
    }
    let mut collections: Vec<Collection> = Vec::new();
    for statement in keys::all(statements, "collection") {
        let Some(collection) = read_collection(statement, diags) else {
            continue;
        };
        if let Some(earlier) = collections
            .iter()
            .find(|c| c.name.as_str() == collection.name.as_str())
        {
            diags.push(duplicate("collection", &collection.name, earlier.name.span));
            continue;
        }
        collections.push(collection);
    }
    check_references(&collections, diags);
    if diags.len() > before {
        return None;
    }
    let mut schema = WorldSchema {
        name,
        request_prefix,
        collections,
        tools: Vec::new(),
    };
    schema.tools = read_tools(
        keys::all(statements, "tool"),
        Some(&schema),
        &mut Vec::new(),
        diags,
    );
    (diags.len() == before).then_some(schema)
}

/// The tools declared by `statements`, read against `schema`; a name declared twice is
/// reported and the second declaration left out. The names of declarations with errors
/// (already reported) go into `broken`, so that naming them elsewhere does not repeat
/// the error as an unknown tool.
pub(crate) fn read_tools<'a>(
    statements: impl Iterator<Item = &'a Statement>,
    schema: Option<&WorldSchema>,
    broken: &mut Vec<Name>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Tool> {
    let cx = ToolCx { schema };
    let mut tools: Vec<Tool> = Vec::new();
    for statement in statements {
        let Some(tool) = read_tool(statement, cx, diags) else {
            let name = statement.values.first().filter(|v| v.as_ident().is_some());
            broken.extend(name.map(values::name_of));
            continue;
        };
        if let Some(earlier) = tools.iter().find(|t| t.name.as_str() == tool.name.as_str()) {
            diags.push(duplicate("tool", &tool.name, earlier.name.span));
            continue;
        }
        tools.push(tool);
    }
    tools
}

fn read_collection(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Collection> {
    let usage = "collection NAME { id_prefix X; field NAME TYPE }";
    let header = values::args_with_block(statement, &[ValueType::Ident], usage, diags)?;
    let name = values::name_of(&header[0]);
    if RESERVED_COLLECTIONS.contains(&name.as_str()) {
        diags.push(reserved(
            &name,
            "collection",
            "a world block uses it to declare new ids",
        ));
    }
    let statements = body(statement);
    let context = format!("collection `{}`", name.as_str());
    keys::check_keys(statements, &[COLLECTION_KEYS], &context, name.span, diags);
    let id_prefix = first(statements, "id_prefix").and_then(|s| values::name(s, diags));
    if let Some(prefix) = &id_prefix {
        if !prefix.as_str().chars().all(|c| c.is_ascii_uppercase()) {
            diags.push(
                schema_error(
                    format!("id prefix `{}` is not upper-case letters", prefix.as_str()),
                    prefix.span,
                    "ids are these letters followed by digits",
                )
                .help("write the prefix in capital letters, e.g. `id_prefix CT`"),
            );
        }
    }
    let read_only = match first(statements, "read_only") {
        Some(s) => values::args(s, &[], "read_only", diags).is_some(),
        None => false,
    };
    let doc = first(statements, "doc").and_then(|s| values::text(s, diags));
    let mut fields: Vec<FieldSpec> = Vec::new();
    for statement in keys::all(statements, "field") {
        let Some(field) = read_field(statement, diags) else {
            continue;
        };
        if let Some(earlier) = fields
            .iter()
            .find(|f| f.name.as_str() == field.name.as_str())
        {
            diags.push(duplicate("field", &field.name, earlier.name.span));
            continue;
        }
        fields.push(field);
    }
    Some(Collection {
        name,
        doc,
        id_prefix: id_prefix?,
        read_only,
        fields,
    })
}

fn read_field(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<FieldSpec> {
    let values::Declared {
        name,
        type_words,
        required,
    } = values::declared(statement, ("field", "a field"), diags)?;
    if RESERVED_FIELDS.contains(&name.as_str()) {
        diags.push(reserved(
            &name,
            "field",
            "records use it for their audit history",
        ));
    }
    let fields = body(statement);
    keys::check_keys(fields, &[FIELD_KEYS], "a field block", name.span, diags);
    let doc = first(fields, "doc").and_then(|s| values::text(s, diags));
    let ty = read_type(&type_words, &FIELD_TYPES, diags)?;
    Some(FieldSpec {
        name,
        ty,
        required,
        doc,
    })
}

/// Where a type is written: what mistakes are reported as, and the type words other
/// than field types that the place also accepts (for "did you mean").
pub(crate) struct TypePlace {
    pub code: &'static Code,
    /// "field" or "argument".
    pub noun: &'static str,
    pub also: &'static [&'static str],
}

const FIELD_TYPES: TypePlace = TypePlace {
    code: codes::SCHEMA_DEFINITION,
    noun: "field",
    also: &[],
};

/// `text`, `enum a b`, `ref coll…`, `list TYPE`: the type words after a field (or tool
/// argument) name.
pub(crate) fn read_type(
    words: &[&Value],
    place: &TypePlace,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    let error = |message: String, span: Span, label: &str| {
        Diagnostic::new(place.code, message).primary(span, label.to_string())
    };
    let (head, rest) = words.split_first()?;
    let word = head.as_ident().unwrap_or_default();
    let args: Vec<String> = rest
        .iter()
        .filter_map(|v| v.as_ident().map(str::to_string))
        .collect();
    let simple = word.parse::<FieldType>().ok();
    let needs_args = |what: &str, diags: &mut Vec<Diagnostic>| {
        diags.push(
            error(
                format!("`{word}` needs {what}"),
                head.span,
                &format!("`{word}` without {what}"),
            )
            .help(format!(
                "write e.g. `field status {word} {}`",
                example_args(word)
            )),
        );
    };
    match (simple, word) {
        (Some(ty), _) if rest.is_empty() => Some(ty),
        (Some(_), _) => {
            let extra = rest[0].span.to(rest[rest.len() - 1].span);
            diags.push(
                error(
                    format!("type `{word}` takes no arguments"),
                    extra,
                    "not part of the type",
                )
                .help("mark an optional field with a final `optional`; nothing else follows a simple type"),
            );
            None
        }
        (None, "enum" | "ref") if args.is_empty() => {
            needs_args(
                if word == "enum" {
                    "its values"
                } else {
                    "a collection"
                },
                diags,
            );
            None
        }
        (None, "enum") => Some(FieldType::Enum(args)),
        (None, "ref") => Some(FieldType::Ref(args)),
        (None, "list") if rest.is_empty() => {
            needs_args("an item type", diags);
            None
        }
        (None, "list") => read_type(rest, place, diags).map(|t| FieldType::List(Box::new(t))),
        _ => {
            let d = error(
                format!("unknown {} type `{word}`", place.noun),
                head.span,
                "not a type",
            );
            let names = TYPE_NAMES.iter().chain(place.also).copied();
            diags.push(match suggest(word, names.clone()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("types: {}", names.collect::<Vec<_>>().join(", "))),
            });
            None
        }
    }
}

fn example_args(word: &str) -> &'static str {
    match word {
        "enum" => "pending completed",
        "ref" => "people",
        _ => "text",
    }
}

/// Every `ref` names a collection of the same schema.
fn check_references(collections: &[Collection], diags: &mut Vec<Diagnostic>) {
    let names: Vec<&str> = collections.iter().map(|c| c.name.as_str()).collect();
    for field in collections.iter().flat_map(|c| &c.fields) {
        let mut ty = &field.ty;
        while let FieldType::List(item) = ty {
            ty = item;
        }
        let FieldType::Ref(targets) = ty else {
            continue;
        };
        for target in targets.iter().filter(|t| !names.contains(&t.as_str())) {
            let d = schema_error(
                format!(
                    "field `{}` refers to unknown collection `{target}`",
                    field.name.as_str()
                ),
                field.name.span,
                "its `ref` names no collection of this schema",
            );
            diags.push(match suggest(target, names.iter().copied()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help("declare the collection in this schema or fix the name"),
            });
        }
    }
}

fn schema_error(message: String, span: Span, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(codes::SCHEMA_DEFINITION, message).primary(span, label)
}

fn reserved(name: &Name, what: &str, why: &str) -> Diagnostic {
    schema_error(
        format!("`{}` cannot name a {what}", name.as_str()),
        name.span,
        format!("reserved: {why}"),
    )
    .help(format!("choose another {what} name"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn read(text: &str) -> (HashMap<String, Arc<WorldSchema>>, Vec<Diagnostic>) {
        let parsed = crate::syntax::parse(FileId(0), text);
        let file = parsed.file.expect("test input parses");
        let statements: Vec<(&Statement, bool)> =
            file.statements.iter().map(|s| (s, false)).collect();
        let mut diags = Vec::new();
        let schemas = read_schemas(&statements, &mut diags);
        (schemas.valid, diags)
    }

    #[test]
    fn schemas_with_errors_are_named_as_invalid() {
        let parsed = crate::syntax::parse(
            FileId(0),
            "schema s {\n collection c {\n id_prefix C\n field x nubmer\n }\n}",
        );
        let file = parsed.file.expect("test input parses");
        let mut diags = Vec::new();
        let schemas = read_schemas(&[(&file.statements[0], true)], &mut diags);
        assert!(schemas.valid.is_empty());
        assert!(schemas.invalid.contains("std.s"));
        assert_eq!(diags.len(), 1);
    }

    #[test]
    fn reads_types_optionality_and_nesting() {
        let (schemas, diags) = read(
            "schema s {\n collection things {\n id_prefix TH\n field tags list enum a b optional\n field owner ref things\n }\n}",
        );
        assert!(diags.is_empty(), "{diags:?}");
        let things = schemas["s"].collection("things").expect("declared");
        let tags = things.field("tags").expect("declared");
        assert!(!tags.required);
        assert_eq!(
            tags.ty,
            FieldType::List(Box::new(FieldType::Enum(vec!["a".into(), "b".into()])))
        );
        assert_eq!(
            things.field("owner").map(|f| &f.ty),
            Some(&FieldType::Ref(vec!["things".into()]))
        );
    }

    #[test]
    fn every_malformed_field_is_reported() {
        for field in [
            "field x optional",
            "field x",
            "field x enum",
            "field x ref nowhere",
            "field x text extra",
            "field history text",
        ] {
            let text =
                format!("schema s {{\n collection things {{\n id_prefix TH\n {field}\n }}\n}}");
            let (_, diags) = read(&text);
            assert!(!diags.is_empty(), "`{field}` was accepted");
        }
    }

    #[test]
    fn the_stdlib_schema_is_valid() {
        let (schemas, diags) = read(
            crate::load::STDLIB
                .iter()
                .find(|(n, _)| *n == "everyday_world.case")
                .map_or("", |(_, t)| t),
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert!(schemas["everyday_world"].collections.len() >= 20);
    }
}
