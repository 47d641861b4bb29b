//! Sorting with one copy of the sort. The standard library's sort is compiled anew for every
//! element type and comparison it is called with (about 12 kB of WebAssembly each time: the
//! crate's were about 75 kB of the page's 1.34 MB gzipped download, scripts/first-load.mjs). Here the comparison
//! reaches the sort as one `dyn` closure over positions, so the sort itself exists once, and
//! the items are then moved into place. All sorts are stable.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal items in their order.
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = positions_by(items.len(), &|a, b| compare(&items[a], &items[b]));
    permute(items, order);
}

pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The positions `0..len` in the order `compare` gives them (equal ones as they come).
#[inline(never)]
pub fn positions_by(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves `items[order[i]]` to `i` for every `i`, one cycle of the permutation at a time.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start || from == at {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn sorts_as_the_standard_library_does(items in proptest::collection::vec((0u8..4, any::<u16>()), 0..200)) {
            let mut ours = items.clone();
            sort_by_key(&mut ours, |item| item.0);
            let mut theirs = items;
            theirs.sort_by_key(|item| item.0);
            prop_assert_eq!(ours, theirs);
        }
    }
}
