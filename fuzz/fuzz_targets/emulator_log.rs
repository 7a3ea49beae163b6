//! The emulator's write-ahead log as a restart reads it: the frames of a file, then each
//! frame's records; and the bytes as one group's records, which random input rarely reaches
//! through a frame's checksums. Any bytes are read or refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tablekit_emulator::fuzzing::write_ahead_log(data);
    let _ = tablekit_emulator::fuzzing::log_group(data);
});
