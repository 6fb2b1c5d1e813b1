struct Store;

#[skyl::tools]
impl Store {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        // `#[tools]` passes method bodies through as written: a mistake in one is the compiler's
        // to report, once, where it is.
        item_count
    }
}

fn main() {
    let _ = Store.count();
}
