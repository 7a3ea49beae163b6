//! The standalone emulator.
fn main() {}
