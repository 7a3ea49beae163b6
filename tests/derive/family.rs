//! Entity families: `#[derive(TableEntity)]` on an enum of models reads, queries and writes
//! blogs, photos and comments of one partition as one type, on every server. Rows of a kind
//! the family does not list are kept (an `other` variant) or refused with a typed error, never
//! dropped or read as another model.

#![allow(missing_docs)]

use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::prelude::*;
use tablekit::{NamedTable, TableModel, WrongKind};

use crate::support::servers::unique_name;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
    #[tablekit(row_key)]
    pub id: String,
    pub text: String,
    pub rating: i32,
}

#[derive(TableEntity)]
#[tablekit(kind = "Photo")]
pub struct Photo {
    #[tablekit(partition_key)]
    pub channel: String,
    #[tablekit(row_key)]
    pub id: String,
    pub uri: String,
}

#[derive(TableEntity)]
#[tablekit(kind = "Comment")]
pub struct Comment {
    #[tablekit(partition_key)]
    pub channel: String,
    #[tablekit(row_key)]
    pub id: String,
    pub text: String,
}

/// A closed family: rows of any other kind are an error.
#[derive(TableEntity)]
#[tablekit(table = "Microblog")]
pub enum Post {
    Blog(Blog),
    Photo(Photo),
    Comment(Comment),
}

/// An open family: rows of any other kind are kept as they are.
#[derive(TableEntity)]
pub enum Feed {
    Blog(Blog),
    Photo(Photo),
    #[tablekit(other)]
    Unknown(DynamicEntity),
}

/// A fresh table for one case, as the model `M` sees it.
async fn microblog<M: TableModel>(client: &TableServiceClient) -> Table<M> {
    let table = client.table_named::<M>(&unique_name("Microblog"));
    table.create().await.expect("create the case's table");
    table
}

fn blog(id: &str, text: &str, rating: i32) -> BlogEntity {
    let mut blog = BlogEntity::new("football", id);
    blog.set_text(text);
    blog.set_rating(rating);
    blog
}

fn photo(id: &str, uri: &str) -> PhotoEntity {
    let mut photo = PhotoEntity::new("football", id);
    photo.set_uri(uri);
    photo
}

fn comment(id: &str, text: &str) -> CommentEntity {
    let mut comment = CommentEntity::new("football", id);
    comment.set_text(text);
    comment
}

/// A row of a kind neither family lists, written untyped.
async fn insert_video(client: &TableServiceClient, table: &str, id: &str) -> DynamicEntity {
    let mut video = DynamicEntity::new("football", id);
    video.set("Kind", "Video");
    video.set("Uri", "https://example.invalid/goal.mp4");
    video.set("Seconds", 42);
    client
        .table_named::<DynamicEntity>(table)
        .insert(&mut video)
        .await
        .expect("insert the video");
    video
}

/// Every row of the table, as stored.
async fn rows(client: &TableServiceClient, table: &str) -> Vec<DynamicEntity> {
    let table = client.table_named::<DynamicEntity>(table);
    table.query_all().collect_all().await.expect("scan")
}

/// The properties of a row other than its Timestamp, which every write changes.
fn stored_properties(row: &DynamicEntity) -> Vec<(String, Value)> {
    row.properties()
        .filter(|(name, _)| *name != "Timestamp")
        .map(|(name, value)| (name.to_owned(), value.clone()))
        .collect()
}

pub async fn each_variant_round_trips_as_its_model(client: &TableServiceClient) {
    assert_eq!(Post::TABLE_NAME, "Microblog");
    let posts = microblog::<Post>(client).await;
    let mut written: Vec<PostEntity> = vec![
        blog("1", "match report", 4).into(),
        photo("2", "https://example.invalid/stadium.jpg").into(),
        comment("3", "what a game").into(),
    ];
    for post in &mut written {
        posts.insert(post).await.expect("insert a post");
    }
    let blog = posts.get("football", "1").await.unwrap().expect("stored");
    let blog = blog.into_blog().expect("a blog");
    assert_eq!((blog.text(), blog.rating()), ("match report".into(), 4));
    let photo = posts.get("football", "2").await.unwrap().expect("stored");
    assert_eq!(photo.kind(), Some("Photo"));
    assert_eq!(
        photo.as_photo().expect("a photo").uri(),
        "https://example.invalid/stadium.jpg"
    );
    assert!(photo.as_blog().is_none());
    let comment = posts.get("football", "3").await.unwrap().expect("stored");
    assert_eq!(
        comment.as_comment().expect("a comment").text(),
        "what a game"
    );
    posts.delete_table().await.unwrap();
}

pub async fn a_mixed_query_reads_each_row_as_its_model_in_row_key_order(
    client: &TableServiceClient,
) {
    let posts = microblog::<Post>(client).await;
    let mut batch = posts.batch();
    batch.insert(&blog("1", "kick-off", 3).into()).unwrap();
    batch
        .insert(&photo("2", "https://example.invalid/1.jpg").into())
        .unwrap();
    batch.insert(&comment("3", "first!").into()).unwrap();
    batch.insert(&blog("4", "full time", 5).into()).unwrap();
    batch.submit().await.unwrap();
    insert_video(client, posts.name(), "5").await;

    let query = Query::<Post>::new().filter(Post::PARTITION_KEY.eq("football"));
    assert_eq!(
        query.filter_string(),
        Some("PartitionKey eq 'football'"),
        "the kinds are added when sent, not to the query's own filter"
    );
    let read = posts.query(query).collect_all().await.unwrap();
    let seen: Vec<(&str, Option<&str>)> = read.iter().map(|p| (p.row_key(), p.kind())).collect();
    assert_eq!(
        seen,
        [
            ("1", Some("Blog")),
            ("2", Some("Photo")),
            ("3", Some("Comment")),
            ("4", Some("Blog")),
        ],
        "the family's query filters on its kinds: the video is not read"
    );
    assert!(matches!(&read[1], PostEntity::Photo(p) if p.uri() == "https://example.invalid/1.jpg"));
    assert_eq!(
        read[3].as_blog().map(|b| b.text()).as_deref(),
        Some("full time")
    );

    // A select still fetches the kind, so each row is read as its model.
    let query = Query::<Post>::new().select(Post::ROW_KEY).top(2).unwrap();
    let mut pages = posts.query(query).pages();
    let first = pages.try_next().await.unwrap().expect("a page");
    assert_eq!(first.entities().len(), 2);
    assert!(first.entities().iter().all(|p| p.kind().is_some()));
    assert_eq!(
        rows(client, posts.name()).await.len(),
        5,
        "nothing was dropped"
    );
    posts.delete_table().await.unwrap();
}

pub async fn a_batch_mixing_variants_applies_all_or_nothing(client: &TableServiceClient) {
    let posts = microblog::<Post>(client).await;
    let mut batch = posts.batch();
    batch.insert(&blog("1", "derby day", 5).into()).unwrap();
    batch.insert(&comment("1-a", "first!").into()).unwrap();
    batch
        .insert(&photo("2", "https://example.invalid/derby.jpg").into())
        .unwrap();
    let outcome = batch.submit().await.unwrap();
    assert_eq!(outcome.results().len(), 3);
    assert_eq!(rows(client, posts.name()).await.len(), 3);

    let mut batch = posts.batch();
    batch
        .insert(&comment("1-b", "late to the party").into())
        .unwrap();
    batch
        .insert(&photo("2", "https://example.invalid/again.jpg").into())
        .unwrap(); // a duplicate
    let err = batch.submit().await.unwrap_err();
    assert!(matches!(err, Error::Batch { index: Some(1), .. }), "{err}");
    let stored = rows(client, posts.name()).await;
    assert_eq!(
        stored.len(),
        3,
        "the failed transaction applied nothing: {stored:?}"
    );
    posts.delete_table().await.unwrap();
}

pub async fn an_unknown_kind_is_kept_in_other_and_written_back_intact(client: &TableServiceClient) {
    let feed = microblog::<Feed>(client).await;
    feed.insert(&mut blog("1", "kick-off", 3).into())
        .await
        .unwrap();
    let video = insert_video(client, feed.name(), "2").await;

    let read = feed.query_all().collect_all().await.unwrap();
    assert_eq!(read.len(), 2, "an open family reads every row");
    assert!(read[0].as_blog().is_some());
    let Some(kept) = read[1].as_unknown() else {
        panic!("the video is not in `other`: {:?}", read[1])
    };
    assert_eq!(stored_properties(kept), stored_properties(&video));

    let mut video_read = feed.get("football", "2").await.unwrap().expect("stored");
    assert_eq!(video_read.kind(), Some("Video"));
    video_read
        .as_unknown_mut()
        .expect("kept in `other`")
        .set("Seconds", 43);
    feed.replace(&mut video_read).await.unwrap();
    let raw = client.table_named::<DynamicEntity>(feed.name());
    let stored = raw.get("football", "2").await.unwrap().expect("stored");
    let mut expected = video.clone();
    expected.set("Seconds", 43);
    assert_eq!(
        stored_properties(&stored),
        stored_properties(&expected),
        "a Replace of the kept row wrote back every property"
    );
    feed.delete_table().await.unwrap();
}

pub async fn an_unknown_kind_without_other_is_a_typed_error(client: &TableServiceClient) {
    let posts = microblog::<Post>(client).await;
    insert_video(client, posts.name(), "1").await;
    let err = posts.get("football", "1").await.unwrap_err();
    let Error::WrongKind(wrong) = &err else {
        panic!("not a kind error: {err}")
    };
    assert_eq!(wrong.found.as_deref(), Some("Video"));
    assert_eq!(wrong.kinds, ["Blog", "Photo", "Comment"]);
    assert_eq!(
        err.to_string(),
        "entity (football, 1) is of no kind of `Post` (`Blog`, `Photo`, `Comment`): its `Kind` is `Video`"
    );

    let mut untyped = DynamicEntity::new("football", "2");
    untyped.set("Text", "no kind at all");
    client
        .table_named::<DynamicEntity>(posts.name())
        .insert(&mut untyped)
        .await
        .unwrap();
    let err = posts.get("football", "2").await.unwrap_err();
    assert!(
        matches!(&err, Error::WrongKind(WrongKind { found: None, .. })),
        "{err}"
    );
    assert_eq!(
        rows(client, posts.name()).await.len(),
        2,
        "nothing was dropped"
    );
    posts.delete_table().await.unwrap();
}

pub async fn a_variant_filter_narrows_a_family_query_to_its_kind(client: &TableServiceClient) {
    let posts = microblog::<Post>(client).await;
    let mut batch = posts.batch();
    batch.insert(&blog("1", "dull", 2).into()).unwrap();
    batch.insert(&blog("2", "thrilling", 5).into()).unwrap();
    let mut rated_photo = photo("3", "https://example.invalid/3.jpg");
    rated_photo.as_dynamic_mut().set("Rating", 5); // a `Rating` of another kind
    batch.insert(&rated_photo.into()).unwrap();
    batch.submit().await.unwrap();

    let filter = Post::only(Blog::RATING.gt(3));
    assert_eq!(filter.to_string(), "Kind eq 'Blog' and (Rating gt 3)");
    let query = Query::<Post>::new().filter(Post::PARTITION_KEY.eq("football").and(filter));
    let read = posts.query(query).collect_all().await.unwrap();
    let texts: Vec<String> = read
        .iter()
        .map(|p| p.as_blog().expect("only blogs").text())
        .collect();
    assert_eq!(texts, ["thrilling"]);
    let every_photo = Query::<Post>::new().filter(Post::only(Filter::<Photo>::all()));
    assert_eq!(posts.query(every_photo).count().await.unwrap(), 1);
    posts.delete_table().await.unwrap();
}

pub async fn every_write_refuses_a_variant_whose_row_is_of_another_kind(
    client: &TableServiceClient,
) {
    let posts = microblog::<Post>(client).await;
    let mut mislabeled = blog("1", "a photo in disguise", 1);
    mislabeled.as_dynamic_mut().set("Kind", "Photo");
    let mut post = PostEntity::from(mislabeled);
    let err = posts.insert(&mut post).await.unwrap_err();
    assert!(
        matches!(&err, Error::WrongKind(WrongKind { expected: "Blog", found: Some(found), .. }) if found == "Photo"),
        "{err}"
    );
    assert!(posts.upsert_replace(&mut post).await.is_err());
    assert!(posts.batch().insert(&post).is_err());

    // In an open family a model's row without its kind would come back in `other`.
    let feed = client.table_named::<Feed>(posts.name());
    let mut kindless = blog("2", "lost its kind", 1);
    kindless.as_dynamic_mut().remove("Kind");
    let err = feed.upsert_merge(&mut kindless.into()).await.unwrap_err();
    assert!(matches!(err, Error::WrongKind(_)), "{err}");
    assert!(
        rows(client, posts.name()).await.is_empty(),
        "nothing was sent"
    );
    posts.delete_table().await.unwrap();
}

on_servers!(
    each_variant_round_trips_as_its_model,
    a_mixed_query_reads_each_row_as_its_model_in_row_key_order,
    a_batch_mixing_variants_applies_all_or_nothing,
    an_unknown_kind_is_kept_in_other_and_written_back_intact,
    an_unknown_kind_without_other_is_a_typed_error,
    a_variant_filter_narrows_a_family_query_to_its_kind,
    every_write_refuses_a_variant_whose_row_is_of_another_kind,
);
