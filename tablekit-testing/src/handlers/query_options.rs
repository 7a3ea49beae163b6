//! The query options of table and entity queries, read from the query string as the service
//! reads them: `$filter`, `$top`, `$select` and the continuation tokens.

use std::collections::{HashMap, HashSet};

use crate::continuation;
use crate::filter::Filter;
use crate::service_error::ServiceError;
use crate::store::{EntityKey, Key};

/// The most entities or tables one page holds.
pub(crate) const MAX_PAGE: usize = 1000;

/// `$filter`, parsed; 400 when it is not a filter the service accepts.
pub(crate) fn filter(params: &HashMap<String, String>) -> Result<Option<Filter>, ServiceError> {
    match params.get("$filter") {
        None => Ok(None),
        Some(text) => Filter::parse(text)
            .map(Some)
            .map_err(|e| ServiceError::invalid_input(e.to_string())),
    }
}

/// `$top`: the page size, at most [`MAX_PAGE`] (larger values are capped, as on the service).
pub(crate) fn top(params: &HashMap<String, String>) -> Result<usize, ServiceError> {
    match params.get("$top") {
        None => Ok(MAX_PAGE),
        Some(text) => match text.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(n.min(MAX_PAGE)),
            _ => Err(ServiceError::invalid_input(
                "$top must be a positive integer.",
            )),
        },
    }
}

/// `$select`: the property names to answer with, each once; `None` for all (also for `*`).
pub(crate) fn select(params: &HashMap<String, String>) -> Option<Vec<String>> {
    let text = params.get("$select")?;
    // A name repeated in the URL is answered once: otherwise a short URL repeating one name
    // multiplies every entity of the answer.
    let mut seen = HashSet::new();
    let names: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty() && seen.insert(*n))
        .map(str::to_owned)
        .collect();
    (!names.is_empty() && !names.iter().any(|n| n == "*")).then_some(names)
}

/// Where an entity query resumes: `NextPartitionKey` and `NextRowKey`.
pub(crate) fn entity_start(
    params: &HashMap<String, String>,
) -> Result<Option<EntityKey>, ServiceError> {
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
) -> Result<Option<String>, ServiceError> {
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
        assert_eq!(select(&params(&[])), None);
        assert_eq!(select(&params(&[("$select", "*")])), None);
        assert_eq!(select(&params(&[("$select", " , ")])), None);
        assert_eq!(
            select(&params(&[("$select", "A, B")])),
            Some(vec!["A".to_owned(), "B".to_owned()])
        );
        assert_eq!(
            select(&params(&[("$select", "B,A,B, A")])),
            Some(vec!["B".to_owned(), "A".to_owned()])
        );
    }

    #[test]
    fn a_bad_filter_is_a_400() {
        assert!(filter(&params(&[])).unwrap().is_none());
        assert!(filter(&params(&[("$filter", "A eq 1")])).unwrap().is_some());
        let err = filter(&params(&[("$filter", "A eq")])).unwrap_err();
        assert_eq!(err.code, "InvalidInput");
    }
}
