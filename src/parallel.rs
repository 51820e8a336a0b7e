//! Independent work spread over the machine's cores, results in input order.
//!
//! Reading and parsing the files of a large suite are independent per file, and so are
//! resolving and checking its cases; on a machine with several cores they take most of
//! a build. Results always come back in the order of the input, so nothing downstream
//! depends on the threads.
//!
//! Work is handed out in batches, several per core, each worker taking the next one
//! (the calling thread is a worker too): cases differ in cost (one category's carry
//! more text), and a fixed half per core would leave one core idle while the other
//! finishes its harder half. The master writer streams ([`map_streamed`]): cases are
//! rendered on the other cores while it copies out the ones before. `each_part` gives
//! every part a thread of its own, for work that waits (a judge's requests) rather than
//! computes.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

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

/// How many batches each worker gets on average. Work is handed out a batch at a time,
/// so a worker whose batches cost more (one category's cases carry more text than
/// another's) is helped by the others instead of finishing alone while they idle.
const BATCHES_PER_WORKER: usize = 8;

/// Below this many items a batch is not split further: handing out a batch costs a
/// lock, which must stay small beside the work in it.
const MIN_BATCH: usize = 8;

/// `f` applied to every item, on every core when `worth_threads` (the caller knows
/// whether there is enough work to repay starting threads); results in item order.
pub fn map<'a, T: Sync, R: Send>(
    items: &'a [T],
    worth_threads: bool,
    f: impl Fn(&'a T) -> R + Sync,
) -> Vec<R> {
    map_with(items, worth_threads, || (), |(), item| f(item))
}

/// `f` applied to every item with a state of the worker it runs on, made by `init`
/// once per worker: for work that keeps what earlier items shared (a cache of texts
/// split into words). A worker takes batches in item order, so its state has only seen
/// items before the current one. Results in item order.
pub fn map_with<'a, T: Sync, S, R: Send>(
    items: &'a [T],
    worth_threads: bool,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &'a T) -> R + Sync,
) -> Vec<R> {
    let workers = workers_for(worth_threads);
    let batches: Vec<&'a [T]> = items.chunks(batch_size(items.len(), workers)).collect();
    pooled(batches.len(), workers, init, |state, i| {
        batches[i]
            .iter()
            .map(|item| f(state, item))
            .collect::<Vec<R>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `f` applied to consecutive batches of `items`, each moved into it (so that what an
/// item holds can be dropped as soon as it is done), on up to `workers` threads (`1`:
/// on the calling thread, all at once); results in batch order.
pub fn map_batches<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(Vec<T>) -> R + Sync,
) -> Vec<R> {
    let batch = batch_size(items.len(), workers);
    let slots: Vec<Mutex<Option<Vec<T>>>> = chunks_owned(items, batch)
        .into_iter()
        .map(|b| Mutex::new(Some(b)))
        .collect();
    pooled(
        slots.len(),
        workers,
        || (),
        |(), i| f(lock(&slots[i]).take().unwrap_or_default()),
    )
}

/// How many workers to use: every core when threads are worth it, else one.
fn workers_for(worth_threads: bool) -> usize {
    if worth_threads {
        part_count()
    } else {
        1
    }
}

/// The size of the batches `len` items are handed out to `workers` in: all at once for
/// one worker.
fn batch_size(len: usize, workers: usize) -> usize {
    if workers < 2 {
        return len.max(1);
    }
    len.div_ceil(workers * BATCHES_PER_WORKER).max(MIN_BATCH)
}

/// `items` in consecutive batches of `size` (the last may be smaller), in order.
fn chunks_owned<T>(items: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut out = Vec::with_capacity(items.len().div_ceil(size.max(1)));
    let mut items = items.into_iter();
    loop {
        let batch: Vec<T> = items.by_ref().take(size.max(1)).collect();
        if batch.is_empty() {
            return out;
        }
        out.push(batch);
    }
}

/// `run` applied to each task `0..tasks` on up to `workers` threads (the calling
/// thread among them), each taking the next task not yet taken and keeping a state
/// made by `init`; results in task order. A panic in `run` is resumed here.
fn pooled<S, R: Send>(
    tasks: usize,
    workers: usize,
    init: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, usize) -> R + Sync,
) -> Vec<R> {
    let workers = workers.min(tasks);
    if workers < 2 {
        let mut state = init();
        return (0..tasks).map(|i| run(&mut state, i)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= tasks {
                return done;
            }
            done.push((i, run(&mut state, i)));
        }
    };
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let helpers = spawn_helpers(scope, workers - 1, work);
        // The calling thread works too; a helper that could not start leaves its share
        // to the others.
        let mut done = work();
        done.extend(join_helpers(helpers).into_iter().flatten());
        done
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Tasks done ahead of [`stream`]'s consumer, at most this many per worker: enough
/// that the workers never wait on a consumer that keeps up, few enough that what waits
/// stays small.
const STREAM_AHEAD_PER_WORKER: usize = 4;

/// What [`stream`]'s workers and its consumer share.
struct Stream<R> {
    /// The next task to run.
    next: usize,
    /// The tasks the consumer has taken.
    taken: usize,
    /// Results not yet taken, by task.
    ready: BTreeMap<usize, R>,
    /// The consumer stopped, or a worker panicked: no more tasks.
    stop: bool,
}

/// `render` applied to every item on up to [`part_count`] other threads, in batches of
/// `batch`, while the calling thread `consume`s the results in item order as they come:
/// a writer that copies rendered text out while the next is rendered. At most a few
/// batches per worker wait ahead of the consumer, so memory does not grow with
/// `items`. Stops at `consume`'s first error, which it returns; a panic in `render`
/// is resumed here. On one core, renders and consumes each item in turn.
pub fn map_streamed<T: Sync, R: Send, E>(
    items: &[T],
    batch: usize,
    render: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    if part_count() < 2 {
        return items.iter().try_for_each(|item| consume(render(item)));
    }
    let batches: Vec<&[T]> = items.chunks(batch.max(1)).collect();
    let run = |i: usize| batches[i].iter().map(&render).collect::<Vec<R>>();
    stream(batches.len(), part_count(), run, |rendered| {
        rendered.into_iter().try_for_each(&mut consume)
    })
}

/// `run` applied to each task `0..tasks` on up to `workers` other threads, each taking
/// the next task not yet taken, while the calling thread `consume`s the results in
/// task order as they come, with at most [`STREAM_AHEAD_PER_WORKER`] per worker
/// waiting. Stops at `consume`'s first error, which it returns; a panic in `run` is
/// resumed here. With one worker, or one task, or no thread to be had, runs and
/// consumes each task in turn on the calling thread.
fn stream<R: Send, E>(
    tasks: usize,
    workers: usize,
    run: impl Fn(usize) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    if workers < 2 || tasks < 2 {
        return (0..tasks).try_for_each(|i| consume(run(i)));
    }
    let ahead = workers * STREAM_AHEAD_PER_WORKER;
    let shared = Mutex::new(Stream {
        next: 0,
        taken: 0,
        ready: BTreeMap::new(),
        stop: false,
    });
    let changed = Condvar::new();
    let work = || {
        // A panic in `run` stops the stream and wakes the consumer.
        let _wake = StopOnPanic(&shared, &changed);
        loop {
            let i = {
                let mut s = lock(&shared);
                while !s.stop && s.next < tasks && s.next >= s.taken + ahead {
                    s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
                }
                if s.stop || s.next >= tasks {
                    return;
                }
                s.next += 1;
                s.next - 1
            };
            let done = run(i);
            lock(&shared).ready.insert(i, done);
            changed.notify_all();
        }
    };
    std::thread::scope(|scope| {
        let helpers = spawn_helpers(scope, workers.min(tasks), work);
        if helpers.is_empty() {
            return (0..tasks).try_for_each(|i| consume(run(i)));
        }
        // A panic in `consume` stops the workers too, or the scope would wait for
        // them forever.
        let _stop = StopOnPanic(&shared, &changed);
        let result = (0..tasks).try_for_each(|i| {
            let done = {
                let mut s = lock(&shared);
                loop {
                    if let Some(done) = s.ready.remove(&i) {
                        s.taken = i + 1;
                        break Some(done);
                    }
                    if s.stop {
                        break None;
                    }
                    s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
                }
            };
            changed.notify_all();
            // No result and stopped: a worker panicked, which is resumed below.
            done.map_or(Ok(()), &mut consume)
        });
        lock(&shared).stop = true;
        changed.notify_all();
        join_helpers(helpers);
        result
    })
}

/// Up to `count` threads of `scope` running `work`, each with a worker's stack: fewer
/// when the system has no more threads to give.
fn spawn_helpers<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    count: usize,
    work: impl FnOnce() -> T + Send + Copy + 'scope,
) -> Vec<std::thread::ScopedJoinHandle<'scope, T>> {
    (0..count)
        .filter_map(|_| {
            std::thread::Builder::new()
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, work)
                .ok()
        })
        .collect()
}

/// What each helper returned, in order; a helper's panic is resumed here.
fn join_helpers<T>(helpers: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    helpers
        .into_iter()
        .map(|helper| {
            helper
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
        .collect()
}

/// Sets a stream's `stop` when its thread unwinds from a panic, and wakes the others.
struct StopOnPanic<'a, R>(&'a Mutex<Stream<R>>, &'a Condvar);

impl<R> Drop for StopOnPanic<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            lock(self.0).stop = true;
            self.1.notify_all();
        }
    }
}

/// A lock on `m`, even if a thread panicked holding it (the data is only ever whole).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{each_part, map, map_batches, map_streamed, map_with, part_count, split};

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
        // One state per worker, not per batch.
        assert!(starts.load(Ordering::Relaxed) <= 1 + part_count());
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
