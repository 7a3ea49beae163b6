// A model of table `Shops`, from a sample of 15 entities in 3 partitions.
// What the sample cannot tell, to check before use:
// - the meaning of values: enums (`#[derive(TableValue)]`), JSON (`json`) and records
//   (`records`) read here as the `String`, `i32` or `Vec<u8>` they are stored as;
// - properties present in every sampled row are plain fields: a row outside the
//   sample that lacks one reads its default;
// - `Score`: its type varies (Int32 x9, String x3), read as `Value`;

use tablekit::prelude::*;

// An entity family, proposed: `Kind` takes 2 values whose rows hold different
// properties, so each kind could be a model of its own, read as one enum:
//
//     #[derive(TableEntity)]
//     #[tablekit(kind = "Customer")]
//     pub struct Customer { /* 3 rows; always: Email, Since, Vip */ }
//
//     #[derive(TableEntity)]
//     #[tablekit(kind = "Order")]
//     pub struct Order { /* 12 rows; always: OrderId, Paid, PlacedAt, Quantity, Score, Sequence, Total */ }
//
//     #[derive(TableEntity)]
//     #[tablekit(table = "Shops")]
//     pub enum ShopRow {
//         Customer(Customer),
//         Order(Order),
//         #[tablekit(other)]
//         Other(DynamicEntity),
//     }

#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Shops", partition_key(constant = "shop", order = 0))]
pub struct Shop {
    /// The PartitionKey's part 1: 4 zero-padded digits.
    #[tablekit(partition_key(order = 1, pad = 4), key_only)]
    pub shop: u64,
    /// The RowKey: 19-digit inverted ticks, newest first.
    #[tablekit(row_key(inverted_ticks), key_only)]
    pub row: DateTime<Utc>,
    /// String
    #[tablekit(rename = "Kind")]
    pub kind_value: String,
    /// Guid, in 12 of 15 sampled rows (80%)
    pub order_id: Option<Uuid>,
    /// DateTime, in 12 of 15 sampled rows (80%)
    pub placed_at: Option<DateTime<Utc>>,
    /// Int32, in 12 of 15 sampled rows (80%)
    pub quantity: Option<i32>,
    /// Double, in 12 of 15 sampled rows (80%)
    pub total: Option<f64>,
    /// Boolean, in 12 of 15 sampled rows (80%)
    pub paid: Option<bool>,
    /// Int64, in 12 of 15 sampled rows (80%)
    pub sequence: Option<i64>,
    /// types vary (Int32 x9, String x3): read as `Value`, in 12 of 15 sampled rows (80%)
    pub score: Option<Value>,
    /// Binary, in 6 of 15 sampled rows (40%)
    pub receipt: Option<Vec<u8>>,
    /// String, in 6 of 15 sampled rows (40%)
    #[tablekit(rename = "gift_note")]
    pub gift_note: Option<String>,
    /// String, in 3 of 15 sampled rows (20%)
    pub email: Option<String>,
    /// Boolean, in 3 of 15 sampled rows (20%)
    pub vip: Option<bool>,
    /// DateTime, in 3 of 15 sampled rows (20%)
    pub since: Option<DateTime<Utc>>,
}
