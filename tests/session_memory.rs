//! A session keeps what it must and no more: after each call the runtime holds the
//! call's record (tool, arguments, status, the ids it returned and changed), never the
//! result it answered. A session that alternates writes with reads returning every
//! record grows its results as the square of its length; its retained memory must grow
//! only with the ids returned, not with the records' contents (issue 13: 2,000 calls once
//! took 1.83 GB).
//!
//! Measured with a counting allocator (live bytes), not a clock, so the test is
//! deterministic. Its own test binary: the allocator counts this process only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicIsize, Ordering};

use casec::runtime::{Event, Runtime};
use casec::{Compilation, Sources};
use serde_json::json;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

#[test]
fn a_long_session_retains_ids_not_results() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let compilation = Compilation::new(Sources::Folder(&root));
    let suite = compilation
        .suite
        .as_ref()
        .expect("the Tujora suite resolves");
    let case = suite
        .cases
        .iter()
        .find(|c| c.id.as_str() == "TUJ-001")
        .expect("TUJ-001");
    let sandbox = case.sandbox.as_ref().expect("a world");
    let mut rt = Runtime::new(suite, case, sandbox);
    let before = live();
    let pairs = 400;
    let mut answered = 0usize;
    for i in 0..pairs {
        let write = json!({
            "collection": "reminders",
            "operation": "create",
            "fields": {"label": format!("Water the plants, round {i}"), "at": "2026-11-10T09:00:00-05:00", "status": "active"},
        });
        let written = rt.call("write_record", &write);
        assert_eq!(written["status"], "ok", "{written}");
        let read = rt.call(
            "read_records",
            &json!({"collection": "reminders", "query": ""}),
        );
        answered += read.to_string().len();
    }
    let grown = live() - before;
    let returned: usize = rt
        .events
        .iter()
        .map(|e| match e {
            Event::Call(call) => call.returned.len(),
            _ => 0,
        })
        .sum();
    assert!(
        returned >= pairs * pairs / 2,
        "the reads return every record: {returned} ids"
    );
    // What the session keeps: a few dozen bytes per returned id, and per call its record
    // and the record it created (with room for the vectors' spare capacity).
    let bound = 64 * returned as isize + 4096 * 2 * pairs as isize;
    assert!(
        grown <= bound,
        "the session grew by {grown} bytes for {returned} returned ids (bound {bound}); \
         its answers were {answered} bytes"
    );
    // Keeping the answers would have cost more than the bound.
    assert!(
        answered as isize > bound,
        "the test cannot tell: {answered} ≤ {bound}"
    );
}
