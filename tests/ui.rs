//! Compile-fail tests: each case is a mistake and the message designed for it. The expected
//! output depends on the compiler, pinned in rust-toolchain.toml; regenerate with
//! `TRYBUILD=overwrite cargo test --test ui` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
