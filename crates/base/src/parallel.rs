//! Independent work spread over the machine's cores, results in input order.
//!
//! Reading and parsing the files of a large suite are independent per file, and so are
//! resolving and checking its cases; on a machine with several cores they take most of
//! a build. Results always come back in the order of the input, so nothing downstream
//! depends on the threads.
//!
//! rayon does the work: its ordered parallel maps, in a pool of casec's own (sized by
//! [`part_count`], each thread with the main thread's stack), so that a program that
//! embeds casec keeps its global pool. Work stealing balances cases of different cost
//! (one category's carry more text). What is casec's own here is how work is cut: small
//! batches are not split further, a worker's state ([`map_with`]) is made a few times
//! per worker and not per item, and the master writer streams ([`map_streamed`]): the
//! next window of cases is rendered while the calling thread copies out the one before.
//! `each_part` gives every part a thread of its own, for work that waits (a judge's
//! requests) rather than computes.

use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

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

/// casec's thread pool, made on first use with [`part_count`] threads; `None` when one
/// thread is asked for, or the system gives none (then work runs on the calling thread).
fn pool() -> Option<&'static ThreadPool> {
    static POOL: OnceLock<Option<ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let threads = part_count();
        if threads < 2 {
            return None;
        }
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(WORKER_STACK_BYTES)
            .thread_name(|i| format!("casec-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// How many batches each worker gets on average: a worker's state ([`map_with`]) is
/// made once per batch, so a few per worker, while batches stay small enough that a
/// worker whose batches cost more is helped by the others instead of finishing alone.
const BATCHES_PER_WORKER: usize = 8;

/// Below this many items a batch is not split further: handing out a batch costs a
/// little, which must stay small beside the work in it.
const MIN_BATCH: usize = 8;

/// `f` applied to every item, on every core when `worth_threads` (the caller knows
/// whether there is enough work to repay waking threads); results in item order.
pub fn map<'a, T: Sync, R: Send>(
    items: &'a [T],
    worth_threads: bool,
    f: impl Fn(&'a T) -> R + Sync,
) -> Vec<R> {
    match pool().filter(|_| worth_threads) {
        Some(pool) => pool.install(|| items.par_iter().with_min_len(MIN_BATCH).map(&f).collect()),
        None => items.iter().map(f).collect(),
    }
}

/// `f` applied to every item with a state made by `init` once per batch of consecutive
/// items (a few batches per worker): for work that keeps what earlier items shared (a
/// cache of texts split into words). A batch is taken in item order, so its state has
/// only seen items before the current one. Results in item order.
pub fn map_with<'a, T: Sync, S, R: Send>(
    items: &'a [T],
    worth_threads: bool,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &'a T) -> R + Sync,
) -> Vec<R> {
    match pool().filter(|_| worth_threads) {
        Some(pool) => pool.install(|| {
            let batch = batch_size(items.len(), pool.current_num_threads());
            items
                .par_iter()
                .with_min_len(batch)
                .map_init(&init, &f)
                .collect()
        }),
        None => {
            let mut state = init();
            items.iter().map(|item| f(&mut state, item)).collect()
        }
    }
}

/// `f` applied to consecutive batches of `items`, each moved into it (so that what an
/// item holds can be dropped as soon as it is done), on up to `workers` threads (`1`:
/// on the calling thread, all at once); results in batch order.
pub fn map_batches<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(Vec<T>) -> R + Sync,
) -> Vec<R> {
    match pool().filter(|_| workers >= 2) {
        Some(pool) => pool.install(|| {
            let batch = batch_size(items.len(), workers);
            items.into_par_iter().chunks(batch).map(&f).collect()
        }),
        None if items.is_empty() => Vec::new(),
        None => vec![f(items)],
    }
}

/// The size of the batches `len` items are handed out to `workers` in.
fn batch_size(len: usize, workers: usize) -> usize {
    len.div_ceil(workers * BATCHES_PER_WORKER).max(MIN_BATCH)
}

/// How many batches of rendered items [`map_streamed`] holds per worker: one window
/// rendering while the one before is consumed, so that workers never wait on a
/// consumer that keeps up, and what waits stays small.
const STREAM_WINDOW_PER_WORKER: usize = 2;

/// `render` applied to every item on the pool's threads while the calling thread
/// `consume`s the results in item order: a writer that copies rendered text out while
/// the next is rendered. Items go in windows of a few batches of `batch` per worker,
/// one rendering while the one before is consumed, so memory does not grow with
/// `items`. Stops at `consume`'s first error, which it returns; a panic in `render`
/// or `consume` is resumed here. On one core, renders and consumes each item in turn.
pub fn map_streamed<T: Sync, R: Send, E>(
    items: &[T],
    batch: usize,
    render: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    let Some(pool) = pool() else {
        return items.iter().try_for_each(|item| consume(render(item)));
    };
    let window = batch.max(1) * pool.current_num_threads() * STREAM_WINDOW_PER_WORKER;
    let render_all = |window: &[T]| -> Vec<R> {
        window
            .par_iter()
            .with_min_len(batch.max(1))
            .map(&render)
            .collect()
    };
    let mut windows = items.chunks(window);
    let mut ready = windows
        .next()
        .map(|first| pool.install(|| render_all(first)));
    while let Some(rendered) = ready.take() {
        let mut consumed = Ok(());
        // `consume` runs here, on the calling thread, while the pool renders the next.
        pool.in_place_scope(|scope| {
            if let Some(next) = windows.next() {
                scope.spawn(|_| ready = Some(render_all(next)));
            }
            consumed = rendered.into_iter().try_for_each(&mut consume);
        });
        consumed?;
    }
    Ok(())
}

/// `items` as at most `parts` consecutive parts of (nearly) equal size, in order; one
/// part, possibly empty, when there are no items.
pub fn split<T>(mut items: Vec<T>, parts: usize) -> Vec<Vec<T>> {
    let size = items.len().div_ceil(parts.max(1)).max(1);
    let mut out = Vec::with_capacity(parts.max(1));
    while items.len() > size {
        let rest = items.split_off(size);
        out.push(std::mem::replace(&mut items, rest));
    }
    out.push(items);
    out
}

/// `f` applied to each part, each on a thread of its own (here, when there is one part
/// or no thread can be started); results in the order of `parts`. A panic in `f` is
/// resumed here. Threads, not the pool: the parts wait on the network, not a core.
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{
        each_part, map, map_batches, map_streamed, map_with, part_count, split, BATCHES_PER_WORKER,
    };

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
    fn a_workers_state_has_seen_only_earlier_items() {
        let items: Vec<usize> = (0..1001).collect();
        let starts = AtomicUsize::new(0);
        for worth_threads in [false, true] {
            let seen = map_with(
                &items,
                worth_threads,
                || {
                    starts.fetch_add(1, Ordering::Relaxed);
                    None::<usize>
                },
                |last, &n| {
                    let before = last.replace(n);
                    assert!(before.is_none_or(|b| b < n), "{before:?} then {n}");
                    n
                },
            );
            assert_eq!(seen, items);
        }
        // A few states per worker, not one per item.
        let most = 1 + part_count() * BATCHES_PER_WORKER;
        assert!(starts.load(Ordering::Relaxed) <= most);
    }

    #[test]
    fn batches_take_every_item_once_in_order() {
        for workers in [1, 2, 3, 8] {
            for len in [0, 1, 7, 100, 1001] {
                let items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
                let batches = map_batches(items.clone(), workers, |batch| batch);
                assert_eq!(batches.concat(), items, "{len} items on {workers} workers");
                if workers == 1 {
                    assert_eq!(batches.len(), usize::from(len > 0));
                }
            }
        }
    }

    #[test]
    fn a_stream_is_consumed_in_order() {
        let items: Vec<usize> = (0..5000).collect();
        for batch in [1, 64, 10_000] {
            let mut out = Vec::new();
            let done: Result<(), ()> = map_streamed(
                &items,
                batch,
                |n| n * 3,
                |n| {
                    out.push(n);
                    Ok(())
                },
            );
            assert_eq!(done, Ok(()));
            assert_eq!(out, items.iter().map(|n| n * 3).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_stream_stops_at_the_consumers_first_error() {
        let items: Vec<usize> = (0..5000).collect();
        let rendered = AtomicUsize::new(0);
        let mut consumed = 0;
        let done = map_streamed(
            &items,
            8,
            |&n| {
                rendered.fetch_add(1, Ordering::Relaxed);
                n
            },
            |n| {
                consumed += 1;
                if n == 100 {
                    Err(n)
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(done, Err(100));
        assert_eq!(consumed, 101);
        // Workers render a few batches ahead at most, not the rest of the items.
        assert!(rendered.load(Ordering::Relaxed) < 1000);
    }

    /// Whether streaming 5,000 items in batches of 8 panics (and returns at all: the
    /// workers must not be left waiting for a consumer that is gone).
    fn streaming_panics(
        render: impl Fn(&usize) -> usize + Sync,
        consume: impl FnMut(usize) -> Result<(), ()>,
    ) -> bool {
        let items: Vec<usize> = (0..5000).collect();
        let run = std::panic::AssertUnwindSafe(|| map_streamed(&items, 8, render, consume));
        std::panic::catch_unwind(run).is_err()
    }

    #[test]
    fn a_panic_while_streaming_is_resumed() {
        let render = |&n: &usize| {
            assert_ne!(n, 777, "render fails");
            n
        };
        assert!(streaming_panics(render, |_| Ok(())));
    }

    #[test]
    fn a_panic_of_the_consumer_stops_the_stream() {
        let consume = |n: usize| {
            assert_ne!(n, 100, "consume fails");
            Ok(())
        };
        assert!(streaming_panics(|&n| n, consume));
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
