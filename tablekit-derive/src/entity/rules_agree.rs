//! For any text, the derive's verdict on a model that uses it as a table name, a stored
//! property name, a constant key part, a key separator or a key format equals the runtime's
//! verdict on the same text through its public validators. Both are `tablekit_rules`' today;
//! this keeps a future change to either side from drifting unnoticed (the derive once accepted
//! `rename = "½x"`, which the runtime then refused on every write).

use proc_macro2::{Span, TokenStream};
use proptest::prelude::*;
use quote::quote;
use syn::LitStr;
use tablekit::keys::{self, TimeFormat};
use tablekit::limits;
use tablekit::{InvalidInput, KeyKind};

use super::ast::Container;
use super::{check, expand};
use crate::internals::ctxt::Ctxt;
use crate::internals::fallback::Mode;

/// The derive's error messages on `input`, and its complete expansion when it has none.
fn derive(input: TokenStream) -> Result<String, String> {
    let input: syn::DeriveInput = syn::parse2(input).map_err(|e| e.to_string())?;
    let cx = Ctxt::new();
    let container = Container::from_ast(&cx, &input);
    check::check(&cx, &container);
    match cx.check() {
        Ok(()) => Ok(expand::expand(&container, Mode::Complete).to_string()),
        Err(errors) => Err(errors
            .into_iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

/// Whether the derive reports an error starting with `prefix` for `input`.
fn refuses(input: TokenStream, prefix: &str) -> bool {
    derive(input).is_err_and(|errors| errors.lines().any(|e| e.starts_with(prefix)))
}

fn lit(text: &str) -> LitStr {
    LitStr::new(text, Span::call_site())
}

/// Texts near every rule's edges, and arbitrary ones.
fn texts() -> impl Strategy<Value = String> {
    let tricky = [
        "",
        "_",
        "a",
        "ab",
        "abc",
        "½x",
        "x½",
        "٣a",
        "a٣",
        "Größe",
        "tables",
        "Tables",
        "tables1",
        "PartitionKey",
        "RowKey",
        "Timestamp",
        "timestamp",
        "a b",
        "a-b",
        "a/b",
        "a#b",
        "a?b",
        "a\\b",
        "\u{0}",
        "\u{7f}",
        "\u{85}",
        "\u{9f}",
        "\u{a0}",
        "😀",
        "yyyy",
        "yyyyMMdd",
        "yyyy-MM-dd HH:mm:ss",
        "ddMMyyyy",
        "yyyydd",
        "YYYY",
        "%Y",
        "yyyy/MM",
        "--",
        "ticks",
        "inverted_ticks",
        "inverted_year_month",
    ];
    let pieces = [
        "yyyy", "MM", "dd", "HH", "mm", "ss", "y", "M", "Y", "-", "_", " ", ":", "/", "#", "%",
        "é", "½", "٣", "\u{85}", "😀", "a", "Z", "9",
    ];
    prop_oneof![
        proptest::sample::select(tricky.to_vec()).prop_map(str::to_owned),
        proptest::collection::vec(proptest::sample::select(pieces.to_vec()), 0..8)
            .prop_map(|p| p.concat()),
        "[A-Za-z_][A-Za-z0-9_]{0,70}",
        (1usize..3, 250usize..262).prop_map(|(c, n)| ["a", "é", "😀"][c].repeat(n)),
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn table_names(name in texts()) {
        let table = lit(&name);
        let derive = refuses(
            quote!(#[tablekit(table = #table)] struct M { #[tablekit(partition_key)] k: String }),
            "invalid table name",
        );
        let runtime = limits::validate_table_name(&name).is_err();
        prop_assert_eq!(derive, runtime, "{:?}", name);
    }

    #[test]
    fn property_names(name in texts()) {
        let rename = lit(&name);
        let derive = refuses(
            quote!(struct M { #[tablekit(partition_key)] k: String, #[tablekit(rename = #rename)] v: i32 }),
            "invalid stored property name",
        );
        let runtime = limits::validate_property_name(&name).is_err();
        prop_assert_eq!(derive, runtime, "{:?}", name);
    }

    #[test]
    fn constant_key_parts(text in texts()) {
        let constant = lit(&text);
        let derive = refuses(
            quote!(#[tablekit(row_key(constant = #constant))] struct M { #[tablekit(partition_key)] k: String }),
            "constant key part",
        );
        let runtime = limits::validate_key(KeyKind::RowKey, &text).is_err();
        prop_assert_eq!(derive, runtime, "{:?}", text);
    }

    #[test]
    fn key_separators(separator in texts()) {
        let sep = lit(&separator);
        let derive = refuses(
            quote!(#[tablekit(key_separator = #sep)] struct M { #[tablekit(partition_key)] k: String }),
            "`key_separator` contains",
        );
        let runtime = matches!(
            limits::validate_key(KeyKind::RowKey, &separator),
            Err(InvalidInput::KeyCharacter { .. })
        );
        prop_assert_eq!(derive, runtime, "{:?}", separator);
    }

    #[test]
    fn date_patterns_and_their_time_ranges(pattern in texts()) {
        let format = lit(&pattern);
        let derive = derive(quote!(struct M { #[tablekit(partition_key(format = #format))] at: DateTime<Utc> }));
        let named = matches!(pattern.as_str(), "ticks" | "inverted_ticks" | "inverted_year_month");
        prop_assert_eq!(
            derive.is_ok(),
            named || keys::is_valid_date_format(&pattern),
            "{:?}: {:?}", pattern, derive
        );
        if let (Ok(expansion), false) = (&derive, named) {
            let between = expansion.contains("partition_key_between");
            prop_assert_eq!(between, keys::date_format_sorts_by_time(&pattern), "{:?}", pattern);
            prop_assert_eq!(between, TimeFormat::date(&pattern).is_some(), "{:?}", pattern);
        }
    }
}

#[test]
fn the_half_sign_is_refused_on_both_sides() {
    assert!(refuses(
        quote!(
            struct M {
                #[tablekit(partition_key)]
                k: String,
                #[tablekit(rename = "½x")]
                v: i32,
            }
        ),
        "invalid stored property name `½x`: a property name starts with a letter or `_`",
    ));
    assert!(limits::validate_property_name("½x").is_err());
}
