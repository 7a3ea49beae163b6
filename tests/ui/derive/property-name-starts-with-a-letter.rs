use tablekit::prelude::*;

// `½` is a number, not a letter: the service refuses the name, so the derive does too, by the
// same rule the runtime checks writes with.
#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "½x")]
    half: i32,
}

fn main() {
    let mut gamer = GamerEntity::new("dragon");
    gamer.set_half(gamer.half() + 1);
    let _ = Query::<Gamer>::new().filter(Gamer::HALF.ge(1));
}
