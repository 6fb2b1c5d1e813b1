struct Notes;

impl Notes {
    /// Asks for a summary.
    #[skyl::prompt]
    fn summarize(&self) -> String {
        "Summarize.".to_owned()
    }
}

fn main() {}
