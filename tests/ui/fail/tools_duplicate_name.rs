struct Store;

#[skyl::tools]
impl Store {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        0
    }

    /// Counts the items another way.
    #[tool(name = "count")]
    fn count_again(&self) -> usize {
        0
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Store);
}
