//! Go to definition: from a name to where it is declared (a category, tag or tool in
//! suite.case, a profile in any suite file, a stdlib part in the cached copy of the
//! stdlib, a case from a `revision` note or the suite's `order`), and from a record id
//! in a case's strings to its first mention in the case's facts.

use lsp_types::{Location, Position};

use super::cursor::{self, At};
use super::index;
use super::names;
use super::view::View;

pub fn definition(view: &View, position: Position) -> Option<Location> {
    let offset = view.offset(position);
    let context = cursor::context(view.text, offset);
    let path = context.path();
    let span = match &context.at {
        At::Value { key, index, word } => {
            let kind = names::reference(&path, key, *index, view.index.shape())
                .or_else(|| names::declaration(&path, key, *index))?;
            view.index.find(kind, &word.text)?.span
        }
        At::Text { word, .. } if path.first() == Some(&"case") => {
            let case = view.index.case_at(view.file, offset)?;
            index::record_mentions(
                case.statement,
                &view.index.fixture_keys(),
                &view.unit.compilation.db,
            )
            .into_iter()
            .find(|m| m.id == word.text)?
            .span
        }
        At::Key(_) | At::Text { .. } | At::Nothing => return None,
    };
    view.location(span)
}
