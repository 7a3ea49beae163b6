//! The buffers large answer bodies are joined in, kept for the next large answer.
//!
//! A query page of 1 KB entities is an answer of about 1 MB that arrives in pieces and is
//! joined into one buffer for the decoder. The system allocator hands out a buffer that size
//! as fresh memory, so each page cost more in page faults (the kernel zeroing every page
//! the first time it is written) than in copying. A page's buffer is given back once the
//! page is decoded, and the next page is joined in it.

use std::sync::Mutex;

use bytes::Bytes;

/// Bodies smaller than this are joined in a fresh buffer, which the allocator serves from
/// memory it already has, and their buffers are not kept.
const LARGE: usize = 64 * 1024;

/// The largest buffer kept: a rare huge answer's buffer is freed, not held.
const LARGEST: usize = 8 * 1024 * 1024;

/// How many buffers are kept: a query stream reading ahead decodes two pages at once.
const KEPT: usize = 2;

/// The most reserved up front for a body, whatever length its head announces: the rest
/// grows as the bytes arrive, so a false `Content-Length` cannot reserve memory.
const MOST_RESERVED: usize = 4 * 1024 * 1024;

/// A few buffers of large bodies, shared by the clones of one client: the transport
/// [takes](Self::take) one to join a body in, and whoever decoded the body
/// [gives it back](Self::give_back).
#[derive(Debug, Default)]
pub(crate) struct BodyPool {
    spare: Mutex<Vec<Vec<u8>>>,
}

impl BodyPool {
    /// An empty buffer with room for `len` bytes (up to [`MOST_RESERVED`]): a kept one when
    /// the body is large.
    pub(crate) fn take(&self, len: usize) -> Vec<u8> {
        let len = len.min(MOST_RESERVED);
        let kept = match len >= LARGE {
            true => self.spare.lock().ok().and_then(|mut spare| spare.pop()),
            false => None,
        };
        let mut buffer = kept.unwrap_or_default();
        buffer.clear();
        buffer.reserve(len);
        buffer
    }

    /// Keeps the buffer of `body` for a later body, when it is large and nothing else holds
    /// it; otherwise drops it.
    pub(crate) fn give_back(&self, body: Bytes) {
        if body.len() < LARGE {
            return;
        }
        let Ok(unique) = body.try_into_mut() else {
            return;
        };
        let buffer = Vec::from(unique);
        if buffer.capacity() > LARGEST {
            return;
        }
        if let Ok(mut spare) = self.spare.lock() {
            if spare.len() < KEPT {
                spare.push(buffer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_body_given_back_is_joined_in_again() {
        let pool = BodyPool::default();
        let mut joined = pool.take(LARGE * 2);
        joined.resize(LARGE * 2, b'x');
        let address = joined.as_ptr();
        pool.give_back(Bytes::from(joined));
        let again = pool.take(LARGE);
        assert_eq!(again.as_ptr(), address);
        assert!(again.is_empty());
    }

    #[test]
    fn small_shared_and_huge_bodies_are_not_kept() {
        let pool = BodyPool::default();
        pool.give_back(Bytes::from(vec![0; LARGE - 1]));
        let shared = Bytes::from(vec![0; LARGE]);
        let _held = shared.clone();
        pool.give_back(shared);
        pool.give_back(Bytes::from(vec![0; LARGEST + 1]));
        assert!(pool.spare.lock().unwrap().is_empty());
    }

    #[test]
    fn at_most_a_few_buffers_are_kept() {
        let pool = BodyPool::default();
        for _ in 0..KEPT + 2 {
            pool.give_back(Bytes::from(vec![0; LARGE]));
        }
        assert_eq!(pool.spare.lock().unwrap().len(), KEPT);
    }

    #[test]
    fn an_announced_length_reserves_no_more_than_the_cap() {
        let pool = BodyPool::default();
        assert!(pool.take(usize::MAX).capacity() < 2 * MOST_RESERVED);
    }
}
