//! Hints that start loading memory a scan will read a little later.
//!
//! A scan of a large table spends most of its time waiting for memory: each stored entity,
//! then its property list, is rarely in cache, and each load waits for the one before it.
//! Asking for the memory of the entities a few places ahead lets those loads overlap.

/// Starts loading the cache line that holds `address`. A hint only: it reads nothing the
/// program sees and never faults, so any address, even a dangling one, is allowed.
///
/// Processors without a prefetch instruction in stable Rust ignore it.
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` dereferences nothing and changes no state the program can
    // observe, whatever the address; SSE, which provides it, is part of every x86-64.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Starts loading every cache line of the `len` bytes at `start`.
#[inline(always)]
pub(crate) fn prefetch_bytes(start: *const u8, len: usize) {
    const LINE: usize = 64;
    let end = start as usize % LINE + len;
    let mut offset = 0;
    while offset < end {
        prefetch(start.wrapping_add(offset));
        offset += LINE;
    }
}
