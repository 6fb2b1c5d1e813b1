//! The one small random-number generator skyl uses, to pick test values from a seed: SplitMix64
//! (Steele, Lea and Flood, 2014). Tiny, fast, the same sequence on every platform, and good
//! enough to pick values; skyl needs no random-number crate for it.

/// The golden-ratio increment of SplitMix64, also what spreads one seed into many.
pub(crate) const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// A SplitMix64 generator; its state is the seed it was made from, advanced once a draw.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    /// A number in `lower..=upper` (`lower` when the range is empty).
    pub(crate) fn between(&mut self, lower: i128, upper: i128) -> i128 {
        if upper <= lower {
            return lower;
        }
        let span = (upper - lower + 1) as u128;
        let draw = (u128::from(self.next()) << 64 | u128::from(self.next())) % span;
        lower + draw as i128
    }

    /// `true` `numerator` times in `denominator`.
    pub(crate) fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.below(denominator) < numerator
    }

    /// One of `items`, `None` when there are none.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len() as u64) as usize])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_splitmix64s() {
        // The first outputs for seed 0, as the reference implementation (Vigna's splitmix64.c)
        // gives them.
        let mut random = SplitMix64::new(0);
        assert_eq!(random.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(random.next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(random.next(), 0x06c4_5d18_8009_454f);
    }
}
