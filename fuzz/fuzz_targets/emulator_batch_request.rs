//! The emulator's `$batch` handling, from the multipart parser to the all-or-nothing
//! execution and the answer: the first line of the input is the Content-Type header, the
//! rest the body. A batch the emulator accepts is answered in a form the client reads.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|b| *b == b'\n').unwrap_or(data.len());
    let (head, body) = data.split_at(split);
    let content_type = String::from_utf8_lossy(head);
    let Some(answer) = tablekit_emulator::fuzzing::batch_request(&content_type, body) else {
        return;
    };
    assert_ne!(answer.status, 500, "a batch broke the emulator");
    if answer.status == 202 {
        let parsed = tablekit::fuzzing::batch_response(&answer.content_type, &answer.body);
        assert!(parsed.is_some(), "the client cannot read the emulator's batch answer");
    }
});
