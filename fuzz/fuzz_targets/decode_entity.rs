//! The JSON entity and page decoders: any bytes give an entity or an error, never a panic,
//! and a decoded entity encodes and decodes back to itself. The emulator's drafting of a
//! write's body stores what decoding it stores.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tablekit::codec::{decode_entity, decode_page, encode_entity};

fuzz_target!(|data: &[u8]| {
    if let Ok(entity) = decode_entity(data) {
        let again = decode_entity(&encode_entity(&entity));
        assert!(again.is_ok(), "an entity we decoded does not decode after encoding");
    }
    let _ = decode_page(data);
    if let Err(difference) = tablekit_emulator::fuzzing::draft(data) {
        panic!("a drafted body differs from the decoded one: {difference}");
    }
});
