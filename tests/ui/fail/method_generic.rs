struct Store;

#[skyl::tools]
impl Store {
    /// Stores a value.
    #[tool]
    fn put<T: serde::de::DeserializeOwned>(&self, value: T) {
        let _ = value;
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Store);
}
