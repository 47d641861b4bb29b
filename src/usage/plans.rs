//! Copilot plans and their monthly allowances of AI credits, as a small data file with its
//! source (`plans.json`), which a person can override or extend with their own.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::counters::MAX_PLAUSIBLE_BILLED;

const DEFAULT_PLANS: &str = include_str!("plans.json");

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Plans {
    /// Where the allowances were read, and when.
    pub source: String,
    /// A plan's name and its monthly allowance in AI credits.
    pub plans: BTreeMap<String, f64>,
    /// A built-in plan's product name ("Copilot Pro+" for `pro-plus`): plans.json's `titles`,
    /// read apart as a JSON value (a map of strings would add serde code the page's first
    /// download has no room for).
    #[serde(skip_deserializing)]
    pub titles: Vec<(String, String)>,
}

impl Plans {
    pub fn default_table() -> Plans {
        let mut plans: Plans = serde_json::from_str(DEFAULT_PLANS).expect("plans.json is valid");
        let value: serde_json::Value = serde_json::from_str(DEFAULT_PLANS).expect("plans.json is valid");
        for (name, title) in value.get("titles").and_then(serde_json::Value::as_object).into_iter().flatten() {
            plans.titles.push((name.clone(), title.as_str().unwrap_or(name).to_string()));
        }
        plans
    }

    /// The default table with a file's plans added or replacing those of the same name (its
    /// source, if it gives one, named first).
    pub fn with_overrides(text: &str) -> Result<Plans, String> {
        #[derive(Deserialize)]
        struct Overrides {
            source: Option<String>,
            plans: BTreeMap<String, f64>,
        }
        let overrides: Overrides =
            crate::json::from_str(text, &mut String::new()).map_err(|error| format!("not a plans file: {error}"))?;
        if let Some((name, _)) =
            overrides.plans.iter().find(|(_, credits)| !(**credits > 0.0 && **credits <= MAX_PLAUSIBLE_BILLED))
        {
            return Err(format!(
                "the plan {name:?} has an allowance that is not a number of credits above 0, at most 10^9"
            ));
        }
        let mut plans = Plans::default_table();
        if let Some(source) = overrides.source {
            plans.source = format!("{source}; then {}", plans.source);
        }
        plans.plans.extend(overrides.plans);
        Ok(plans)
    }

    /// A plan's product name, else its name.
    pub fn title<'a>(&'a self, name: &'a str) -> &'a str {
        self.titles.iter().find(|(plan, _)| plan == name).map_or(name, |(_, title)| title.as_str())
    }

    /// A plan's monthly allowance in credits, or what the plans are.
    pub fn allowance(&self, name: &str) -> Result<f64, String> {
        self.plans.get(&name.to_lowercase()).copied().ok_or_else(|| {
            let known: Vec<&str> = self.plans.keys().map(String::as_str).collect();
            format!("no plan named {name:?}: the plans are {} (--plans FILE adds others)", known.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_have_allowances_and_can_be_overridden() {
        let plans = Plans::default_table();
        assert_eq!((plans.allowance("Pro"), plans.allowance("pro-plus")), (Ok(1500.0), Ok(7000.0)));
        assert!(plans.allowance("gold").unwrap_err().contains("the plans are max, pro, pro-plus"));
        let ours =
            Plans::with_overrides(r#"{"source": "our contract", "plans": {"business": 3000, "pro": 1600}}"#).unwrap();
        assert_eq!((ours.allowance("business"), ours.allowance("pro")), (Ok(3000.0), Ok(1600.0)));
        assert!(ours.source.starts_with("our contract; then github.com"));
        assert_eq!((ours.title("pro-plus"), ours.title("business")), ("Copilot Pro+", "business"));
        assert!(Plans::with_overrides(r#"{"plans": {"x": -1}}"#).is_err());
    }
}
