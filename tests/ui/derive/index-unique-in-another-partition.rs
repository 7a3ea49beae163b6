use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "Employees")]
struct Employee {
    #[tablekit(partition_key)]
    department: String,
    #[tablekit(row_key)]
    id: String,
    #[tablekit(index(unique, partition = "ByEmail"))]
    email: String,
}

fn main() {
    let _ = EmployeeEntity::new("Sales", "e-1").email();
}
