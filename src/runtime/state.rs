//! The sandbox's records while a case runs: the world, then every write applied to it.
//!
//! Records keep their fields in the schema's order, so the final state prints the same
//! whatever order a call gave them in. Ids of new records follow docs/worlds.md: the
//! collection's `new` ids from the world, in order, then the collection's prefix
//! followed by the next number above every id in use with that prefix.

use serde_json::{json, Map, Value as Json};

use crate::model::value::FieldValue;
use crate::model::world::{id_letters, World};
use crate::model::world::{Collection, WorldSchema};

#[derive(Clone, Debug, PartialEq)]
pub struct Rec {
    pub collection: String,
    pub id: String,
    pub fields: Vec<(String, FieldValue)>,
    /// Earlier states, oldest first, as `{changed_at, reason, fields}`.
    pub history: Vec<Json>,
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
        json!({
            "id": self.id,
            "collection": self.collection,
            "fields": self.fields_json(),
            "history": self.history,
        })
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
        self.history
            .push(json!({ "changed_at": changed_at, "reason": reason, "fields": earlier }));
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
    pub records: Vec<Rec>,
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
                    .map(|h| {
                        json!({
                            "changed_at": h.changed_at.render(),
                            "reason": h.reason.as_ref().map(|t| t.as_str()),
                            "fields": Json::Object(h.fields.iter().map(|(n, v)| (n.as_str().to_string(), v.to_json())).collect()),
                        })
                    })
                    .collect(),
            })
            .collect();
        let pending_new = world
            .new_ids
            .iter()
            .map(|(c, id)| (c.as_str().to_string(), id.as_str().to_string()))
            .collect();
        State {
            records,
            pending_new,
        }
    }

    pub fn get(&self, id: &str) -> Option<&Rec> {
        self.records.iter().find(|r| r.id == id)
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Rec> {
        self.records.iter_mut().find(|r| r.id == id)
    }

    pub fn in_collection<'a>(&'a self, collection: &'a str) -> impl Iterator<Item = &'a Rec> + 'a {
        self.records
            .iter()
            .filter(move |r| r.collection == collection)
    }

    pub fn remove(&mut self, id: &str) -> Option<Rec> {
        let index = self.records.iter().position(|r| r.id == id)?;
        Some(self.records.remove(index))
    }

    /// The id the next record created in `collection` takes.
    pub fn next_id(&mut self, collection: &Collection) -> String {
        let name = collection.name.as_str();
        if let Some(index) = self.pending_new.iter().position(|(c, _)| c == name) {
            return self.pending_new.remove(index).1;
        }
        let prefix = collection.id_prefix.as_str();
        let in_use = self
            .records
            .iter()
            .map(|r| r.id.as_str())
            .chain(self.pending_new.iter().map(|(_, id)| id.as_str()));
        let highest = in_use
            .filter(|id| id_letters(id) == Some(prefix))
            .filter_map(|id| id[prefix.len()..].parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        // Collections sharing a prefix (dose_log and lists both use L) share the count.
        format!("{prefix}{}", highest + 1)
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
