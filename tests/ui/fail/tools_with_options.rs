struct Store;

#[skyl::tools(prefix = "store_")]
impl Store {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        0
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Store);
}
