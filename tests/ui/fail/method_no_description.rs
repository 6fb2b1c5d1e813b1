struct Store;

#[skyl::tools]
impl Store {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        0
    }

    #[tool]
    fn clear(&self) {}
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Store);
}
