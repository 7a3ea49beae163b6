//! The emulator's `$filter` handling, from the query string to the answer: a query of a
//! table of sample entities and a table listing, both with the input as their filter.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let [entities, tables] = tablekit_emulator::fuzzing::filter(text);
        // One parser reads both: a filter is valid for both or for neither.
        assert_eq!(entities.status, tables.status, "{text:?}");
        assert!(matches!(entities.status, 200 | 400), "{text:?}: {}", entities.status);
    }
});
