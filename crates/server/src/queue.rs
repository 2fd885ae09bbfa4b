//! The in-memory side of the check queue: ids waiting for a worker, in order. The
//! durable side is [`CheckStore`](crate::CheckStore); at start-up every pending check
//! found on disk is pushed here again.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Semaphore;

/// Check ids waiting for a worker; workers wait on it without polling.
#[derive(Debug)]
pub(crate) struct Queue {
    items: Mutex<VecDeque<String>>,
    /// One permit per queued id, so a worker sleeps until there is one.
    ready: Semaphore,
}

impl Queue {
    pub(crate) fn new() -> Self {
        Self { items: Mutex::new(VecDeque::new()), ready: Semaphore::new(0) }
    }

    pub(crate) fn push(&self, id: String) {
        self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push_back(id);
        self.ready.add_permits(1);
    }

    /// The next id, waiting for one if the queue is empty.
    pub(crate) async fn pop(&self) -> Option<String> {
        let permit = self.ready.acquire().await.ok()?;
        permit.forget();
        self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop_front()
    }

    /// 0-based place of `id` in the queue, if it is waiting.
    pub(crate) fn position(&self, id: &str) -> Option<usize> {
        self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().position(|x| x == id)
    }

    pub(crate) fn len(&self) -> usize {
        self.items.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn pops_in_push_order_and_knows_positions() {
        let q = Queue::new();
        q.push("a".into());
        q.push("b".into());
        assert_eq!(q.position("b"), Some(1));
        assert_eq!(q.pop().await.as_deref(), Some("a"));
        assert_eq!(q.position("b"), Some(0));
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop().await.as_deref(), Some("b"));
        assert_eq!(q.position("b"), None);
    }
}
