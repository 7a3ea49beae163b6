//! Arbitrary property contents into the split reader: a value or a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tablekit::{split, DynamicEntity};

fuzz_target!(|parts: Vec<Vec<u8>>| {
    let mut e = DynamicEntity::new("p", "r");
    for (index, part) in parts.into_iter().take(8).enumerate() {
        e.set(split::chunk_name("V", index), part);
    }
    if let Ok(Some(value)) = split::read_split(&e, "V") {
        let mut again = DynamicEntity::new("p", "r");
        if value.len() <= split::max_bytes(8) {
            split::write_split(&mut again, "V", &value, 8).expect("a value within the budget fits");
            assert_eq!(split::read_split(&again, "V").ok().flatten(), Some(value));
        }
    }
    let _ = split::stale_chunks(&e, "V");
});
