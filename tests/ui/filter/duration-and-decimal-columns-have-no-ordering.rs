use std::time::Duration;

use rust_decimal::Decimal;
use tablekit::prelude::*;

// Durations beyond ±292 years and decimals are stored as text, which does not sort like the
// numbers: a range filter over them would miss rows.
#[derive(TableEntity)]
struct Job {
    #[tablekit(partition_key)]
    name: String,
    timeout: Duration,
    price: Decimal,
}

fn main() {
    let _ = Job::TIMEOUT.gt(Duration::from_secs(30));
    let _ = Job::PRICE.le(Decimal::ONE);
    let _ = Job::TIMEOUT.eq(Duration::from_secs(30)).and(Job::PRICE.ne(Decimal::ONE));
}
