//! Independent work spread over the machine's cores, results in input order.
//!
//! Reading and parsing the files of a large suite are independent per file, and so are
//! resolving and checking its cases; on a machine with several cores they take most of
//! a build. Results always come back in the order of the input, so nothing downstream
//! depends on the threads.

use std::sync::Mutex;

/// Stack of each worker: the main thread's usual size, so that the nesting depth
/// pest's stack guard accepts does not depend on which thread parses a file.
const WORKER_STACK_BYTES: usize = 8 << 20;

/// The environment variable that caps how many threads casec uses (a positive whole
/// number; `1` runs everything on the calling thread). Results do not depend on it; it
/// is for measuring casec on fewer cores than the machine has, or sharing a machine.
pub const THREADS_VAR: &str = "CASEC_THREADS";

/// How many parts to split work into: one per core, or as many as `CASEC_THREADS` says.
pub fn part_count() -> usize {
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    std::env::var(THREADS_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(cores)
}

/// `f` applied to every item, on several threads when `worth_threads` (the caller
/// knows whether there is enough work to repay starting them).
pub fn map<T: Sync, R: Send>(
    items: &[T],
    worth_threads: bool,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    map_chunks(items, worth_threads, |part| {
        part.iter().map(&f).collect::<Vec<R>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `f` applied to consecutive chunks of `items`, one chunk per core when
/// `worth_threads`, else to all the items at once; results in chunk order (and may
/// borrow from the items). For work that keeps state from item to item, such as a
/// cache of what earlier items shared.
pub fn map_chunks<'a, T: Sync, R: Send>(
    items: &'a [T],
    worth_threads: bool,
    f: impl Fn(&'a [T]) -> R + Sync,
) -> Vec<R> {
    if !worth_threads || items.is_empty() {
        return vec![f(items)];
    }
    each_part(
        items.chunks(part_size(items.len(), part_count())).collect(),
        f,
    )
}

/// `items` as at most `parts` consecutive parts of (nearly) equal size, in order; one
/// part, possibly empty, when there are no items.
pub fn split<T>(mut items: Vec<T>, parts: usize) -> Vec<Vec<T>> {
    let size = part_size(items.len(), parts);
    let mut out = Vec::with_capacity(parts.max(1));
    while items.len() > size {
        let rest = items.split_off(size);
        out.push(std::mem::replace(&mut items, rest));
    }
    out.push(items);
    out
}

/// The size of each of `parts` parts of `len` items (the last may be smaller).
fn part_size(len: usize, parts: usize) -> usize {
    len.div_ceil(parts.max(1)).max(1)
}

/// `f` applied to each part, each on a thread of its own (here, when there is one part
/// or no thread can be started); results in the order of `parts`. A panic in `f` is
/// resumed here.
pub fn each_part<P: Send, R: Send>(parts: Vec<P>, f: impl Fn(P) -> R + Sync) -> Vec<R> {
    if parts.len() < 2 {
        return parts.into_iter().map(f).collect();
    }
    let slots: Vec<Mutex<Option<P>>> = parts.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let run = |slot: &Mutex<Option<P>>| {
        let part = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        part.map(&f)
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = slots
            .iter()
            .map(|slot| {
                let worker = std::thread::Builder::new()
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn_scoped(scope, move || run(slot));
                (slot, worker)
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|(slot, worker)| match worker {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to spare: do this part here instead.
                Err(_) => run(slot),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::{each_part, map, map_chunks, split};

    #[test]
    fn results_keep_the_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        for worth_threads in [false, true] {
            let doubled = map(&items, worth_threads, |n| n * 2);
            assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        }
        assert!(map(&[] as &[usize], true, |n| *n).is_empty());
    }

    #[test]
    fn chunks_cover_the_items_in_order() {
        let items: Vec<usize> = (0..1001).collect();
        for worth_threads in [false, true] {
            let chunks = map_chunks(&items, worth_threads, <[usize]>::to_vec);
            assert_eq!(chunks.concat(), items);
        }
        let empty = map_chunks(&[] as &[usize], true, <[usize]>::len);
        assert_eq!(empty, [0]);
    }

    #[test]
    fn split_keeps_every_item_in_order() {
        for (len, parts) in [(0, 2), (1, 2), (7, 2), (7, 3), (9, 3), (5, 8)] {
            let pieces = split((0..len).collect::<Vec<usize>>(), parts);
            assert!(pieces.len() <= parts.max(1), "{len} in {parts}");
            assert_eq!(pieces.concat(), (0..len).collect::<Vec<_>>());
        }
    }

    #[test]
    fn owned_parts_are_each_run_once_in_order() {
        let parts: Vec<Vec<String>> = (0..5)
            .map(|p| (0..p).map(|i| format!("{p}.{i}")).collect())
            .collect();
        let joined = each_part(parts, |part| part.join(","));
        assert_eq!(
            joined,
            ["", "1.0", "2.0,2.1", "3.0,3.1,3.2", "4.0,4.1,4.2,4.3"]
        );
    }
}
