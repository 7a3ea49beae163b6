// Models live in their own module and are used from another: nothing the derives generate for
// their public API (index lookups, family accessors and filters, flattened columns, spread
// fields) may name a type private to the model's module.
mod models {
    use tablekit::prelude::*;

    #[derive(TableEntity)]
    #[tablekit(table = "Employees")]
    pub struct Employee {
        #[tablekit(partition_key)]
        pub department: String,
        #[tablekit(row_key)]
        pub id: String,
        #[tablekit(index(unique))]
        pub email: String,
        #[tablekit(index)]
        pub last_name: String,
        #[tablekit(index(partition = "ByBadge"))]
        pub badge: i64,
        #[tablekit(flatten)]
        pub address: Address,
    }

    #[derive(Debug, Clone, PartialEq, Default, TableFields)]
    pub struct Address {
        pub city: String,
        #[tablekit(flatten(prefix = "Geo"))]
        pub geo: Option<Geo>,
    }

    #[derive(Debug, Clone, PartialEq, Default, TableFields)]
    pub struct Geo {
        pub lat: f64,
    }

    #[derive(TableEntity)]
    #[tablekit(kind = "Blog")]
    pub struct Blog {
        #[tablekit(partition_key)]
        pub channel: String,
        #[tablekit(row_key)]
        pub id: String,
        pub rating: i32,
        #[tablekit(split(rows = 2))]
        pub attachment: Vec<u8>,
    }

    #[derive(TableEntity)]
    #[tablekit(kind = "Photo")]
    pub struct Photo {
        #[tablekit(partition_key)]
        pub channel: String,
        #[tablekit(row_key)]
        pub id: String,
    }

    #[derive(TableEntity)]
    #[tablekit(table = "Microblog")]
    pub enum Post {
        Blog(Blog),
        Photo(Photo),
        #[tablekit(other)]
        Unknown(DynamicEntity),
    }
}

use models::*;
use tablekit::client::Table;
use tablekit::prelude::*;

#[allow(dead_code)]
async fn lookups(table: &Table<Employee>) -> tablekit::Result<()> {
    let _: Option<EmployeeEntity> = Employee::by_email(table, "Sales", "kim@example.com").await?;
    let _: Vec<EmployeeEntity> = Employee::by_last_name(table, "Sales", "Smith").await?;
    let _: Vec<EmployeeEntity> = Employee::by_badge(table, &7).await?;
    Ok(())
}

fn main() {
    let mut kim = EmployeeEntity::new("Sales", "e-1");
    let _ = kim.set_address(Address::default());
    let _ = kim.address().geo;
    let _ = Query::<Employee>::new().filter(Employee::ADDRESS.city().eq("Oslo"));
    let _ = Query::<Employee>::new().filter(Employee::ADDRESS.geo().lat().gt(1.0));
    let _ = Query::<Employee>::new().select(Employee::ADDRESS);

    let mut blog = BlogEntity::new("football", "1");
    let _ = blog.set_attachment(&[1, 2, 3]);
    let post = PostEntity::from(blog);
    let _ = post.as_blog().map(|b| b.rating());
    let _ = post.kind();
    let _ = Query::<Post>::new()
        .filter(Post::PARTITION_KEY.eq("football").and(Post::only(Blog::RATING.gt(3))));
}
