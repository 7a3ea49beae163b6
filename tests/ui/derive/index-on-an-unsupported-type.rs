use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "Employees")]
struct Employee {
    #[tablekit(partition_key)]
    department: String,
    #[tablekit(row_key)]
    id: String,
    #[tablekit(index)]
    salary: f64,
}

fn main() {
    let mut employee = EmployeeEntity::new("Sales", "e-1");
    employee.set_salary(1.5);
}
