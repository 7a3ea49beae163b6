//! Parses `#[record(...)]` attributes into [`RecordInput`] and checks the rules between them.

use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Expr, Fields, LitInt, Member};

/// A struct deriving `Record`, with its fields, borrowed from the input.
pub(super) struct RecordInput<'a> {
    pub(super) input: &'a DeriveInput,
    /// `#[record(version = N)]`, 0 when absent.
    pub(super) version: u16,
    pub(super) fields: Vec<RecordFieldInput<'a>>,
}

/// One field and the versions it exists in.
pub(super) struct RecordFieldInput<'a> {
    pub(super) field: &'a syn::Field,
    pub(super) member: Member,
    /// `#[record(since = K)]`: first version that has the field.
    pub(super) since: u16,
    /// `#[record(until = K)]`: first version that no longer has it.
    pub(super) until: Option<u16>,
    /// `#[record(default = expr)]`: its value when the data's version lacks it.
    pub(super) default: Option<Expr>,
}

const VALID_STRUCT_KEYS: &str = "expected `version`";
const VALID_FIELD_KEYS: &str = "expected one of `since`, `until`, `default`";

/// Collects every error so the user sees all bad attributes at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn spanned(&mut self, tokens: impl quote::ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn check(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

pub(super) fn parse(input: &DeriveInput) -> syn::Result<RecordInput<'_>> {
    let mut errors = Errors::default();
    let version = parse_struct_attrs(input, &mut errors);
    let fields = match &input.data {
        Data::Struct(data) => parse_fields(&data.fields, &mut errors),
        _ => {
            errors.spanned(
                &input.ident,
                "`Record` can only be derived for a struct; implement `tablekit::Record` by hand for enums",
            );
            Vec::new()
        }
    };
    let record = RecordInput {
        input,
        version,
        fields,
    };
    check(&record, &mut errors);
    errors.check()?;
    Ok(record)
}

fn parse_u16(lit: &LitInt, errors: &mut Errors) -> u16 {
    lit.base10_parse().unwrap_or_else(|_| {
        errors.spanned(lit, "expected a version from 0 to 65535");
        0
    })
}

fn parse_struct_attrs(input: &DeriveInput, errors: &mut Errors) -> u16 {
    let mut version: Option<u16> = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("record")) {
        let result = attr.parse_nested_meta(|meta| {
            // #[record(version = N)]
            if meta.path.is_ident("version") {
                let lit: LitInt = meta.value()?.parse()?;
                if version.is_some() {
                    errors.spanned(&meta.path, "duplicate `version` attribute");
                }
                version = Some(parse_u16(&lit, errors));
                Ok(())
            } else {
                let key = meta.path.get_ident().map(ToString::to_string);
                Err(meta.error(format!(
                    "unknown record attribute `{}`, {VALID_STRUCT_KEYS}",
                    key.unwrap_or_default()
                )))
            }
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    version.unwrap_or(0)
}

fn parse_fields<'a>(fields: &'a Fields, errors: &mut Errors) -> Vec<RecordFieldInput<'a>> {
    fields
        .iter()
        .enumerate()
        .map(|(index, field)| parse_field(index, field, errors))
        .collect()
}

fn parse_field<'a>(
    index: usize,
    field: &'a syn::Field,
    errors: &mut Errors,
) -> RecordFieldInput<'a> {
    let member = match &field.ident {
        Some(ident) => Member::Named(ident.clone()),
        None => Member::Unnamed(syn::Index {
            index: index as u32,
            span: field.span(),
        }),
    };
    let mut parsed = RecordFieldInput {
        field,
        member,
        since: 0,
        until: None,
        default: None,
    };
    let mut seen_since = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("record")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("since") {
                // #[record(since = K)]
                let lit: LitInt = meta.value()?.parse()?;
                if seen_since {
                    errors.spanned(&meta.path, "duplicate `since` attribute");
                }
                seen_since = true;
                parsed.since = parse_u16(&lit, errors);
            } else if meta.path.is_ident("until") {
                // #[record(until = K)]
                let lit: LitInt = meta.value()?.parse()?;
                if parsed.until.is_some() {
                    errors.spanned(&meta.path, "duplicate `until` attribute");
                }
                parsed.until = Some(parse_u16(&lit, errors));
            } else if meta.path.is_ident("default") {
                // #[record(default = expr)]
                let expr: Expr = meta.value()?.parse()?;
                if parsed.default.is_some() {
                    errors.spanned(&meta.path, "duplicate `default` attribute");
                }
                parsed.default = Some(expr);
            } else {
                let key = meta.path.get_ident().map(ToString::to_string);
                return Err(meta.error(format!(
                    "unknown record attribute `{}`, {VALID_FIELD_KEYS}",
                    key.unwrap_or_default()
                )));
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    parsed
}

/// Rules between the attributes.
fn check(record: &RecordInput<'_>, errors: &mut Errors) {
    for field in &record.fields {
        check_since(record.version, field, errors);
        check_until(record.version, field, errors);
    }
    check_writes_something(record, errors);
}

/// A field cannot be added in a version newer than the one the struct writes.
fn check_since(version: u16, field: &RecordFieldInput<'_>, errors: &mut Errors) {
    if field.since > version {
        errors.spanned(
            field.field,
            format!(
                "field added `since = {}` but the record writes `version = {version}`",
                field.since
            ),
        );
    }
}

/// A removed field must be removed by now and after it was added; it stays in the struct so
/// older data can still be read into it.
fn check_until(version: u16, field: &RecordFieldInput<'_>, errors: &mut Errors) {
    let Some(until) = field.until else { return };
    if until > version {
        errors.spanned(
            field.field,
            format!("field removed `until = {until}` but the record writes `version = {version}`"),
        );
    }
    if until <= field.since {
        errors.spanned(
            field.field,
            format!(
                "`until = {until}` must be greater than `since = {}`",
                field.since
            ),
        );
    }
}

/// The reader bounds record counts by the bytes left, so each record writes at least one field.
fn check_writes_something(record: &RecordInput<'_>, errors: &mut Errors) {
    let Data::Struct(_) = record.input.data else {
        return;
    };
    if record.fields.iter().all(|f| f.until.is_some()) {
        errors.spanned(
            &record.input.ident,
            "a record needs at least one field the current version writes",
        );
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    fn error_of(input: DeriveInput) -> String {
        match parse(&input) {
            Ok(_) => panic!("expected an error"),
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
        let record = parse(&input).unwrap();
        assert_eq!(record.version, 3);
        assert_eq!(
            (record.fields[1].since, record.fields[1].until),
            (1, Some(3))
        );
        assert!(record.fields[1].default.is_some());
    }

    #[test]
    fn reports_every_bad_attribute_at_once() {
        let message = error_of(parse_quote! {
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
        let message = error_of(parse_quote! {
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
            error_of(parse_quote! { #[record(version = 1, version = 2)] struct S { a: u8 } })
                .contains("duplicate `version`")
        );
        assert!(error_of(parse_quote! { enum E { A } }).contains("only be derived for a struct"));
        assert!(error_of(parse_quote! { struct S; }).contains("at least one field"));
        assert!(
            error_of(parse_quote! { #[record(version = 70000)] struct S { a: u8 } })
                .contains("0 to 65535")
        );
    }
}
