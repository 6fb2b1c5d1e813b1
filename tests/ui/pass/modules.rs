//! A tool in a module, used from outside it, and types from elsewhere.

mod tools {
    use std::collections::BTreeMap;

    /// Sums the values.
    #[skyl::tool]
    pub fn sum(
        /// Named numbers.
        values: BTreeMap<String, i64>,
        /// A label.
        label: Option<super::Label>,
    ) -> i64 {
        let _ = label;
        values.values().sum()
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Label {
    text: String,
}

fn main() {
    let toolbox = skyl::Toolbox::new().with(tools::Sum);
    assert_eq!(toolbox.len(), 1);
    let _ = Label { text: String::new() }.text;
}
