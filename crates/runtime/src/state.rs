//! The sandbox's records while a case runs: the world, then every write applied to it.
//!
//! Records keep their fields in the schema's order, so the final state prints the same
//! whatever order a call gave them in. Ids of new records follow docs/worlds.md: the
//! collection's `new` ids from the world, in order, then the collection's prefix
//! followed by the next number above every id in use with that prefix.
//!
//! Lookups by id and id allocation are indexed, so a call costs the same at the end of
//! a long session as at its start (only a delete re-indexes, once).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value as Json};

use crate::model::value::FieldValue;
use crate::model::world::{id_letters, Collection, World, WorldSchema};

#[derive(Clone, Debug, PartialEq)]
pub struct Rec {
    pub collection: String,
    pub id: String,
    pub fields: Vec<(String, FieldValue)>,
    /// Earlier states, oldest first.
    pub history: Vec<Change>,
}

/// One audit-history entry: what the changed fields were before the change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    pub changed_at: String,
    pub reason: Option<String>,
    pub fields: Map<String, Json>,
}

/// A record as tools return it and the final state shows it.
#[derive(Serialize)]
struct RecordView<'a> {
    id: &'a str,
    collection: &'a str,
    fields: Json,
    history: &'a [Change],
}

impl Rec {
    pub fn field(&self, name: &str) -> Option<&FieldValue> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn fields_json(&self) -> Json {
        Json::Object(
            self.fields
                .iter()
                .map(|(n, v)| (n.clone(), v.to_json()))
                .collect(),
        )
    }

    /// The record as tools return it and the final state shows it.
    pub fn to_json(&self) -> Json {
        self.to_json_showing(None)
    }

    /// The record with only `shown` fields (all when `None`).
    pub fn to_json_showing(&self, shown: Option<&[&str]>) -> Json {
        let fields = Json::Object(
            self.fields
                .iter()
                .filter(|(n, _)| shown.is_none_or(|s| s.contains(&n.as_str())))
                .map(|(n, v)| (n.clone(), v.to_json()))
                .collect(),
        );
        serde_json::to_value(RecordView {
            id: &self.id,
            collection: &self.collection,
            fields,
            history: &self.history,
        })
        .unwrap_or_default()
    }

    /// Sets `updates` (already typed; `None` clears an optional field), keeping the
    /// earlier values as a history entry stamped `changed_at`. Returns whether anything
    /// changed.
    pub fn apply(
        &mut self,
        updates: Vec<(String, Option<FieldValue>)>,
        changed_at: &str,
        reason: Option<&str>,
        collection: &Collection,
    ) -> bool {
        let mut earlier = Map::new();
        for (name, value) in updates {
            let before = self.field(&name).cloned();
            if before == value {
                continue;
            }
            earlier.insert(name.clone(), before.map_or(Json::Null, |v| v.to_json()));
            self.fields.retain(|(n, _)| *n != name);
            if let Some(value) = value {
                self.fields.push((name, value));
            }
        }
        if earlier.is_empty() {
            return false;
        }
        sort_like_schema(&mut self.fields, collection);
        self.history.push(Change {
            changed_at: changed_at.to_string(),
            reason: reason.map(str::to_string),
            fields: earlier,
        });
        true
    }
}

pub fn sort_like_schema(fields: &mut [(String, FieldValue)], collection: &Collection) {
    let rank = |name: &str| {
        collection
            .fields
            .iter()
            .position(|f| f.name.as_str() == name)
    };
    fields.sort_by_key(|(name, _)| rank(name));
}

#[derive(Clone, Debug)]
pub struct State {
    records: Vec<Rec>,
    /// Position of each record in `records`, by id.
    index: HashMap<String, usize>,
    /// The highest number in use after each id prefix (records and pending new ids).
    highest: HashMap<String, u64>,
    /// `new` ids not yet given out, by collection, in order.
    pending_new: Vec<(String, String)>,
}

impl State {
    pub fn from_world(world: &World) -> State {
        let records = world
            .records
            .iter()
            .map(|r| Rec {
                collection: r.collection.as_str().to_string(),
                id: r.id.as_str().to_string(),
                fields: r
                    .fields
                    .iter()
                    .map(|(n, v)| (n.as_str().to_string(), v.clone()))
                    .collect(),
                history: r
                    .history
                    .iter()
                    .map(|h| Change {
                        changed_at: h.changed_at.render(),
                        reason: h.reason.as_ref().map(|t| t.as_str().to_string()),
                        fields: h
                            .fields
                            .iter()
                            .map(|(n, v)| (n.as_str().to_string(), v.to_json()))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let pending_new: Vec<(String, String)> = world
            .new_ids
            .iter()
            .map(|(c, id)| (c.as_str().to_string(), id.as_str().to_string()))
            .collect();
        let mut state = State {
            records,
            index: HashMap::new(),
            highest: HashMap::new(),
            pending_new,
        };
        state.reindex();
        let pending: Vec<String> = state.pending_new.iter().map(|(_, id)| id.clone()).collect();
        for id in pending {
            state.note_id(&id);
        }
        state
    }

    fn reindex(&mut self) {
        self.index = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        let ids: Vec<String> = self.records.iter().map(|r| r.id.clone()).collect();
        for id in ids {
            self.note_id(&id);
        }
    }

    /// Remembers the number of an id, so the next id of its prefix comes after it.
    fn note_id(&mut self, id: &str) {
        let Some(letters) = id_letters(id) else {
            return;
        };
        let Ok(number) = id[letters.len()..].parse::<u64>() else {
            return;
        };
        let highest = self.highest.entry(letters.to_string()).or_insert(0);
        *highest = (*highest).max(number);
    }

    pub fn records(&self) -> &[Rec] {
        &self.records
    }

    pub fn get(&self, id: &str) -> Option<&Rec> {
        self.index.get(id).map(|&i| &self.records[i])
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Rec> {
        let i = *self.index.get(id)?;
        self.records.get_mut(i)
    }

    pub fn in_collection<'a>(&'a self, collection: &'a str) -> impl Iterator<Item = &'a Rec> + 'a {
        self.records
            .iter()
            .filter(move |r| r.collection == collection)
    }

    pub fn insert(&mut self, record: Rec) {
        self.note_id(&record.id);
        self.index.insert(record.id.clone(), self.records.len());
        self.records.push(record);
    }

    pub fn remove(&mut self, id: &str) -> Option<Rec> {
        let i = self.index.remove(id)?;
        let removed = self.records.remove(i);
        for position in self.index.values_mut().filter(|p| **p > i) {
            *position -= 1;
        }
        Some(removed)
    }

    /// The id the next record created in `collection` takes.
    pub fn next_id(&mut self, collection: &Collection) -> String {
        let name = collection.name.as_str();
        if let Some(index) = self.pending_new.iter().position(|(c, _)| c == name) {
            return self.pending_new.remove(index).1;
        }
        let prefix = collection.id_prefix.as_str();
        // Collections sharing an id prefix (two collections of `L` ids) share the count.
        let next = self.highest.get(prefix).copied().unwrap_or(0) + 1;
        format!("{prefix}{next}")
    }

    /// Every collection with its records, in schema order, as the final state shows it.
    pub fn to_json(&self, schema: &WorldSchema) -> Json {
        Json::Object(
            schema
                .collections
                .iter()
                .map(|c| {
                    let records: Vec<Json> = self
                        .in_collection(c.name.as_str())
                        .map(Rec::to_json)
                        .collect();
                    (c.name.as_str().to_string(), Json::Array(records))
                })
                .collect(),
        )
    }
}
