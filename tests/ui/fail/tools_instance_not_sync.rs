use std::cell::Cell;

struct Counter(Cell<u64>);

#[skyl::tools]
impl Counter {
    /// Adds one.
    #[tool]
    fn increment(&self) -> u64 {
        self.0.set(self.0.get() + 1);
        self.0.get()
    }
}

fn main() {
    let _ = Counter(Cell::new(0)).increment();
}
