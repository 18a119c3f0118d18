//! A set of numbers kept as one bit each: games of a schedule, transcripts
//! of an archive. A million games take 125 KiB.

/// Numbers from 0, one bit each; it grows to hold the largest inserted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set with room for `0..len` without growing.
    pub fn with_len(len: u64) -> BitSet {
        BitSet { words: vec![0; len.div_ceil(64) as usize] }
    }

    /// Adds `number`; whether it was not in the set yet.
    pub fn insert(&mut self, number: u64) -> bool {
        let word = (number / 64) as usize;
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let bit = 1 << (number % 64);
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        new
    }

    /// Whether the set holds `number`.
    pub fn contains(&self, number: u64) -> bool {
        self.words.get((number / 64) as usize).is_some_and(|word| word & (1 << (number % 64)) != 0)
    }

    /// How many numbers the set holds.
    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.words.iter().map(|word| u64::from(word.count_ones())).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_go_in_once_and_the_set_grows() {
        let mut set = BitSet::with_len(10);
        assert!(set.insert(3) && !set.insert(3));
        assert!(set.insert(1000));
        assert!(set.contains(3) && set.contains(1000) && !set.contains(4) && !set.contains(5000));
        assert_eq!(set.count(), 2);
    }
}
