//! Compile-fail tests: each case is a mistake and the message designed for it, and goes on to
//! use what the derive generates, which must add no error of its own. Pass cases compile and
//! run. The expected output depends on the compiler, pinned in rust-toolchain.toml; regenerate
//! with `TRYBUILD=overwrite cargo test --test ui` and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for folder in ["derive", "filter", "value"] {
        t.compile_fail(format!("tests/ui/{folder}/*.rs"));
    }
    t.pass("tests/ui/pass/*.rs");
}
