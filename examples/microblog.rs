//! The micro-blogging site of Microsoft's "Windows Azure Table" whitepaper, in tablekit.
//!
//! One table holds blogs, photos and comments. The PartitionKey is the channel plus an
//! inverted year and month (`football_7991_03` for October 2008: 9999 - 2008, 13 - 10), so a
//! channel's newest month sorts first and each month is its own unit of load balancing. The
//! RowKey starts with inverted ticks (19 digits, newest first) and names the kind, so a
//! partition reads newest first and a blog's comments sort right after the blog. Every entity
//! also stores its `Kind`, and the family `Post` reads each row as the model it names, so a
//! mixed read comes back as the right types and one transaction writes several kinds.
//!
//! Shown: the 10 most recent blogs of a channel, a year's blogs by partition range, a mixed
//! "home page" read, entity group transactions (all or nothing), and a schema change.
//!
//! Run with `cargo run --example microblog` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use chrono::{Duration, TimeZone};
use futures::TryStreamExt;
use tablekit::prelude::*;
use tablekit::NamedTable;

use support::BoxError;

/// A blog post. PartitionKey `{channel}_{9999-year}_{13-month}`, RowKey
/// `{inverted ticks}_Blog`; its `Kind` is `Blog`.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(
    table = "Microblog",
    kind = "Blog",
    row_key(constant = "Blog", order = 1)
)]
pub struct Blog {
    /// The channel.
    #[tablekit(partition_key(order = 0))]
    pub channel: String,
    /// When it was posted: in both keys, and stored as a property too.
    #[tablekit(partition_key(order = 1, format = "inverted_year_month"))]
    #[tablekit(row_key(order = 0, inverted_ticks))]
    pub posted: DateTime<Utc>,
    /// The text.
    pub text: String,
    /// The rating.
    pub rating: i32,
}

/// A photo, in the same partitions as blogs. RowKey `{inverted ticks}_Photo`.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(
    table = "Microblog",
    kind = "Photo",
    row_key(constant = "Photo", order = 1)
)]
pub struct Photo {
    /// The channel.
    #[tablekit(partition_key(order = 0))]
    pub channel: String,
    /// When it was posted.
    #[tablekit(partition_key(order = 1, format = "inverted_year_month"))]
    #[tablekit(row_key(order = 0, inverted_ticks))]
    pub posted: DateTime<Utc>,
    /// Where the image is.
    pub uri: String,
    /// The caption.
    pub caption: String,
}

/// A comment on a blog: in the blog's partition, RowKey
/// `{blog's inverted ticks}_Comment_{ticks}`, so comments sort after their blog, oldest first.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(
    table = "Microblog",
    kind = "Comment",
    row_key(constant = "Comment", order = 1)
)]
pub struct Comment {
    /// The blog's channel.
    #[tablekit(partition_key(order = 0))]
    pub channel: String,
    /// When the blog was posted: the comment's partition and RowKey prefix.
    #[tablekit(partition_key(order = 1, format = "inverted_year_month"))]
    #[tablekit(row_key(order = 0, inverted_ticks))]
    pub blog_posted: DateTime<Utc>,
    /// When the comment was written.
    #[tablekit(row_key(order = 2, ticks))]
    pub written: DateTime<Utc>,
    /// The text.
    pub text: String,
}

/// Version 2 of [`Blog`], deployed later: adds `Category` and no longer has `Rating`.
pub mod v2 {
    use tablekit::prelude::*;

    /// A blog as version 2 of the application sees it.
    #[derive(Debug, Clone, PartialEq, TableEntity)]
    #[tablekit(
        table = "Microblog",
        kind = "Blog",
        row_key(constant = "Blog", order = 1)
    )]
    pub struct Blog {
        /// The channel.
        #[tablekit(partition_key(order = 0))]
        pub channel: String,
        /// When it was posted.
        #[tablekit(partition_key(order = 1, format = "inverted_year_month"))]
        #[tablekit(row_key(order = 0, inverted_ticks))]
        pub posted: DateTime<Utc>,
        /// The text.
        pub text: String,
        /// New in version 2: blogs written before read `general`.
        #[tablekit(default = String::from("general"))]
        pub category: String,
    }
}

/// Any entity of the table, as its own type: the derive reads each row as the model its
/// `Kind` names (`PostEntity::Blog(BlogEntity)`, ...) and refuses a row of any other kind.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Microblog")]
pub enum Post {
    /// A blog.
    Blog(Blog),
    /// A photo.
    Photo(Photo),
    /// A comment.
    Comment(Comment),
}

/// What the home page showed, by the type each row was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A [`Blog`].
    Blog,
    /// A [`Photo`].
    Photo,
    /// A [`Comment`].
    Comment,
}

/// The channel most of the data is in, and another one the queries must not reach into.
pub const CHANNEL: &str = "football";
const OTHER_CHANNEL: &str = "rust";

/// What the demo observed, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// When the 10 most recent football blogs were posted, in the order read.
    pub most_recent: Vec<DateTime<Utc>>,
    /// When every football blog of 2009 was posted, in the order read.
    pub year_2009: Vec<DateTime<Utc>>,
    /// The kinds on the home page (the newest partition, newest first), in the order read.
    pub home_page: Vec<Kind>,
    /// Entities in the table after the successful transaction added a blog and 2 comments.
    pub after_transaction: usize,
    /// Entities in the table after the failed transaction (it must apply nothing).
    pub after_failed_transaction: usize,
    /// The 0-based index of the operation the failed transaction named.
    pub failed_operation: Option<usize>,
    /// The category an old blog reads under version 2 (its default).
    pub old_blog_category: String,
    /// After the upgrade: properties of the blog as stored.
    pub upgraded_properties: Vec<String>,
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("microblog", async |client| {
        run(client).await?;
        Ok(())
    })
}

/// Loads 14 months of posts, then runs the whitepaper's queries, transactions and upgrade.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let table = support::fresh_table::<Post>(client, Post::TABLE_NAME).await?;
    support::cleaning_up(client, table.name(), demo(client, table.name())).await
}

async fn demo(client: &TableServiceClient, name: &str) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();
    let posts: Table<Post> = client.table_named(name);
    let blogs: Table<Blog> = client.table_named(name);

    support::heading("load: one entity group transaction per partition");
    load(&posts).await?;

    support::heading("the 10 most recent football blogs");
    outcome.most_recent = most_recent_blogs(&blogs, CHANNEL, 10).await?;

    support::heading("every football blog of 2009 (a PartitionKey range)");
    outcome.year_2009 = blogs_of_year(&blogs, CHANNEL, 2009).await?;

    support::heading("home page: the newest month, every kind, newest first");
    outcome.home_page = home_page(&posts, CHANNEL, 8).await?;

    support::heading("a blog and its first comments, all or nothing");
    let (applied, failed_at) = transactions(client, name).await?;
    outcome.after_transaction = applied;
    outcome.failed_operation = failed_at;
    outcome.after_failed_transaction = posts.query_all().count().await?;
    println!(
        "{} entities before the failed transaction, {} after",
        outcome.after_transaction, outcome.after_failed_transaction
    );

    support::heading("schema change: add Category, remove Rating");
    let (category, properties) = upgrade_a_blog(client, name).await?;
    outcome.old_blog_category = category;
    outcome.upgraded_properties = properties;
    Ok(outcome)
}

/// Noon on a day (the sample data's dates are all valid).
fn at(year: i32, month: u32, day: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(year, month, day, 12, 0, 0)
        .single()
        .unwrap_or(DateTime::UNIX_EPOCH)
}

/// The months of sample data: September 2008 to October 2009.
pub fn months() -> Vec<(i32, u32)> {
    let mut out = Vec::new();
    let (mut year, mut month) = (2008, 9);
    while (year, month) <= (2009, 10) {
        out.push((year, month));
        (year, month) = if month == 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
    }
    out
}

/// Each month: football blogs on the 3rd and the 17th with a comment each, a photo on the
/// 10th, and one rust blog. Each partition goes in as one transaction (up to 100 operations)
/// mixing the family's kinds.
async fn load(posts: &Table<Post>) -> Result<(), BoxError> {
    let mut total = 0;
    for (year, month) in months() {
        let mut batch = posts.batch();
        for day in [3, 17] {
            let posted = at(year, month, day);
            let mut blog = BlogEntity::new(CHANNEL, posted);
            blog.set_text(format!("match report {year}-{month:02}-{day:02}"));
            blog.set_rating(day as i32 % 5);
            batch.insert(&blog.into())?;
            let mut comment = CommentEntity::new(CHANNEL, posted, posted + Duration::hours(1));
            comment.set_text("what a game");
            batch.insert(&comment.into())?;
        }
        let mut photo = PhotoEntity::new(CHANNEL, at(year, month, 10));
        photo.set_uri(format!("https://example.invalid/{year}/{month}.jpg"));
        photo.set_caption("the stadium");
        batch.insert(&photo.into())?;
        let partition = batch.partition_key().unwrap_or_default().to_owned();
        total += batch.len();
        batch.submit().await?;
        println!("{partition}: 5 entities in one transaction");

        let mut rust = BlogEntity::new(OTHER_CHANNEL, at(year, month, 20));
        rust.set_text("borrowing, explained");
        posts.insert(&mut rust.into()).await?;
        total += 1;
    }
    println!("{total} entities loaded");
    Ok(())
}

/// The newest `n` blogs of a channel: partitions of the channel sort newest month first and
/// rows newest first, so the first `n` results are the answer. `take(n)` stops there. A
/// query of `Blog` keeps only rows whose `Kind` is `Blog`.
async fn most_recent_blogs(
    blogs: &Table<Blog>,
    channel: &str,
    n: usize,
) -> Result<Vec<DateTime<Utc>>, BoxError> {
    let query = Query::<Blog>::new()
        .filter(Blog::partition_key_prefix(channel))
        .take(n);
    // Pages may come back short; the query reads on until it has `n` (or the data ends).
    let recent = blogs.query(query).collect_all().await?;
    for blog in &recent {
        println!("  {}  {}", blog.posted().format("%Y-%m-%d"), blog.text());
    }
    Ok(recent.iter().map(|b| b.posted()).collect())
}

/// Every blog a channel had in `year`: the PartitionKeys of the months overlapping the year,
/// which are exactly its twelve months, one range scan (newest month first).
async fn blogs_of_year(
    blogs: &Table<Blog>,
    channel: &str,
    year: i32,
) -> Result<Vec<DateTime<Utc>>, BoxError> {
    let new_year = |year| Utc.with_ymd_and_hms(year, 1, 1, 0, 0, 0).single();
    let (Some(start), Some(end)) = (new_year(year), new_year(year + 1)) else {
        return Err(format!("no such year: {year}").into());
    };
    let query = Query::<Blog>::new()
        .filter(Blog::partition_key_between(channel, start..end))
        .select((Blog::POSTED, Blog::TEXT));
    println!("filter: {}", query.filter_string().unwrap_or_default());
    let posted: Vec<DateTime<Utc>> = blogs
        .query(query)
        .entities()
        .map_ok(|b| b.posted())
        .try_collect()
        .await?;
    println!("{} blogs in {year}", posted.len());
    Ok(posted)
}

/// The newest partition of a channel, every kind, newest first: one query of the family,
/// each row read as the model its `Kind` names.
async fn home_page(posts: &Table<Post>, channel: &str, n: usize) -> Result<Vec<Kind>, BoxError> {
    let newest = months().last().copied().unwrap_or((2009, 10));
    let partition = Blog::partition_key_of(channel, &at(newest.0, newest.1, 1));
    let query = Query::<Post>::new()
        .filter(Post::PARTITION_KEY.eq(partition.as_str()))
        .take(n);
    println!("filter: {}", query.filter_string().unwrap_or_default());
    let mut kinds = Vec::new();
    for post in posts.query(query).collect_all().await? {
        let kind = match &post {
            PostEntity::Blog(b) => {
                println!("  blog    {}: {}", b.posted().format("%d %b"), b.text());
                Kind::Blog
            }
            PostEntity::Photo(p) => {
                println!("  photo   {}: {}", p.posted().format("%d %b"), p.uri());
                Kind::Photo
            }
            PostEntity::Comment(c) => {
                let on = c.blog_posted().format("%d %b");
                println!("  comment on the {on} blog: {}", c.text());
                Kind::Comment
            }
        };
        kinds.push(kind);
    }
    // One variant's rows, with a filter of its own model's columns.
    let top_rated = Query::<Post>::new().filter(
        Post::PARTITION_KEY
            .eq(partition.as_str())
            .and(Post::only(Blog::RATING.ge(2))),
    );
    println!(
        "top rated: {}",
        top_rated.filter_string().unwrap_or_default()
    );
    let top_rated = posts.query(top_rated).count().await?;
    println!("{top_rated} blog(s) of that month rated 2 or more");
    Ok(kinds)
}

/// A new blog and two comments in one transaction; then a transaction whose second
/// operation conflicts, which applies nothing and names the failing operation.
async fn transactions(
    client: &TableServiceClient,
    name: &str,
) -> Result<(usize, Option<usize>), BoxError> {
    let posts: Table<Post> = client.table_named(name);
    let posted = at(2009, 10, 25);
    let mut blog = BlogEntity::new(CHANNEL, posted);
    blog.set_text("derby day");
    let mut first = CommentEntity::new(CHANNEL, posted, posted + Duration::minutes(5));
    first.set_text("first!");
    let mut second = CommentEntity::new(CHANNEL, posted, posted + Duration::minutes(9));
    second.set_text("great post");

    let mut batch = posts.batch();
    batch.insert(&blog.into())?;
    batch.insert(&first.clone().into())?;
    batch.insert(&second.into())?;
    let outcome = batch.submit().await?;
    println!(
        "committed {} operations: {:?}",
        outcome.results().len(),
        outcome
            .results()
            .iter()
            .map(|r| r.status())
            .collect::<Vec<_>>()
    );
    let applied = posts.query_all().count().await?;

    let mut third = CommentEntity::new(CHANNEL, posted, posted + Duration::minutes(12));
    third.set_text("late to the party");
    let mut batch = posts.batch();
    batch.insert(&third.into())?;
    batch.insert(&first.into())?; // already there: the whole transaction fails
    let failed_at = match batch.submit().await {
        Ok(_) => return Err("a transaction with a duplicate insert succeeded".into()),
        Err(tablekit::Error::Batch { index, source }) => {
            println!("refused, nothing applied: operation {index:?} failed with {source}");
            index
        }
        Err(e) => return Err(e.into()),
    };
    Ok((applied, failed_at))
}

/// Version 2 reads a version-1 blog (the new property reads its default, the removed one is
/// still stored and kept by a merge), then upgrades it on access: set the new property,
/// remove the old one, and Replace, the only write that drops properties.
async fn upgrade_a_blog(
    client: &TableServiceClient,
    name: &str,
) -> Result<(String, Vec<String>), BoxError> {
    let v2_blogs: Table<v2::Blog> = client.table_named(name);
    let posted = at(2009, 10, 25);
    let key = v2::Blog::partition_key_of(CHANNEL, &posted);
    let row = v2::Blog::row_key_of(&posted);
    let mut blog = v2_blogs
        .get(&key, &row)
        .await?
        .ok_or("the derby day blog is gone")?;
    let category = blog.category();
    println!(
        "v2 reads an old blog: category `{category}` (default), Rating still stored: {}",
        blog.as_dynamic().contains("Rating")
    );
    blog.set_category("derbies");
    blog.as_dynamic_mut().remove("Rating");
    v2_blogs.replace(&mut blog).await?;

    let stored = client
        .table_named::<DynamicEntity>(name)
        .get(&key, &row)
        .await?
        .ok_or("the derby day blog is gone")?;
    let properties: Vec<String> = stored.properties().map(|(n, _)| n.to_owned()).collect();
    println!("after Replace: {}", properties.join(", "));
    Ok((category, properties))
}
