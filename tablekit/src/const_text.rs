//! Text in const contexts, where the compile-time checks of families and flattened names run
//! (`==` on `str` is not `const`).

/// Whether two strings are equal, in a const context (`==` is not const on `str`): the
/// compile-time checks of families and flattened names compare names with it.
pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
