//! The emulator's `$batch` request parser: the first line of the input is the Content-Type
//! header, the rest the body.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|b| *b == b'\n').unwrap_or(data.len());
    let (head, body) = data.split_at(split);
    let content_type = String::from_utf8_lossy(head);
    let _ = tablekit_testing::fuzzing::batch_request(&content_type, body);
});
