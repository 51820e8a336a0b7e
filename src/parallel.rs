//! Independent work spread over the machine's cores, results in input order.
//!
//! Reading and parsing the files of a large suite are independent per file; on a
//! machine with several cores they take most of a build. Results always come back in
//! the order of the input, so nothing downstream depends on the threads.

/// Stack of each worker: the main thread's usual size, so that the nesting depth
/// pest's stack guard accepts does not depend on which thread parses a file.
const WORKER_STACK_BYTES: usize = 8 << 20;

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

/// `f` applied to consecutive chunks of `items`, one chunk per thread when
/// `worth_threads`, else to all the items at once; results in chunk order. For work
/// that keeps state from item to item, such as a cache of what earlier items shared.
pub fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    worth_threads: bool,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if !worth_threads || threads < 2 {
        return vec![f(items)];
    }
    let f = &f;
    let per_thread = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per_thread)
            .map(|part| {
                let worker = std::thread::Builder::new()
                    .stack_size(WORKER_STACK_BYTES)
                    .spawn_scoped(scope, move || f(part));
                (part, worker)
            })
            .collect();
        workers
            .into_iter()
            .map(|(part, worker)| match worker {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to spare: do this part here instead.
                Err(_) => f(part),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::{map, map_chunks};

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
}
