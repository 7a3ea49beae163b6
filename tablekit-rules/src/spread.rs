//! How far a value may spread over continuation rows: the derive refuses a field declaring
//! more rows than the runtime writes, and both count with these.

/// How many 64 KiB chunks one continuation row holds. Azure counts a binary value's bytes
/// toward the 1 MiB entity limit, Azurite its request body, where base64 makes each chunk
/// 87,384 characters: 11 chunks (720,896 bytes) pass both, 12 do not.
///
/// ```
/// use tablekit_rules::SPREAD_CHUNKS_PER_ROW;
/// assert!(SPREAD_CHUNKS_PER_ROW * 64 * 1024 < 1024 * 1024);
/// ```
pub const SPREAD_CHUNKS_PER_ROW: usize = 11;

/// The most continuation rows a field may declare, far more than one 4 MiB transaction
/// carries: the split header counts at most 252 chunks, and `1 + 16 x 11 = 177` of them fit.
///
/// ```
/// use tablekit_rules::{SPREAD_CHUNKS_PER_ROW, SPREAD_MAX_ROWS};
/// assert!(1 + SPREAD_MAX_ROWS * SPREAD_CHUNKS_PER_ROW <= 252);
/// ```
pub const SPREAD_MAX_ROWS: usize = 16;
