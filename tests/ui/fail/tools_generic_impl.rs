struct Store<T>(Vec<T>);

#[skyl::tools]
impl<T: Send + Sync + 'static> Store<T> {
    /// Counts the items.
    #[tool]
    fn count(&self) -> usize {
        self.0.len()
    }
}

fn main() {
    let _ = Store(vec![1]).count();
}
