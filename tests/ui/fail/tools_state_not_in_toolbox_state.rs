struct Clock;
struct Store;

#[skyl::tools]
impl Store {
    /// Says what time it is.
    #[tool]
    fn now(&self, #[state] clock: &Clock) -> String {
        let _ = clock;
        String::new()
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Store);
}
