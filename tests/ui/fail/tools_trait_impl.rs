struct Store;

#[skyl::tools]
impl Default for Store {
    /// Makes a store.
    #[tool]
    fn default() -> Self {
        Store
    }
}

fn main() {
    let _ = Store::default();
}
