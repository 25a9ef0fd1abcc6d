//! Run a scenario file and print the full results JSON (debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: dump SCENARIO.json");
    let s = bufsize_sim::Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    println!("{}", bufsize_sim::run(&s).unwrap().to_json());
}
