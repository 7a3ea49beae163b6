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

/// Whether `text` starts with `prefix`, in a const context: the compile-time checks of families
/// whose kinds are RowKey prefixes refuse a prefix of another with it.
pub(crate) const fn str_starts_with(text: &str, prefix: &str) -> bool {
    let (text, prefix) = (text.as_bytes(), prefix.as_bytes());
    if prefix.len() > text.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if text[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}
