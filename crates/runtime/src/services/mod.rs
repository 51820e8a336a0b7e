//! The built-in services, each run with the names its binding gives (`model::tool`):
//! the clock, the generic record services ([`records`]), bookings ([`booking`]), item
//! trackers ([`tracker`]), a path-keyed file store ([`files`]) and HTTP endpoints served
//! from world records ([`http`]). Their behaviour is documented in docs/tools.md.

pub mod booking;
pub mod files;
pub mod http;
pub mod records;
pub mod tracker;

use serde_json::{json, Value as Json};

use crate::model::tool::{Service, Tool};
use crate::model::Name;

use super::{CallResult, Runtime};

/// Runs a call of `tool`, bound to `service`, whose arguments have been validated.
pub fn run(rt: &mut Runtime, tool: &Tool, service: &Service, arguments: &Json) -> CallResult {
    match service {
        Service::Clock => clock(rt),
        Service::Search(s) => records::search(rt, s, arguments),
        Service::Get(g) => records::get(rt, g, arguments),
        Service::Write(w) => {
            let request = argument(arguments, w.request_argument.as_ref()).map(str::to_string);
            rt.idempotent(request.as_deref(), |rt| {
                records::write(rt, tool, w, arguments)
            })
        }
        Service::Booking(b) => booking::run(rt, b, arguments),
        Service::Tracker(t) => tracker::run(rt, t, arguments),
        Service::Files(f) => files::run(rt, f, arguments),
        Service::Http(h) => http::run(rt, h, arguments),
        Service::Commands(c) => super::commands::run(rt, c, arguments),
    }
}

/// The argument a service reads a request id from, if it has one.
pub fn request_argument(service: &Service) -> Option<&Name> {
    match service {
        Service::Write(w) => w.request_argument.as_ref(),
        Service::Booking(b) => b.request_argument.as_ref(),
        Service::Clock
        | Service::Search(_)
        | Service::Get(_)
        | Service::Tracker(_)
        | Service::Files(_)
        | Service::Http(_)
        | Service::Commands(_) => None,
    }
}

fn clock(rt: &Runtime) -> CallResult {
    CallResult::ok(
        json!({ "current_time": rt.now_text(), "timezone": rt.case.timezone_text() }),
        Vec::new(),
        Vec::new(),
    )
}

/// The text a call gives for the argument a binding names (absent or blank: `None`).
pub fn argument<'j>(arguments: &'j Json, name: Option<&Name>) -> Option<&'j str> {
    arguments
        .get(name?.as_str())
        .and_then(Json::as_str)
        .filter(|s| !s.trim().is_empty())
}
