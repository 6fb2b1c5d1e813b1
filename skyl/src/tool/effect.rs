//! The effect key of the call running on this thread: set by whoever runs the call in a journaled
//! run (the toolbox, the code `#[tool]` generates), read by the tool.

std::thread_local! {
    static EFFECT_KEY: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The effect key of the tool call running on this thread, in a journaled run: pass it to an
/// external API as its idempotency key, so that a call run again after a crash (a read-only or
/// idempotent tool's) is not done twice there either.
///
/// `None` outside a journaled run. The key is set while the tool's code runs on the thread that
/// polls it: in a synchronous tool, and in an asynchronous one at every poll. A
/// `#[tool(blocking)]` tool runs on another thread: read the key before it starts there, or make
/// the tool `async`.
///
/// ```
/// /// Charges a card.
/// #[skyl::tool]
/// fn charge(cents: u64) -> String {
///     let key = skyl::agent::effect_key().unwrap_or_default();
///     format!("charged {cents} with idempotency key {key:?}")
/// }
/// # let _ = Charge;
/// ```
pub fn effect_key() -> Option<String> {
    EFFECT_KEY.with(|key| key.borrow().clone())
}

/// Sets the effect key of this thread for as long as the guard lives.
pub(crate) struct EffectKeyGuard(Option<String>);

impl EffectKeyGuard {
    /// `None`, at no cost, for a call without a key: every dispatch outside a journaled run.
    #[inline]
    pub(crate) fn set(key: Option<&str>) -> Option<Self> {
        let key = key?;
        let before = EFFECT_KEY.with(|slot| slot.replace(Some(key.to_owned())));
        Some(EffectKeyGuard(before))
    }
}

impl Drop for EffectKeyGuard {
    fn drop(&mut self) {
        let before = self.0.take();
        EFFECT_KEY.with(|slot| *slot.borrow_mut() = before);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_effect_key_is_set_while_the_guard_lives() {
        assert_eq!(effect_key(), None);
        {
            let _guard = EffectKeyGuard::set(Some("run/1/c1"));
            assert_eq!(effect_key().as_deref(), Some("run/1/c1"));
        }
        assert_eq!(effect_key(), None);
    }
}
