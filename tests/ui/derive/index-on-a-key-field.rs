use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "Employees")]
struct Employee {
    #[tablekit(partition_key)]
    department: String,
    #[tablekit(row_key, index(unique))]
    id: String,
}

// The generated API is there all the same: only the misplaced index is reported.
fn main() {
    let employee = EmployeeEntity::new("Sales", "e-1");
    let _ = employee.id();
}
