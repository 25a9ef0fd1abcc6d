//! Run a scenario file (JSON) and print the results as JSON: `cargo run --release -p
//! bufsize-sim --example run -- scenario.json`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: run SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("read scenario");
    let s = match bufsize_sim::Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    match bufsize_sim::run(&s) {
        Ok(r) => {
            let mut v = serde_json::to_value(&r.summary).unwrap();
            v["wall_seconds"] = serde_json::json!(t0.elapsed().as_secs_f64());
            println!("{}", serde_json::to_string_pretty(&v).unwrap());
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
