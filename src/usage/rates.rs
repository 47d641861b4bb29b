//! The rate table: published per-token prices by model, a documented normalisation of the
//! model ids the logs write, and pricing in integer nano-dollars (prices have at most three
//! decimals in USD per million tokens, which is exactly nano-dollars per token / 1000).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;

use super::Tokens;

const DEFAULT_RATES: &str = include_str!("default-rates.json");

#[derive(Debug, Clone)]
pub struct RateTable {
    pub source: String,
    /// The source by name and date, as the page shows it (`source` says where exactly).
    pub title: String,
    models: Vec<ModelRate>,
    by_id: HashMap<String, usize>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelRate {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    #[serde(flatten)]
    pub base: Tier,
    #[serde(default)]
    pub long_context: Option<LongContext>,
}

/// Prices of one tier, in USD per million tokens.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Tier {
    pub input: f64,
    pub cached_input: f64,
    /// `None`: no cache-write charge; cache writes are then priced as input.
    #[serde(default)]
    pub cache_write: Option<f64>,
    pub output: f64,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct LongContext {
    /// A call whose input exceeds this many tokens is priced at this tier.
    pub above_input_tokens: u64,
    #[serde(flatten)]
    pub tier: Tier,
}

#[derive(Deserialize)]
struct RateFile {
    #[serde(default)]
    source: String,
    /// The source by name and date; a user's file without one is shown by its `source`.
    #[serde(default)]
    title: String,
    models: Vec<ModelRate>,
}

impl RateTable {
    /// What the table says, for the cache to tell whether an entry was made with the same one.
    pub fn fingerprint(&self) -> String {
        format!("{}{:?}", self.source, self.models)
    }

    /// The table pinned in the repository.
    pub fn default_table() -> RateTable {
        Self::parse(DEFAULT_RATES).expect("the pinned rate table parses")
    }

    /// A table in the pinned file's format.
    pub fn parse(text: &str) -> Result<RateTable, String> {
        let file: RateFile =
            crate::json::from_str(text, &mut String::new()).map_err(|error| format!("rates file: {error}"))?;
        let title = if file.title.is_empty() { file.source.clone() } else { file.title };
        let mut table = RateTable { source: file.source, title, models: Vec::new(), by_id: HashMap::new() };
        for model in file.models {
            table.insert(model)?;
        }
        Ok(table)
    }

    /// The pinned table with a user's entries added or replacing those of the same id.
    pub fn with_overrides(text: &str) -> Result<RateTable, String> {
        let user = Self::parse(text)?;
        let mut table = Self::default_table();
        table.source = format!("{} (overridden by a user file: {})", table.source, user.source);
        table.title = format!("{} (overridden by a user file: {})", table.title, user.title);
        for model in user.models {
            table.insert(model)?;
        }
        Ok(table)
    }

    fn insert(&mut self, model: ModelRate) -> Result<(), String> {
        let tiers = std::iter::once(&model.base).chain(model.long_context.as_ref().map(|long| &long.tier));
        for tier in tiers {
            let prices = [tier.input, tier.cached_input, tier.cache_write.unwrap_or(0.0), tier.output];
            if prices.iter().any(|price| !price.is_finite() || *price < 0.0) {
                return Err(format!("rates file: {} has a price that is not a non-negative number", model.id));
            }
        }
        let index = match self.by_id.get(normalise(&model.id).as_ref()) {
            Some(&index) => {
                self.models[index] = model.clone();
                index
            }
            None => {
                self.models.push(model.clone());
                self.models.len() - 1
            }
        };
        for name in std::iter::once(&model.id).chain(&model.aliases) {
            self.by_id.insert(normalise(name).into_owned(), index);
        }
        Ok(())
    }

    pub fn lookup(&self, model: &str) -> Option<&ModelRate> {
        self.by_id.get(normalise(model).as_ref()).map(|&index| &self.models[index])
    }

    /// The id of a model named by its id, an alias, or its display name (as GitHub's usage
    /// report names it: "Claude Opus 4.6" is `claude-opus-4.6`).
    pub fn id_of(&self, model: &str) -> Option<&str> {
        let named = || {
            let wanted = normalise(model);
            self.models.iter().find(|rate| !rate.name.is_empty() && normalise(&rate.name) == wanted)
        };
        self.lookup(model).or_else(named).map(|rate| rate.id.as_str())
    }
}

impl ModelRate {
    /// The tier a single call with `input_tokens` of input is priced at.
    pub fn tier_for_call(&self, input_tokens: u64) -> &Tier {
        match &self.long_context {
            Some(long) if input_tokens > long.above_input_tokens => &long.tier,
            _ => &self.base,
        }
    }
}

/// A model id as the table knows it (see `normalisation` in default-rates.json). Borrowed
/// unless it must be lowercased or have its spaces and underscores replaced: a lookup per call
/// of an id as Copilot writes it allocates nothing.
pub fn normalise(model: &str) -> Cow<'_, str> {
    let trimmed = model.trim();
    let plain = !trimmed.bytes().any(|byte| byte.is_ascii_uppercase() || byte == b' ' || byte == b'_' || byte >= 0x80);
    if plain {
        Cow::Borrowed(without_variant(trimmed))
    } else {
        Cow::Owned(without_variant(&trimmed.to_lowercase().replace([' ', '_'], "-")).to_string())
    }
}

/// A lowercased id without its provider, 1M-context variant and date.
fn without_variant(id: &str) -> &str {
    let mut id = id.rsplit_once('/').map_or(id, |(_, after)| after);
    // A 1M-context variant is billed as its model (ccusage reads Copilot's ids the same way).
    for suffix in ["-1m-internal", "-1m"] {
        if let Some(base) = id.strip_suffix(suffix) {
            id = base;
            break;
        }
    }
    let bytes = id.as_bytes();
    let digits =
        |range: std::ops::Range<usize>| bytes.get(range).is_some_and(|part| part.iter().all(u8::is_ascii_digit));
    let n = bytes.len();
    if n > 11
        && bytes[n - 11] == b'-'
        && bytes[n - 6] == b'-'
        && bytes[n - 3] == b'-'
        && digits(n - 10..n - 6)
        && digits(n - 5..n - 3)
        && digits(n - 2..n)
    {
        &id[..n - 11]
    } else if n > 9 && bytes[n - 9] == b'-' && digits(n - 8..n) {
        &id[..n - 9]
    } else {
        id
    }
}

/// Nano-dollars per token of a price in USD per million tokens.
fn nanos(price_per_million: f64) -> u128 {
    (price_per_million * 1000.0).round() as u128
}

impl Tier {
    /// The cost of these tokens at this tier, in nano-dollars.
    pub fn cost_nanos(&self, tokens: &Tokens) -> u128 {
        let cache_write_price = self.cache_write.unwrap_or(self.input);
        u128::from(tokens.fresh_input()) * nanos(self.input)
            + u128::from(tokens.cache_read) * nanos(self.cached_input)
            + u128::from(tokens.cache_write) * nanos(cache_write_price)
            + u128::from(tokens.output) * nanos(self.output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_normalised_before_lookup() {
        assert_eq!(normalise("Claude Sonnet 4.5"), "claude-sonnet-4.5");
        assert_eq!(normalise("copilot/gpt-4o-mini-2024-07-18"), "gpt-4o-mini");
        assert_eq!(normalise("anthropic/claude-opus-4.6-20260101"), "claude-opus-4.6");
        assert_eq!(normalise("claude-opus-4.6-1m"), "claude-opus-4.6");
        assert_eq!(normalise(" Copilot/Claude_Opus-4.6-1M-internal "), "claude-opus-4.6");
        assert_eq!(normalise("GPT-ÉTÉ"), "gpt-été");
        // An id already lowercase, as Copilot writes them, is looked up in place.
        for plain in ["gpt-5.4", "copilot/gpt-4o-mini-2024-07-18", "claude-opus-4.6-1m"] {
            assert!(matches!(normalise(plain), Cow::Borrowed(_)), "{plain}");
        }
        let table = RateTable::default_table();
        assert_eq!(table.lookup("GPT-5.4").unwrap().id, "gpt-5.4");
        assert_eq!(table.lookup("gemini-3.1-pro-preview").unwrap().id, "gemini-3.1-pro");
        assert!(table.lookup("gpt-6.1-sol").is_none());
        assert!(table.lookup("auto").is_none());
    }

    #[test]
    fn the_page_shows_the_source_by_name_and_date_and_a_users_file_beside_it() {
        let table = RateTable::default_table();
        assert_eq!(table.title, "GitHub Docs, models and pricing, 2026-11-30");
        assert!(table.source.contains("commit"), "the provenance stays whole for the CLI: {}", table.source);
        let mine = RateTable::with_overrides(r#"{"source":"my notes","models":[]}"#).unwrap();
        assert_eq!(mine.title, "GitHub Docs, models and pricing, 2026-11-30 (overridden by a user file: my notes)");
    }

    #[test]
    fn prices_each_counter_at_its_rate_in_nanos() {
        let table = RateTable::default_table();
        // 1M fresh input, 2M cache reads, 1M cache writes, 1M output on Claude Sonnet 4.5:
        // 3.00 + 2 * 0.30 + 3.75 + 15.00 = 22.35 USD.
        let tokens = Tokens {
            requests: 1,
            input: 4_000_000,
            cache_read: 2_000_000,
            cache_write: 1_000_000,
            output: 1_000_000,
            reasoning: 0,
        };
        assert_eq!(table.lookup("claude-sonnet-4.5").unwrap().base.cost_nanos(&tokens), 22_350_000_000);
        // A model with no cache-write charge prices cache writes as input: GPT-5.4, 1M writes = 2.50 USD.
        let writes = Tokens { input: 1_000_000, cache_write: 1_000_000, ..Tokens::default() };
        assert_eq!(table.lookup("gpt-5.4").unwrap().base.cost_nanos(&writes), 2_500_000_000);
        assert_eq!(table.lookup("gpt-5.4").unwrap().tier_for_call(300_000).input, 5.0);
    }

    #[test]
    fn a_user_file_overrides_and_adds() {
        let table = RateTable::with_overrides(r#"{"source":"mine","models":[{"id":"gpt-5.4","input":1,"cached_input":0.1,"output":2},{"id":"gpt-6.1-sol","input":9,"cached_input":1,"output":9}]}"#).unwrap();
        assert_eq!(table.lookup("gpt-5.4").unwrap().base.input, 1.0);
        assert!(table.lookup("gpt-6.1-sol").is_some() && table.lookup("claude-opus-5").is_some());
        assert!(
            RateTable::with_overrides(r#"{"models":[{"id":"x","input":-1,"cached_input":0,"output":0}]}"#).is_err()
        );
    }
}
