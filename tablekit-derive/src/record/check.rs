//! Rules between the versions of the record and of its fields.

use super::ast::{Field, Record};
use crate::internals::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, record: &Record<'_>) {
    if !record.is_struct {
        return;
    }
    for field in &record.fields {
        since(cx, record.version, field);
        until(cx, record.version, field);
    }
    writes_something(cx, record);
}

/// A field cannot be added in a version newer than the one the struct writes.
fn since(cx: &Ctxt, version: u16, field: &Field<'_>) {
    if field.since > version {
        cx.error_spanned_by(
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
fn until(cx: &Ctxt, version: u16, field: &Field<'_>) {
    let Some(until) = field.until else { return };
    if until > version {
        cx.error_spanned_by(
            field.field,
            format!("field removed `until = {until}` but the record writes `version = {version}`"),
        );
    }
    if until <= field.since {
        cx.error_spanned_by(
            field.field,
            format!(
                "`until = {until}` must be greater than `since = {}`",
                field.since
            ),
        );
    }
}

/// The reader bounds record counts by the bytes left, so each record writes at least one field.
fn writes_something(cx: &Ctxt, record: &Record<'_>) {
    if record.fields.iter().all(|f| f.until.is_some()) {
        cx.error_spanned_by(
            &record.input.ident,
            "a record needs at least one field the current version writes",
        );
    }
}
