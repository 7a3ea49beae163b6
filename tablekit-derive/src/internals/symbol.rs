//! Every attribute name the derives read, in one table: parsing compares paths with these
//! (`meta.path == RENAME`) and error messages list them, so a name is spelled once.

use std::fmt::{self, Display};

use syn::{Ident, Path};

/// An attribute name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Symbol(&'static str);

// The attributes' own names.
pub(crate) const TABLEKIT: Symbol = Symbol("tablekit");
pub(crate) const RECORD: Symbol = Symbol("record");

// Shared by the derives.
pub(crate) const CRATE: Symbol = Symbol("crate");
pub(crate) const RENAME: Symbol = Symbol("rename");
pub(crate) const DEFAULT: Symbol = Symbol("default");

// `#[derive(TableEntity)]` on the struct.
pub(crate) const TABLE: Symbol = Symbol("table");
pub(crate) const KIND: Symbol = Symbol("kind");
pub(crate) const KIND_PROPERTY: Symbol = Symbol("kind_property");
pub(crate) const KIND_PREFIX: Symbol = Symbol("kind_prefix");
pub(crate) const RENAME_ALL: Symbol = Symbol("rename_all");
pub(crate) const KEY_SEPARATOR: Symbol = Symbol("key_separator");
pub(crate) const CONSTANT: Symbol = Symbol("constant");

// `#[derive(TableEntity)]` on a field.
pub(crate) const RENAME_FROM: Symbol = Symbol("rename_from");
pub(crate) const SKIP: Symbol = Symbol("skip");
pub(crate) const PARTITION_KEY: Symbol = Symbol("partition_key");
pub(crate) const ROW_KEY: Symbol = Symbol("row_key");
pub(crate) const KEY_ONLY: Symbol = Symbol("key_only");
pub(crate) const ORDER: Symbol = Symbol("order");
pub(crate) const RECORDS: Symbol = Symbol("records");
pub(crate) const SPLIT: Symbol = Symbol("split");
pub(crate) const JSON: Symbol = Symbol("json");
pub(crate) const MAX_PROPERTIES: Symbol = Symbol("max_properties");
pub(crate) const INDEX: Symbol = Symbol("index");
pub(crate) const UNIQUE: Symbol = Symbol("unique");
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const PARTITION: Symbol = Symbol("partition");
pub(crate) const ROWS: Symbol = Symbol("rows");
pub(crate) const FLATTEN: Symbol = Symbol("flatten");
pub(crate) const PREFIX: Symbol = Symbol("prefix");

// Key part formats.
pub(crate) const TRANSFORM: Symbol = Symbol("transform");
pub(crate) const LOWERCASE: Symbol = Symbol("lowercase");
pub(crate) const UPPERCASE: Symbol = Symbol("uppercase");
pub(crate) const INVERTED_TICKS: Symbol = Symbol("inverted_ticks");
pub(crate) const TICKS: Symbol = Symbol("ticks");
pub(crate) const INVERTED: Symbol = Symbol("inverted");
pub(crate) const PAD: Symbol = Symbol("pad");
pub(crate) const FORMAT: Symbol = Symbol("format");

// `#[derive(TableEntity)]` on a variant of an enum (an entity family).
pub(crate) const OTHER: Symbol = Symbol("other");

// `#[derive(TableValue)]`.
pub(crate) const AS_NAME: Symbol = Symbol("as_name");

// `#[derive(Record)]`.
pub(crate) const VERSION: Symbol = Symbol("version");
pub(crate) const SINCE: Symbol = Symbol("since");
pub(crate) const UNTIL: Symbol = Symbol("until");

/// The key part formats, accepted inside a key role and beside it.
pub(crate) const FORMATS: &[Symbol] = &[TRANSFORM, INVERTED_TICKS, TICKS, INVERTED, PAD, FORMAT];

impl Symbol {
    pub(crate) const fn as_str(self) -> &'static str {
        self.0
    }
}

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

/// "`a`, `b`, `c`": the valid names of a position, for "expected one of" messages.
pub(crate) fn list(symbols: &[&[Symbol]]) -> String {
    symbols
        .iter()
        .flat_map(|group| group.iter())
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compare_with_symbols_by_their_single_segment() {
        let rename: Path = syn::parse_quote!(rename);
        let qualified: Path = syn::parse_quote!(a::rename);
        assert!(rename == RENAME);
        assert!(qualified != RENAME);
        assert_eq!(
            list(&[&[RENAME, SKIP], &[JSON]]),
            "`rename`, `skip`, `json`"
        );
    }
}
