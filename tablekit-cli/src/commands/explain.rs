//! `query --explain`: how the service finds a query's matches, and what the query cost.
//!
//! The plan comes from the filter's key conditions (its top-level `and` conjuncts on
//! PartitionKey and RowKey), read as the service reads them. The query then runs, its
//! entities counted and dropped, so the pages and entities are those of the real answer; the
//! entities the server examined are known only where it says (the tablekit emulator does,
//! the Table service and Azurite do not).

use std::io::Write;

use futures::TryStreamExt;
use tablekit::client::{ReadCost, Table};
use tablekit::query_plan::QueryPlan;
use tablekit::{DynamicEntity, Query};
use tablekit_emulator::filter::ParsedFilter;

use crate::exit::{Failure, Outcome};
use crate::jsonl::write_failed;

/// What `--explain` prints.
struct Explanation {
    plan: QueryPlan,
    pages: u64,
    returned: u64,
    /// `None` when a page's answer did not report its cost.
    examined: Option<u64>,
}

/// Runs `query --explain`: the plan, then the query's counts.
pub(crate) async fn run(
    table: &Table<DynamicEntity>,
    query: Query<DynamicEntity>,
    filter: Option<&str>,
    json: bool,
) -> Outcome {
    let plan = plan_of(filter)?;
    let mut explanation = Explanation {
        plan,
        pages: 0,
        returned: 0,
        examined: Some(0),
    };
    let mut pages = table.query(query).pages();
    while let Some(page) = pages.try_next().await? {
        explanation.add(page.len(), page.server_cost());
    }
    let text = if json {
        explanation.json()
    } else {
        explanation.text()
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).map_err(write_failed)?;
    out.flush().map_err(write_failed)
}

/// The plan of the filter text as the service reads it (no filter: every entity).
fn plan_of(filter: Option<&str>) -> Outcome<QueryPlan> {
    let Some(filter) = filter else {
        return Ok(QueryPlan::TableScan);
    };
    // Checked before the query was made; a failure here is still said, never a panic.
    ParsedFilter::parse(filter)
        .map(|parsed| parsed.plan())
        .map_err(|e| Failure::bad_input(format!("malformed filter: {e}")))
}

impl Explanation {
    fn add(&mut self, entities: usize, cost: Option<ReadCost>) {
        self.pages += 1;
        self.returned += entities as u64;
        self.examined = match (self.examined, cost) {
            (Some(sum), Some(cost)) => Some(sum.saturating_add(cost.examined)),
            _ => None,
        };
    }

    fn text(&self) -> String {
        let mut text = format!("plan: {}\n", self.plan);
        if self.plan.is_table_scan() {
            text.push_str(
                "  the filter fixes no PartitionKey: the service reads every entity of the \
                 table, however few match\n",
            );
        }
        text.push_str(&format!(
            "pages: {}\nreturned: {} entities\n",
            self.pages, self.returned
        ));
        text.push_str(&match self.examined {
            Some(examined) => format!("examined: {examined} entities\n"),
            None => "examined: not reported (only the tablekit emulator reports it)\n".into(),
        });
        text
    }

    fn json(&self) -> String {
        let value = serde_json::json!({
            "plan": self.plan.to_string(),
            "table_scan": self.plan.is_table_scan(),
            "pages": self.pages,
            "returned": self.returned,
            "examined": self.examined,
        });
        format!("{value}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examined_is_known_only_when_every_page_reports_it() {
        let cost = |examined| {
            Some(ReadCost {
                examined,
                returned: 1,
            })
        };
        let mut e = Explanation {
            plan: QueryPlan::TableScan,
            pages: 0,
            returned: 0,
            examined: Some(0),
        };
        e.add(1, cost(10));
        e.add(2, cost(5));
        assert_eq!((e.pages, e.returned, e.examined), (2, 3, Some(15)));
        e.add(0, None);
        assert_eq!(e.examined, None);
        assert!(e.text().contains("examined: not reported"), "{}", e.text());
        assert!(e.text().contains("reads every entity"), "{}", e.text());
    }
}
