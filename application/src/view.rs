//! One view of the stored data for a request's reads.
//!
//! A request that authenticates and then reads (a device, a page of
//! devices) reads the store two or more times. Run [`in_one_view`], those
//! reads may share one snapshot of the store, as Django's
//! `ATOMIC_REQUESTS` gives a request one transaction: a store that can
//! share a snapshot asks [`current`] which view a read belongs to, and
//! hands [`when_it_ends`] what closes the snapshot.
//!
//! - A view ends with its request, so the next request sees the last
//!   commit: a deleted token or device is refused or gone at once.
//! - A write ends the view's snapshot (the store sees to it), so reads that
//!   follow it see it.
//! - Only work that waits for nothing but the store may run in one view:
//!   work that waits for a signal (a long poll for new commands) and reads
//!   again would read the snapshot taken before the signal.
//! - A view is served on one thread: its future is not `Send`.

use std::cell::RefCell;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};

tokio::task_local! {
    static VIEW: View;
}

/// Which view a read belongs to: no two views of a process share one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewId(u64);

/// A view, and what its end closes.
struct View {
    id: ViewId,
    ends: RefCell<Vec<Box<dyn FnOnce()>>>,
}

impl Drop for View {
    fn drop(&mut self) {
        for end in self.ends.get_mut().drain(..) {
            end();
        }
    }
}

/// Runs `work` in a view of its own; the view ends when `work` ends or is
/// dropped. (Not an `async fn`: one would hold `work` beside the scope it
/// was moved into, twice its size for as long as it runs.)
pub fn in_one_view<F: Future>(work: F) -> impl Future<Output = F::Output> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let view = View {
        id: ViewId(NEXT.fetch_add(1, Ordering::Relaxed)),
        ends: RefCell::default(),
    };
    VIEW.scope(view, work)
}

/// The view the running work reads in, if it runs in one.
pub fn current() -> Option<ViewId> {
    VIEW.try_with(|view| view.id).ok()
}

/// Has `end` run, on the view's thread, when the current view ends.
/// Outside a view `end` is dropped unrun, and the answer is `false`.
pub fn when_it_ends(end: impl FnOnce() + 'static) -> bool {
    VIEW.try_with(|view| view.ends.borrow_mut().push(Box::new(end)))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use std::task::{Context, Waker};

    #[tokio::test]
    async fn a_view_is_known_inside_it_and_each_is_its_own() {
        assert_eq!(current(), None);
        let first = in_one_view(async { current() }).await;
        let second = in_one_view(async { current() }).await;
        assert!(first.is_some() && second.is_some());
        assert_ne!(first, second);
        assert_eq!(current(), None, "a view ends with its work");
    }

    #[tokio::test]
    async fn what_a_view_closes_is_closed_when_it_ends() {
        let closed = Rc::new(RefCell::new(Vec::new()));
        let log = Rc::clone(&closed);
        in_one_view(async move {
            let (first, second) = (Rc::clone(&log), Rc::clone(&log));
            assert!(when_it_ends(move || first.borrow_mut().push("snapshot")));
            assert!(when_it_ends(move || second.borrow_mut().push("other")));
            assert!(log.borrow().is_empty(), "not before the view ends");
        })
        .await;
        assert_eq!(*closed.borrow(), ["snapshot", "other"]);
    }

    #[tokio::test]
    async fn a_view_dropped_unfinished_still_closes_what_it_opened() {
        let closed = Rc::new(RefCell::new(false));
        let log = Rc::clone(&closed);
        let mut work = Box::pin(in_one_view(async move {
            when_it_ends(move || *log.borrow_mut() = true);
            std::future::pending::<()>().await;
        }));
        let mut context = Context::from_waker(Waker::noop());
        assert!(work.as_mut().poll(&mut context).is_pending());
        assert!(!*closed.borrow());
        drop(work);
        assert!(*closed.borrow());
    }

    #[test]
    fn a_view_holds_its_work_once() {
        let big = [0_u8; 1024];
        let work = async move { big.len() };
        let work_size = std::mem::size_of_val(&work);
        let in_view = in_one_view(work);
        let overhead = std::mem::size_of_val(&in_view) - work_size;
        assert!(overhead < 256, "a view adds {overhead} bytes to its work");
    }

    #[test]
    fn nothing_is_kept_outside_a_view() {
        let ran = Rc::new(RefCell::new(false));
        let log = Rc::clone(&ran);
        assert!(!when_it_ends(move || *log.borrow_mut() = true));
        assert!(!*ran.borrow());
    }
}
