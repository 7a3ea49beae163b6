use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "Employees")]
struct Employee {
    #[tablekit(partition_key)]
    department: String,
    #[tablekit(row_key)]
    id: String,
    #[tablekit(index(name = "contact"))]
    email: String,
    #[tablekit(index(unique, name = "contact"))]
    phone: String,
}

fn main() {
    let employee = EmployeeEntity::new("Sales", "e-1");
    let _ = (employee.email(), employee.phone());
}
