struct Counter(u64);

#[skyl::tools]
impl Counter {
    /// Adds one.
    #[tool]
    fn increment(&mut self) -> u64 {
        self.0 += 1;
        self.0
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Counter(0));
}
