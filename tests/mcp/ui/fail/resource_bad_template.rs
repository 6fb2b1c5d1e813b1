/// A search.
#[skyl::resource(uri_template = "notes://search{?query}")]
fn search(query: String) -> String {
    query
}

fn main() {}
