struct Report(String);

#[skyl::tools]
impl Report {
    /// Returns the report.
    #[tool]
    fn read(self) -> String {
        self.0
    }
}

fn main() {
    let _ = skyl::Toolbox::new().with_set(Report(String::new()));
}
