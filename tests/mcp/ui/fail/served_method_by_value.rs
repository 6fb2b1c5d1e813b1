struct Notes;

#[skyl::served]
impl Notes {
    /// Today's notes.
    #[resource(uri = "notes://today")]
    fn today(self) -> String {
        "Buy milk.".to_owned()
    }
}

fn main() {}
