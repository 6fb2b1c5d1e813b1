struct Store;

#[skyl::tools]
impl Store {
    /// Counts the items.
    fn count(&self) -> usize {
        0
    }
}

fn main() {
    let _ = Store.count();
}
