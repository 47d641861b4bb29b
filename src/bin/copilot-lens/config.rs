//! copilot-lens's own config file, read by `usage`, `statusline`, `watch` and `mcp`: the budgets, in JSON
//! (`{"budget_day": 100, "budget_month": 3000}`). It is `$COPILOT_LENS_CONFIG` when set, else
//! `config.json` in the platform's config folder's `copilot-lens` (`~/.config/copilot-lens` on
//! Linux). copilot-lens never writes it.

use std::fs;
use std::path::PathBuf;

use clap::Args;
use copilot_lens::usage::budget::Budgets;
use copilot_lens::usage::month;

/// The budgets given on the command line.
#[derive(Args, Clone, Copy)]
pub struct BudgetArgs {
    /// Your own budget for a UTC day, in AI credits (default: budget_day of the config file,
    /// $COPILOT_LENS_CONFIG, else the user config folder's copilot-lens/config.json, e.g.
    /// ~/.config/copilot-lens/config.json).
    #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance)]
    budget_day: Option<f64>,
    /// Your own budget for a billing month, in AI credits (default: the config file's budget_month).
    #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance)]
    budget_month: Option<f64>,
}

impl BudgetArgs {
    /// Whether a budget is given on the command line.
    pub fn given(&self) -> bool {
        self.budget_day.is_some() || self.budget_month.is_some()
    }

    /// The budgets given, else the config file's; an unreadable or malformed file is an error.
    pub fn budgets(self) -> Result<Budgets, String> {
        let given = Budgets { day: self.budget_day, month: self.budget_month };
        Ok(given.or(file_budgets()?))
    }
}

/// The month's allowance as `statusline` and `watch` take it: typed, or a built-in plan's.
#[derive(Args, Clone)]
pub struct AllowanceArgs {
    /// The monthly allowance in AI credits, shown beside the month when no monthly budget is.
    #[arg(long, value_name = "CREDITS", value_parser = month::parse_allowance, conflicts_with = "plan")]
    allowance: Option<f64>,
    /// The allowance of a built-in plan (pro, pro-plus, max: see usage --plans-list).
    #[arg(long, value_name = "NAME")]
    plan: Option<String>,
}

impl AllowanceArgs {
    /// The allowance given, if any; an unknown plan is an error.
    pub fn allowance(&self) -> Result<Option<f64>, String> {
        Ok(crate::plan_allowance(self.plan.as_deref(), None)?.or(self.allowance))
    }
}

/// Where the config file is, if anywhere.
fn path() -> Option<PathBuf> {
    match std::env::var_os("COPILOT_LENS_CONFIG") {
        Some(value) if value.is_empty() => None,
        Some(value) => Some(PathBuf::from(value)),
        None => dirs::config_dir().map(|dir| dir.join("copilot-lens").join("config.json")),
    }
}

/// The config file's budgets: none when there is no file.
fn file_budgets() -> Result<Budgets, String> {
    let Some(path) = path() else { return Ok(Budgets::default()) };
    match fs::read_to_string(&path) {
        Ok(text) => Budgets::from_config(&text).map_err(|error| format!("{}: {error}", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Budgets::default()),
        Err(error) => Err(format!("{}: {error}", path.display())),
    }
}
