// A crate deriving `Record` and `TableEntity` side by side: compiler messages about tablekit's
// types must name them by their public path, never by a path the derives generate.
mod model {
    use tablekit::prelude::*;

    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 1)]
    pub struct Line {
        pub qty: i32,
    }

    #[derive(TableEntity)]
    #[tablekit(table = "Shop")]
    pub struct Order {
        #[tablekit(partition_key)]
        pub customer: String,
        pub status: String,
    }
}

use model::Order;

fn main() {
    let filter = Order::STATUS.eq("shipped");
    let _: u32 = filter;
}
