//! Hand-written filters with `@name` placeholders: each value is written as the literal of its
//! type (the typed filters' own rules), `@` and `''` inside quoted literals are text, and every
//! mismatch between the text and the values is a typed error before anything is sent.

use chrono::{TimeZone, Utc};
use tablekit::filter::{bind_params, ParamError, Params};
use tablekit::prelude::*;
use tablekit::{EdmType, Filter, InvalidInput};

fn problem(result: Result<String, ParamError>) -> ParamError {
    let problem = result.expect_err("expected a parameter error");
    // Input the service would refuse, wherever it goes with `?`.
    let err = Error::from(problem.clone());
    assert!(matches!(
        err,
        Error::InvalidInput(InvalidInput::FilterParameter(_))
    ));
    problem
}

#[test]
fn every_edm_type_is_written_as_its_typed_literal() {
    let when = Utc.with_ymd_and_hms(2008, 10, 1, 12, 0, 0).unwrap()
        + chrono::Duration::nanoseconds(1_234_500);
    let cases: Vec<(Value, &str)> = vec![
        (Value::Bool(true), "true"),
        (Value::Bool(false), "false"),
        (Value::Int32(-5), "-5"),
        (Value::Int64(5), "5L"),
        (Value::Int64(i64::MIN), "-9223372036854775808L"),
        (Value::Double(2.0), "2.0"),
        (Value::Double(0.1), "0.1"),
        (Value::Double(-0.0), "-0.0"),
        (Value::Double(1e21), "1.0E+21"),
        (Value::Double(1.5e-9), "1.5E-9"),
        (Value::Double(f64::NAN), "NaN"),
        (Value::Double(f64::NEG_INFINITY), "-INF"),
        (
            Value::DateTime(when),
            "datetime'2008-10-01T12:00:00.0012345Z'",
        ),
        (
            Value::Guid(Uuid::from_u128(0xABCDEF)),
            "guid'00000000-0000-0000-0000-000000abcdef'",
        ),
        (Value::Binary(vec![0, 1, 0xfe]), "X'0001fe'"),
        (Value::Binary(vec![]), "X''"),
        (Value::String("".into()), "''"),
        (Value::String("'".into()), "''''"),
        (Value::String("a'b''c".into()), "'a''b''''c'"),
        (Value::String("é\u{1F600}\n @x".into()), "'é\u{1F600}\n @x'"),
    ];
    for (value, literal) in cases {
        let text = bind_params("P eq @v", [("v", value.clone())]).unwrap();
        assert_eq!(text, format!("P eq {literal}"), "{value:?}");
    }
}

#[test]
fn placeholders_write_what_the_typed_column_writes() {
    const SCORE: Column<DynamicEntity, u32> = Column::dynamic("Score");
    const NAME: Column<DynamicEntity, String> = Column::dynamic("Name");
    let params = Params::new().bind("big", u32::MAX).bind("name", "O'Brien");
    let f = Filter::<DynamicEntity>::raw_with("Score eq @big and Name eq @name", params).unwrap();
    assert_eq!(
        f,
        Filter::raw(SCORE.eq(u32::MAX).and(NAME.eq("O'Brien")).to_string())
    );
    assert_eq!(
        f.to_string(),
        "(Score eq 4294967295L and Name eq 'O''Brien')"
    );
}

#[test]
fn rust_values_of_any_value_type_are_parameters() {
    let id = Uuid::from_u128(7);
    let text = bind_params(
        "A eq @a and B eq @b and C eq @c and D eq @d and E eq @e and F eq @f",
        Params::new()
            .bind("a", 1)
            .bind("b", 1i64)
            .bind("c", 1.0)
            .bind("d", String::from("x"))
            .bind("e", id)
            .bind("f", &b"\x01"[..]),
    )
    .unwrap();
    assert_eq!(
        text,
        "A eq 1 and B eq 1L and C eq 1.0 and D eq 'x' and E eq guid'00000000-0000-0000-0000-000000000007' and F eq X'01'"
    );
    // Pairs of one type need no `Params`; names may be `String`s.
    let names = [String::from("lo"), String::from("hi")];
    let text = bind_params("N ge @lo and N lt @hi", [(&names[0], 1), (&names[1], 9)]).unwrap();
    assert_eq!(text, "N ge 1 and N lt 9");
}

#[test]
fn a_placeholder_may_be_used_more_than_once() {
    let text = bind_params("A eq @x or B eq @x or (C eq @x)", [("x", "v")]).unwrap();
    assert_eq!(text, "A eq 'v' or B eq 'v' or (C eq 'v')");
}

#[test]
fn at_signs_inside_quoted_literals_are_text() {
    let cases = [
        ("Mail eq 'a@b' and N eq @n", "Mail eq 'a@b' and N eq 1"),
        ("Mail eq '@n' or N eq @n", "Mail eq '@n' or N eq 1"),
        ("A eq 'it''s @n' and B eq @n", "A eq 'it''s @n' and B eq 1"),
        ("A eq '''@n''' and B eq @n", "A eq '''@n''' and B eq 1"),
        ("A eq '' and B eq @n", "A eq '' and B eq 1"),
        ("A eq '''' and B eq @n", "A eq '''' and B eq 1"),
        (
            "T eq datetime'@n' or N eq @n",
            "T eq datetime'@n' or N eq 1",
        ),
        ("N eq @n and A eq 'é@n'", "N eq 1 and A eq 'é@n'"),
        ("(N eq @n)", "(N eq 1)"),
        ("N eq @n_2 or N eq @n", "N eq 2 or N eq 1"),
    ];
    for (text, bound) in cases {
        let params = Params::new().bind("n", 1);
        let params = if text.contains("@n_2") {
            params.bind("n_2", 2)
        } else {
            params
        };
        assert_eq!(bind_params(text, params).unwrap(), bound, "{text}");
    }
}

#[test]
fn a_placeholder_without_a_value_is_refused() {
    assert_eq!(
        problem(bind_params("A eq @a and B eq @b", [("a", 1)])),
        ParamError::Missing { name: "b".into() }
    );
    // Names are case-sensitive.
    assert_eq!(
        problem(bind_params("A eq @A", [("a", 1)])),
        ParamError::Missing { name: "A".into() }
    );
}

#[test]
fn a_value_never_used_is_refused() {
    assert_eq!(
        problem(bind_params("A eq @a", [("a", 1), ("b", 2)])),
        ParamError::Unused { name: "b".into() }
    );
    // Inside a literal, `@a` is text, so the value is unused.
    assert_eq!(
        problem(bind_params("A eq '@a'", [("a", 1)])),
        ParamError::Unused { name: "a".into() }
    );
}

#[test]
fn a_name_given_twice_is_refused() {
    let params = Params::new().bind("a", 1).bind("a", "one");
    assert_eq!(
        problem(bind_params("A eq @a", params)),
        ParamError::Duplicate { name: "a".into() }
    );
}

#[test]
fn invalid_names_are_refused_in_the_values_and_in_the_text() {
    for name in ["", "1a", "@a", "a-b", "é", "a b"] {
        assert_eq!(
            problem(bind_params("A eq 1", [(name, 1)])),
            ParamError::InvalidName { name: name.into() },
            "{name:?}"
        );
    }
    for (text, written) in [
        ("A eq @", "@"),
        ("A eq @ a", "@"),
        ("A eq @1a", "@1a"),
        ("A eq @é", "@"),
    ] {
        assert_eq!(
            problem(bind_params(text, [("a", 1)])),
            ParamError::InvalidName {
                name: written.into()
            },
            "{text:?}"
        );
    }
}

#[test]
fn a_none_value_is_refused() {
    let params = Params::new().bind("a", None::<i32>);
    assert_eq!(
        problem(bind_params("A eq @a", params)),
        ParamError::NoValue { name: "a".into() }
    );
}

#[test]
fn an_unclosed_literal_is_refused() {
    assert_eq!(
        problem(bind_params("A eq @a and B eq 'x", [("a", 1)])),
        ParamError::UnclosedLiteral { position: 17 }
    );
    assert_eq!(
        problem(bind_params("A eq 'x'' and B eq @a", [("a", 1)])),
        ParamError::UnclosedLiteral { position: 5 }
    );
}

#[test]
fn numbers_written_by_hand_must_fit_their_type() {
    // An Int64 written without its `L` is an Int32 the service refuses: refused here first,
    // wherever it stands among literals and placeholders.
    for (text, literal, edm_type, position) in [
        ("Id eq 5454161346626", "5454161346626", EdmType::Int32, 6),
        (
            "Tag eq @tag and Id ge 2147483648",
            "2147483648",
            EdmType::Int32,
            22,
        ),
        (
            "Tag eq '1' and Id lt -2147483649 or Tag eq @tag",
            "-2147483649",
            EdmType::Int32,
            21,
        ),
        (
            "Id eq 9223372036854775808L",
            "9223372036854775808L",
            EdmType::Int64,
            6,
        ),
        ("Ratio gt 1e999", "1e999", EdmType::Double, 9),
    ] {
        let expected = ParamError::UnrecognizedLiteral {
            literal: literal.into(),
            edm_type,
            position,
        };
        assert_eq!(
            problem(bind_params(text, [("tag", "x")])),
            expected,
            "{text}"
        );
    }
    // Within range, in names, in string literals and in values, numbers are left as they are.
    let text = "Id eq 5454161346626L and N1 eq 2147483647 and Tag eq '5454161346626' and R eq @r";
    assert!(bind_params(text, [("r", 1e300)]).is_ok());
    let query = Query::<DynamicEntity>::new().filter_raw_with("Id eq 5454161346626", Params::new());
    assert!(matches!(query, Err(ParamError::UnrecognizedLiteral { .. })));
}

#[test]
fn errors_name_the_problem_in_lowercase_with_code_in_backticks() {
    let messages = [
        (bind_params("A eq @a", [("b", 1)]), "invalid filter parameters: `@a` has no value"),
        (
            bind_params("A eq 1", [("b", 1)]),
            "invalid filter parameters: the value of `@b` is never used",
        ),
        (
            bind_params("A eq @a", Params::new().bind("a", 1).bind("a", 2)),
            "invalid filter parameters: `@a` is given twice",
        ),
        (
            bind_params("A eq @a", Params::new().bind("a", None::<String>)),
            "invalid filter parameters: the value of `@a` is `None`, which no filter literal can stand for",
        ),
        (
            bind_params("A eq 'x", Params::new()),
            "invalid filter parameters: the string literal at byte 5 of the filter is never closed",
        ),
        (
            bind_params("A eq 5454161346626", Params::new()),
            "invalid filter parameters: `5454161346626` at byte 5 of the filter is not a valid \
             Edm.Int32 literal: a number without `L` is an Int32, so write an Int64 as \
             `5454161346626L`",
        ),
        (
            bind_params("A eq 1e999", Params::new()),
            "invalid filter parameters: `1e999` at byte 5 of the filter is not a valid \
             Edm.Double literal: a Double literal is finite (infinities are written `INF` and \
             `-INF`)",
        ),
    ];
    for (result, message) in messages {
        let err = Error::from(result.unwrap_err());
        assert!(err.is_invalid_input());
        assert_eq!(err.to_string(), message);
    }
    let err = Error::from(bind_params("A eq @a", [("@a", 1)]).unwrap_err()).to_string();
    assert!(
        err.starts_with("invalid filter parameters: invalid parameter name `@a`"),
        "{err}"
    );
}

#[test]
fn text_without_placeholders_is_kept_as_written() {
    assert_eq!(bind_params("A eq 'x'", Params::new()).unwrap(), "A eq 'x'");
    assert_eq!(bind_params("", Params::new()).unwrap(), "");
}

#[test]
fn queries_take_the_bound_text_as_their_filter() {
    let q = Query::<DynamicEntity>::new()
        .filter_raw_with("PartitionKey eq @pk and Tag eq @pk", [("pk", "it's")])
        .unwrap()
        .top(3)
        .unwrap();
    assert_eq!(
        q.filter_string(),
        Some("PartitionKey eq 'it''s' and Tag eq 'it''s'")
    );
    assert_eq!(q.top_value(), Some(3));
    let err = Query::<DynamicEntity>::new()
        .filter_raw_with("PartitionKey eq @pk", Params::new())
        .unwrap_err();
    assert_eq!(err, ParamError::Missing { name: "pk".into() });
}
