//! A bounded sample of a table, spread over its partitions.

use futures::TryStreamExt;

use crate::client::error::Result;
use crate::client::Table;
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;

/// How much to read.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::insight::{sample, SampleOptions};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Readings");
/// table.create().await?;
/// for sensor in ["a", "b", "c"] {
///     for i in 0..4 {
///         table.insert(&mut DynamicEntity::new(sensor, format!("{i:03}"))).await?;
///     }
/// }
/// // Six entities, at most two from a partition before moving on to the next.
/// let options = SampleOptions { max_entities: 6, per_partition: Some(2) };
/// let read = sample(&table, &options).await?;
/// let keys: Vec<_> = read.entities.iter().map(|e| (e.partition_key(), e.row_key())).collect();
/// assert_eq!(keys, [("a", "000"), ("a", "001"), ("b", "000"), ("b", "001"), ("c", "000"), ("c", "001")]);
/// assert!(!read.complete);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct SampleOptions {
    /// The most entities read (default 1,000).
    pub max_entities: usize,
    /// The most entities read from one run of partitions before skipping to the next
    /// partition (default: a tenth of `max_entities`, at least 1).
    pub per_partition: Option<usize>,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions {
            max_entities: 1_000,
            per_partition: None,
        }
    }
}

/// What [`sample`] read.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::insight::{generate_model, sample, GenerateOptions, SampleOptions};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Orders");
/// table.create().await?;
/// for (region, id) in [("eu", "o-1"), ("eu", "o-2"), ("us", "o-3")] {
///     let mut order = DynamicEntity::new(region, id);
///     order.set("Total", 12.5);
///     table.insert(&mut order).await?;
/// }
/// let read = sample(&table, &SampleOptions::default()).await?;
/// assert_eq!(read.entities.len(), 3);
/// assert!(read.complete); // the whole table
///
/// let part = sample(&table, &SampleOptions { max_entities: 2, ..Default::default() }).await?;
/// assert_eq!(part.entities.len(), 2);
/// assert!(!part.complete);
///
/// let model = generate_model(&read.entities, &GenerateOptions { table: Some(table.name().to_owned()), ..Default::default() });
/// assert!(model.source.contains("from a sample of 3 entities in 2 partitions"));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// The entities, in key order.
    pub entities: Vec<DynamicEntity>,
    /// Whether they are the whole table.
    pub complete: bool,
}

/// Reads up to `options.max_entities` entities of `table`, spread over its partitions: rounds
/// of at most `per_partition` entities in key order (one request each with `$top`,
/// continuations followed only within the round), each round starting after the last
/// partition the previous one reached. A table of small partitions is read from its start;
/// one large partition gives a round's worth and the sample moves on, so later partitions are
/// seen too. Nothing is read twice.
///
/// ```no_run
/// # async fn f(table: tablekit::client::Table) -> tablekit::Result<()> {
/// use tablekit::insight::{generate_model, sample, GenerateOptions, SampleOptions};
/// let read = sample(&table, &SampleOptions::default()).await?;
/// let model = generate_model(&read.entities, &GenerateOptions { table: Some(table.name().to_owned()), ..Default::default() });
/// println!("{}", model.source);
/// # Ok(()) }
/// ```
pub async fn sample(table: &Table<DynamicEntity>, options: &SampleOptions) -> Result<Sample> {
    let max = options.max_entities;
    let round = options
        .per_partition
        .unwrap_or(max / 10)
        .clamp(1, max.max(1));
    let mut entities: Vec<DynamicEntity> = Vec::new();
    let mut after: Option<String> = None;
    while entities.len() < max {
        let want = round.min(max - entities.len());
        let top = u32::try_from(want.min(1_000)).unwrap_or(1_000);
        let mut query = Query::<DynamicEntity>::new().allow_table_scan().top(top)?;
        if let Some(pk) = &after {
            query = query.filter_raw(format!("PartitionKey gt '{}'", pk.replace('\'', "''")));
        }
        let mut pages = table.query(query).pages();
        let mut got = 0;
        while let Some(page) = pages.try_next().await? {
            for e in page.into_entities().into_iter().take(want - got) {
                entities.push(e);
                got += 1;
            }
            if got >= want {
                break;
            }
        }
        if got < want {
            // The rest of the table is read; whole only if no round skipped a partition's rest.
            let complete = after.is_none();
            return Ok(Sample { entities, complete });
        }
        after = entities.last().map(|e| e.partition_key().to_owned());
    }
    Ok(Sample {
        entities,
        complete: false,
    })
}
