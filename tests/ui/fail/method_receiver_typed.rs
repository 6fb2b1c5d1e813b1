use std::sync::Arc;

struct Report(String);

#[skyl::tools]
impl Report {
    /// Returns the report.
    #[tool]
    fn read(self: Arc<Self>) -> String {
        self.0.clone()
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Report(String::new()));
}
