//! `#[derive(Record)]`: a versioned binary record from a struct's fields.
//!
//! The pipeline of the other derives: `ast` parses the attributes into an IR, `check` checks
//! the rules between them, `expand` generates from the IR, with the shared fallback after a
//! designed error.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::internals::ctxt::Ctxt;
use crate::internals::fallback;

mod ast;
mod check;
mod expand;

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let record = ast::Record::from_ast(&cx, input);
    check::check(&cx, &record);
    fallback::expand(cx.check(), |mode| expand::expand(&record, mode))
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    /// Every error message of the derive on `input`, joined.
    fn errors_of(input: DeriveInput) -> String {
        let cx = Ctxt::new();
        let record = ast::Record::from_ast(&cx, &input);
        check::check(&cx, &record);
        match cx.check() {
            Ok(()) => panic!("expected an error"),
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    #[test]
    fn parses_versions_and_field_ranges() {
        let input: DeriveInput = parse_quote! {
            #[record(version = 3)]
            struct S { a: u8, #[record(since = 1, until = 3, default = 7)] b: u8 }
        };
        let cx = Ctxt::new();
        let record = ast::Record::from_ast(&cx, &input);
        cx.check().unwrap();
        assert_eq!(record.version, 3);
        assert_eq!(
            (record.fields[1].since, record.fields[1].until),
            (1, Some(3))
        );
        assert!(record.fields[1].default.is_some());
    }

    #[test]
    fn reports_every_bad_attribute_at_once() {
        let message = errors_of(parse_quote! {
            #[record(version = 1)]
            struct S { #[record(since = 2)] a: u8, #[record(sinse = 1)] b: u8 }
        });
        assert!(
            message.contains("field added `since = 2` but the record writes `version = 1`"),
            "{message}"
        );
        assert!(
            message.contains(
                "unknown record attribute `sinse`, expected one of `since`, `until`, `default`"
            ),
            "{message}"
        );
    }

    #[test]
    fn rejects_bad_ranges_duplicates_enums_and_empty_records() {
        let message = errors_of(parse_quote! {
            #[record(version = 2)]
            struct S { a: u8, #[record(since = 2, until = 1)] b: u8, #[record(until = 3)] c: u8 }
        });
        assert!(
            message.contains("`until = 1` must be greater than `since = 2`"),
            "{message}"
        );
        assert!(
            message.contains("field removed `until = 3` but the record writes `version = 2`"),
            "{message}"
        );
        assert!(
            errors_of(parse_quote! { #[record(version = 1, version = 2)] struct S { a: u8 } })
                .contains("duplicate record attribute `version`")
        );
        assert!(errors_of(parse_quote! { enum E { A } }).contains("only be derived for a struct"));
        assert!(errors_of(parse_quote! { struct S; }).contains("at least one field"));
        assert!(
            errors_of(parse_quote! { #[record(version = 70000)] struct S { a: u8 } })
                .contains("0 to 65535")
        );
    }
}
