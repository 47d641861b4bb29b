//! Counts in words, as every output writes them: `12,345`, `1 row`, `2,782 logs`.

/// `12,345`: the thousands apart.
pub fn grouped(number: u64) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// `count` things: `1 log`, `2,782 logs`.
pub fn counted(count: u64, one: &str, many: &str) -> String {
    if count == 1 { format!("1 {one}") } else { format!("{} {many}", grouped(count)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands_and_named_in_the_singular_for_one() {
        let said: Vec<_> = [0, 1, 2, 999, 1000, 2782, 1_234_567].map(|count| counted(count, "log", "logs")).into();
        assert_eq!(said, ["0 logs", "1 log", "2 logs", "999 logs", "1,000 logs", "2,782 logs", "1,234,567 logs"]);
    }
}
