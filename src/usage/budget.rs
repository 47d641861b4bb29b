//! A person's own budgets in AI credits, a day's (UTC) and a billing month's: limits they set
//! themselves, shown beside the plan's allowance, never instead of it. A figure is warned about
//! from 80% of its budget and is over it from 100%.

use serde::Deserialize;

use super::credits::grouped_decimal;

/// The share of a budget from which its figure is warned about.
pub const WARN_FROM: f64 = 0.8;

/// The budgets set, on the command line or in copilot-lens's config file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// Credits a UTC day.
    #[serde(default, rename = "budget_day")]
    pub day: Option<f64>,
    /// Credits a billing month.
    #[serde(default, rename = "budget_month")]
    pub month: Option<f64>,
}

impl Budgets {
    /// The config file's budgets (`{"budget_day": 100, "budget_month": 3000}`), each checked as
    /// an allowance is (above 0, at most 10^9).
    pub fn from_config(text: &str) -> Result<Budgets, String> {
        let budgets: Budgets = serde_json::from_str(text).map_err(|error| error.to_string())?;
        for (name, value) in [("budget_day", budgets.day), ("budget_month", budgets.month)] {
            if let Some(value) = value
                && super::month::parse_allowance(&value.to_string()).is_err()
            {
                return Err(format!("{name} {value} is not a number of credits above 0 and at most 1,000,000,000"));
            }
        }
        Ok(budgets)
    }

    /// Whether any budget is set.
    pub fn given(&self) -> bool {
        self.day.is_some() || self.month.is_some()
    }

    /// Each budget given here, else the other's (the command line's over the config file's).
    pub fn or(self, other: Budgets) -> Budgets {
        Budgets { day: self.day.or(other.day), month: self.month.or(other.month) }
    }

    /// What `usage` says of each budget reached: today's and the month's credits against them.
    pub fn crossed(&self, today: f64, month: f64) -> Vec<String> {
        let mut said = Vec::new();
        let pairs = [("today", "daily", today, self.day), ("this month", "monthly", month, self.month)];
        for (period, which, used, budget) in pairs {
            if let Some(budget) = budget.filter(|budget| level(used, Some(*budget)) == Level::Over) {
                said.push(format!(
                    "budget crossed: {} credits {period}, over the {which} budget of {}",
                    grouped_decimal(used),
                    grouped_decimal(budget)
                ));
            }
        }
        said
    }
}

/// How a figure stands against its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Under,
    /// From 80% of it.
    Near,
    /// From 100% of it.
    Over,
}

/// How `used` stands against `budget` (under when there is none).
pub fn level(used: f64, budget: Option<f64>) -> Level {
    match budget {
        Some(budget) if budget > 0.0 && used >= budget => Level::Over,
        Some(budget) if budget > 0.0 && used >= budget * WARN_FROM => Level::Near,
        _ => Level::Under,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_is_near_its_budget_from_80_percent_and_over_it_from_100() {
        assert_eq!(level(79.9, Some(100.0)), Level::Under);
        assert_eq!(level(80.0, Some(100.0)), Level::Near);
        assert_eq!(level(99.99, Some(100.0)), Level::Near);
        assert_eq!(level(100.0, Some(100.0)), Level::Over);
        assert_eq!(level(1e9, None), Level::Under);
    }

    #[test]
    fn the_config_file_is_read_strictly_and_the_command_line_wins() {
        let file = Budgets::from_config(r#"{"budget_day": 50, "budget_month": 1500.5}"#).unwrap();
        assert_eq!(file, Budgets { day: Some(50.0), month: Some(1500.5) });
        assert_eq!(Budgets { day: Some(10.0), month: None }.or(file), Budgets { day: Some(10.0), month: Some(1500.5) });
        assert!(Budgets::from_config(r#"{"budget_dya": 50}"#).unwrap_err().contains("unknown field"));
        assert!(Budgets::from_config(r#"{"budget_day": -5}"#).unwrap_err().contains("budget_day -5"));
        assert!(Budgets::from_config("{").is_err());
    }

    #[test]
    fn only_the_budgets_reached_are_said() {
        let budgets = Budgets { day: Some(50.0), month: Some(1000.0) };
        assert_eq!(budgets.crossed(49.0, 999.0), Vec::<String>::new());
        assert_eq!(
            budgets.crossed(50.0, 1234.5),
            [
                "budget crossed: 50.00 credits today, over the daily budget of 50.00",
                "budget crossed: 1,234.50 credits this month, over the monthly budget of 1,000.00"
            ]
        );
    }
}
