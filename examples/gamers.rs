//! Seed 001's gamers: typed entities with defaults, kept as dynamic entities underneath.
//!
//! Run with `cargo run --example gamers`.

use tablekit::{codec, DynamicEntity};

fn main() -> Result<(), tablekit::Error> {
    let mut gamer = DynamicEntity::new("dragon", "");
    gamer.set("GamerTag", "Dragon");
    gamer.set("Score", 10);
    let body = codec::encode_entity(&gamer);
    println!("insert body: {}", String::from_utf8_lossy(&body));
    let back = codec::decode_entity(&body)?;
    println!(
        "read back: tag={} score={} lives={} (default)",
        back.get_or("GamerTag", String::new()),
        back.get_or("Score", 0),
        back.get_or("Lives", 3)
    );
    println!("entity size: {} bytes", back.size());
    Ok(())
}
