//! The query options of table and entity queries, read from the query string as the service
//! reads them: `$filter`, `$top`, `$select` and the continuation tokens.

use std::collections::{HashMap, HashSet};

use tablekit::limits;

use crate::format::continuation;
use crate::format::error_response::ErrorResponse;
use crate::query::filter::ParsedFilter;
use crate::storage::store::{EntityKey, Key};

/// The most entities or tables one page holds.
pub(crate) const MAX_PAGE: usize = 1000;

/// `$filter`, parsed; 400 when it is not a filter the service accepts.
pub(crate) fn filter(
    params: &HashMap<String, String>,
) -> Result<Option<ParsedFilter>, ErrorResponse> {
    match params.get("$filter") {
        None => Ok(None),
        Some(text) => ParsedFilter::parse(text)
            .map(Some)
            .map_err(|e| ErrorResponse::invalid_input(e.to_string())),
    }
}

/// `$top`: the page size, at most [`MAX_PAGE`] (larger values are capped, as on the service).
pub(crate) fn top(params: &HashMap<String, String>) -> Result<usize, ErrorResponse> {
    match params.get("$top") {
        None => Ok(MAX_PAGE),
        Some(text) => match text.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n.min(MAX_PAGE)),
            _ => Err(ErrorResponse::invalid_input(
                "$top must be a positive integer.",
            )),
        },
    }
}

/// The most names a `$select` may list: an entity holds at most 255 properties (252 of its
/// own, PartitionKey, RowKey and Timestamp), so more could only name missing ones, each
/// answered `null` on every entity of the page.
pub(crate) const MAX_SELECT: usize = limits::MAX_PROPERTIES + 3;

/// `$select`: the property names to answer with, each once; `None` for all (also for `*`);
/// 400 for more than [`MAX_SELECT`] names.
pub(crate) fn select(
    params: &HashMap<String, String>,
) -> Result<Option<Vec<String>>, ErrorResponse> {
    let Some(text) = params.get("$select") else {
        return Ok(None);
    };
    // A name repeated in the URL is answered once: otherwise a short URL repeating one name
    // multiplies every entity of the answer.
    let mut seen = HashSet::new();
    let mut names = Vec::new();
    for name in text.split(',').map(str::trim) {
        if name.is_empty() || !seen.insert(name) {
            continue;
        }
        if names.len() == MAX_SELECT {
            return Err(ErrorResponse::invalid_input(format!(
                "$select names more than {MAX_SELECT} properties."
            )));
        }
        names.push(name.to_owned());
    }
    Ok((!names.is_empty() && !names.iter().any(|n| n == "*")).then_some(names))
}

/// Where an entity query resumes: `NextPartitionKey` and `NextRowKey`.
pub(crate) fn entity_start(
    params: &HashMap<String, String>,
) -> Result<Option<EntityKey>, ErrorResponse> {
    let Some(pk) = params.get("NextPartitionKey") else {
        return Ok(None);
    };
    let pk = continuation::decode(pk)?;
    let rk = match params.get("NextRowKey") {
        Some(rk) if !rk.is_empty() => continuation::decode(rk)?,
        _ => String::new(),
    };
    Ok(Some((Key(pk.into()), Key(rk.into()))))
}

/// Where a table listing resumes: `NextTableName`.
pub(crate) fn table_start(
    params: &HashMap<String, String>,
) -> Result<Option<String>, ErrorResponse> {
    params
        .get("NextTableName")
        .map(|token| continuation::decode(token))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn top_is_a_page_size_of_one_to_a_thousand() {
        assert_eq!(top(&params(&[])).unwrap(), MAX_PAGE);
        assert_eq!(top(&params(&[("$top", " 5 ")])).unwrap(), 5);
        assert_eq!(top(&params(&[("$top", "5000")])).unwrap(), MAX_PAGE);
        for bad in ["0", "-1", "x", ""] {
            assert_eq!(top(&params(&[("$top", bad)])).unwrap_err().status, 400);
        }
    }

    #[test]
    fn select_star_and_empty_select_everything() {
        let select = |text: &str| select(&params(&[("$select", text)])).unwrap();
        assert_eq!(super::select(&params(&[])).unwrap(), None);
        assert_eq!(select("*"), None);
        assert_eq!(select(" , "), None);
        assert_eq!(select("A, B"), Some(vec!["A".to_owned(), "B".to_owned()]));
        assert_eq!(
            select("B,A,B, A"),
            Some(vec!["B".to_owned(), "A".to_owned()])
        );
    }

    #[test]
    fn select_names_at_most_as_many_properties_as_an_entity_holds() {
        let names = |n: usize| {
            (0..n)
                .map(|i| format!("P{i}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let most = select(&params(&[("$select", &names(MAX_SELECT))])).unwrap();
        assert_eq!(most.map(|names| names.len()), Some(255));
        let err = select(&params(&[("$select", &names(MAX_SELECT + 1))])).unwrap_err();
        assert_eq!(err.status, 400);
        assert_eq!(err.code, "InvalidInput");
        // A repeated name counts once.
        let repeated = format!("{},P0,P1", names(MAX_SELECT));
        assert!(select(&params(&[("$select", &repeated)])).is_ok());
    }

    #[test]
    fn a_bad_filter_is_a_400() {
        assert!(filter(&params(&[])).unwrap().is_none());
        assert!(filter(&params(&[("$filter", "A eq 1")])).unwrap().is_some());
        let err = filter(&params(&[("$filter", "A eq")])).unwrap_err();
        assert_eq!(err.code, "InvalidInput");
    }
}
