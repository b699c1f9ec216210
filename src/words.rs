//! Suggestions for a misspelt word: the closest of the words a place accepts.

/// The word of `candidates` closest to `word` (edit distance, ignoring case), if it is close
/// enough to be a misspelling: at most one edit for a word of up to four letters, two beyond.
/// A case-only difference (`j` for `J`) is always closest.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let most = if word.chars().count() <= 4 { 1 } else { 2 };
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(&lower, &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= most)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Levenshtein distance between `a` and `b`, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelling_finds_its_word_and_a_stranger_finds_none() {
        assert_eq!(closest("j", ["J", "partition", "cuts"]), Some("J"));
        assert_eq!(closest("numb", ["name", "numa", "seed"]), Some("numa"));
        assert_eq!(
            closest("partiton", ["J", "partition", "cuts"]),
            Some("partition")
        );
        assert_eq!(closest("replicas", ["slots", "warmup"]), None);
        assert_eq!(closest("J", ["J"]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
    }
}
