//! `copilot-lens mcp`: a Model Context Protocol server over stdio (the official Rust SDK,
//! `rmcp`), so that an agent can answer from Copilot's own history: usage, the month against the
//! allowance and budgets, sessions, one session's transcript, a search of prompts and replies,
//! and the inventory.
//!
//! Each call reads the roots afresh, through the cache, by the code paths of the commands whose
//! figures it gives (`usage`, `analyze`, `search`): what a tool answers is what they print, and
//! every text in it was scrubbed of secrets on the way (`copilot_lens::scrub`). It only reads:
//! nothing is written but the cache, and nothing goes online.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use chrono::NaiveDate;
use clap::Args;
use copilot_lens::analysis::{self, Options, Outputs, Planned, UsageData};
use copilot_lens::cache::EntryRules;
use copilot_lens::export;
use copilot_lens::model::{JsonlRowWriter, OwnedRow};
use copilot_lens::sessions::SessionRecord;
use copilot_lens::share::ChosenRows;
use copilot_lens::usage::Zone;
use copilot_lens::usage::budget::Budgets;
use copilot_lens::usage::rates::RateTable;
use copilot_lens::usage::summary::{DayRange, GroupBy};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::cache::{self, FolderRun, FolderStore};
use crate::config::BudgetArgs;
use crate::roots::{DiskRoots, Scope};
use crate::terminal::say;
use crate::{CacheArgs, USAGE_ERROR, analyze_through, fail, open_cache, parse_day, parse_month, plan_allowance};

#[derive(Args)]
pub struct McpArgs {
    /// The roots to read, as `usage` and `analyze` take them (default: your home folder, where
    /// Copilot CLI's ~/.copilot and VS Code's user data are found, and $COPILOT_HOME).
    #[arg(value_name = "ROOT")]
    roots: Vec<PathBuf>,
    /// Print the entries that add this server to Copilot CLI (~/.copilot/mcp-config.json) and
    /// VS Code (mcp.json), and exit.
    #[arg(long)]
    print_config: bool,
    /// Threads that read event logs (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    budgets: BudgetArgs,
    /// Today (YYYY-MM-DD; default: today, UTC, at each call): the day and month the budgets and
    /// the month tool are of.
    #[arg(long, value_parser = parse_day)]
    today: Option<NaiveDate>,
    #[command(flatten)]
    cache: CacheArgs,
}

/// The entries `--print-config` prints: Copilot CLI's `mcp-config.json` (its `mcpServers`, a
/// `local` server) and VS Code's `mcp.json` (its `servers`, a `stdio` one).
pub const CONFIG_SNIPPETS: &str = r#"Copilot CLI: add to ~/.copilot/mcp-config.json (or run /mcp add in copilot):
{
  "mcpServers": {
    "copilot-lens": {
      "type": "local",
      "command": "copilot-lens",
      "args": ["mcp"],
      "tools": ["*"]
    }
  }
}

VS Code: add to mcp.json (MCP: Open User Configuration, or .vscode/mcp.json in a workspace):
{
  "servers": {
    "copilot-lens": {
      "type": "stdio",
      "command": "copilot-lens",
      "args": ["mcp"]
    }
  }
}
"#;

/// Rows, sessions and search hits an answer holds unless asked for more (`limit`).
const ROWS_A_PAGE: usize = 100;
const SESSIONS_A_PAGE: usize = 50;
const HITS_A_PAGE: usize = 20;
/// Characters of a transcript or of the inventory an answer holds unless asked for more.
const CHARS_A_PAGE: usize = 40_000;

pub fn run(args: McpArgs) -> ExitCode {
    if args.print_config {
        print!("{CONFIG_SNIPPETS}");
        return ExitCode::SUCCESS;
    }
    let roots = if args.roots.is_empty() { default_roots() } else { args.roots };
    if roots.is_empty() {
        return fail(USAGE_ERROR, "no home folder found: give the roots to read");
    }
    let budgets = match args.budgets.budgets() {
        Ok(budgets) => budgets,
        Err(message) => return fail(USAGE_ERROR, &message),
    };
    let threads = crate::thread_count(args.threads);
    // The roots are opened once now, so that a root that is missing, or a cache inside one, is
    // said before any client waits on the server.
    let store = match DiskRoots::open(&roots, Scope::Everything, threads) {
        Ok((opened, _)) => match open_cache(args.cache.folder(), &opened) {
            Ok(store) => store,
            Err(code) => return code,
        },
        Err(message) => return fail(USAGE_ERROR, &message),
    };
    let reading = Reading { roots, threads, store, budgets, today: args.today };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(1, &format!("starting the server: {error}")),
    };
    let served = runtime.block_on(async {
        let service = LensServer::new(reading).serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(1, &format!("serving MCP: {error}")),
    }
}

/// Your home folder (Copilot CLI's `~/.copilot` and VS Code's user data in it, as `usage ~` reads
/// them), and Copilot CLI's home where `$COPILOT_HOME` puts it elsewhere (as the status line
/// finds it).
fn default_roots() -> Vec<PathBuf> {
    let Some(home) = dirs::home_dir() else { return Vec::new() };
    let in_home = std::fs::canonicalize(home.join(".copilot")).ok();
    let elsewhere = crate::statusline::default_home()
        .filter(|copilot| copilot.is_dir() && std::fs::canonicalize(copilot).ok() != in_home);
    std::iter::once(home).chain(elsewhere).collect()
}

/// What every call reads, and how.
struct Reading {
    roots: Vec<PathBuf>,
    threads: usize,
    store: Option<FolderStore>,
    budgets: Budgets,
    today: Option<NaiveDate>,
}

impl Reading {
    fn today(&self) -> NaiveDate {
        self.today.unwrap_or_else(crate::today_utc)
    }

    /// UTC days and the built-in rates, as `usage` counts by default.
    fn options(&self, include_thinking: bool) -> Options {
        Options { include_thinking, zone: Zone::Utc, rates: RateTable::default_table(), today: Some(self.today()) }
    }

    fn rules(&self, options: &Options) -> Option<EntryRules> {
        self.store.as_ref().map(|_| cache::CachedRun::starting(options))
    }

    /// The usage figures by `usage`'s fast path (the counter lines and the stores' per-call rows).
    fn usage_only(&self) -> Result<UsageData, String> {
        let options = self.options(false);
        let rules = self.rules(&options);
        let (mut roots, listings) = DiskRoots::open(&self.roots, Scope::Usage, self.threads)?;
        let cache = self.store.as_ref().zip(rules.as_ref()).map(|(store, rules)| FolderRun { store, rules });
        let (run, _) = crate::usage_only(&mut roots, listings, options, (self.threads, cache, None))?;
        for problem in &run.problems {
            say!("{problem}");
        }
        self.finish();
        Ok(run.usage)
    }

    /// Every file read, as `analyze` reads them, no row kept.
    fn analysis(&self) -> Result<Outputs, String> {
        let options = self.options(false);
        let rules = self.rules(&options);
        let (mut roots, listings) = DiskRoots::open(&self.roots, Scope::Everything, self.threads)?;
        let planned = Planned::new(listings, options).map_err(|error| error.to_string())?;
        let cache = self.store.as_ref().zip(rules.as_ref()).map(|(store, rules)| FolderRun { store, rules });
        let mut no_rows = JsonlRowWriter::new(std::io::sink());
        let (outputs, _) = analyze_through(&mut roots, planned, &mut no_rows, self.threads, cache)
            .map_err(|error| format!("reading: {error}"))?;
        self.finish();
        Ok(outputs)
    }

    /// Every file read, the rows of one session kept (as `report` keeps its transcripts'): the
    /// outputs, and the session's rows in the order the page's table shows them.
    fn analysis_keeping(&self, session_id: &str) -> Result<(Outputs, Vec<OwnedRow>), String> {
        let (mut roots, listings) = DiskRoots::open(&self.roots, Scope::Everything, self.threads)?;
        let planned = Planned::new(listings, self.options(false)).map_err(|error| error.to_string())?;
        let asked = [session_id.to_string()];
        let mut chosen = ChosenRows::of(&asked);
        let Ok(outputs) = analysis::drive(planned, &mut roots, &mut chosen, |parsing, roots, rows| {
            analysis::parse_logs_in_order(parsing, roots, rows);
            Ok::<(), std::convert::Infallible>(())
        });
        let mut rows = chosen.by_session.remove(session_id).unwrap_or_default();
        // The page's table order (`RowTable::seal`): by time, undated rows last, ties as read.
        copilot_lens::order::sort_by_key(&mut rows, |row| {
            let millis = copilot_lens::time::parse_millis(&row.timestamp_utc);
            (millis.is_none(), millis)
        });
        Ok((outputs, rows))
    }

    /// The cache trimmed after a run.
    fn finish(&self) {
        if let Some(store) = &self.store {
            store.finish();
        }
    }

    fn usage(&self, asked: UsageAsked) -> Result<String, String> {
        let by = match &asked.by {
            Some(name) => name.parse::<GroupBy>()?,
            None => GroupBy::Day,
        };
        let agent = asked.agent.as_deref().map(copilot_lens::sources::agent_named).transpose()?;
        if let (Some(since), Some(until)) = (asked.since, asked.until)
            && since > until
        {
            return Err(format!("since {since} is after until {until}: no day is in that range"));
        }
        // As `usage` reads: every file for the projects and clients, the counter lines alone otherwise.
        let usage = if by.needs_every_file() { self.analysis()?.usage } else { self.usage_only()? };
        // `usage --json`'s rows: the agents apart.
        let range = DayRange { since: asked.since, until: asked.until, agent, agents_apart: true };
        let table = usage.table(by, range);
        let mut document = crate::table::json_document(&table, &usage, None, None);
        let rows = document["rows"].take();
        let (page, paging) = page_of(rows.as_array().map_or(&[][..], Vec::as_slice), asked.page, ROWS_A_PAGE);
        document["rows"] = page.into();
        paging.add_to(&mut document);
        Ok(document.to_string())
    }

    fn month(&self, asked: MonthAsked) -> Result<String, String> {
        let allowance = plan_allowance(asked.plan.as_deref(), None)?.or(asked.allowance);
        let today = self.today();
        let day = match asked.month.as_deref() {
            Some(month) => parse_month(month)?,
            None => today,
        };
        let usage = self.usage_only()?;
        let month = usage.month(day, today, allowance);
        // The budgets are of today and this month, whatever month is shown (as `usage` says them).
        let this_month = usage.month(today, today, None);
        let today_credits = this_month.on(today);
        let crossed = self.budgets.crossed(today_credits, this_month.used);
        let document = serde_json::json!({
            "month": month,
            "budgets": {
                "day": self.budgets.day,
                "month": self.budgets.month,
                "today": today.to_string(),
                "used_today": today_credits,
                "used_this_month": this_month.used,
                "crossed": crossed,
            },
        });
        Ok(document.to_string())
    }

    fn sessions(&self, asked: SessionsAsked) -> Result<String, String> {
        let outputs = self.analysis()?;
        let words: Vec<String> =
            asked.words.iter().flat_map(|words| words.split_whitespace()).map(str::to_lowercase).collect();
        let project = asked.project.as_deref().map(str::to_lowercase);
        // Each session's credits in the days asked, as `usage --by session` counts them.
        let range = DayRange { since: asked.since, until: asked.until, agent: None, agents_apart: false };
        let by_session = outputs.usage.table(GroupBy::Session, range);
        let mut credits: BTreeMap<&str, f64> = BTreeMap::new();
        for row in &by_session.rows {
            if let (Some(id), Some(row_credits)) = (row.session_id.as_deref(), row.credits) {
                *credits.entry(id).or_default() += row_credits;
            }
        }
        let found: Vec<serde_json::Value> = outputs
            .sessions
            .iter()
            .filter(|record| {
                project.as_ref().is_none_or(|project| record.project_path.to_lowercase().contains(project))
            })
            .filter(|record| words.iter().all(|word| words_of(record).contains(word.as_str())))
            .filter(|record| overlaps(record, asked.since, asked.until))
            .map(|record| session_entry(record, credits.get(record.session_id.as_str()).copied()))
            .collect();
        let (page, paging) = page_of(&found, asked.page, SESSIONS_A_PAGE);
        let mut document = serde_json::json!({ "sessions": page });
        paging.add_to(&mut document);
        Ok(document.to_string())
    }

    fn transcript(&self, asked: TranscriptAsked) -> Result<CallToolResult, String> {
        let (outputs, rows) = self.analysis_keeping(&asked.session_id)?;
        let record = outputs.sessions.iter().find(|record| record.session_id == asked.session_id);
        let record = record.ok_or_else(|| format!("no session {:?} in the roots", asked.session_id))?;
        // The page's session.md, byte for byte.
        let markdown = export::session_markdown(&record.name, &record.session_id, &rows);
        Ok(text_page(&markdown, asked.page))
    }

    fn search(&self, asked: SearchAsked) -> Result<String, String> {
        let found = crate::search::find_rows(&asked.words, &self.roots, self.options(asked.include_thinking))?;
        let (page, paging) = page_of(&found.rows, asked.page, HITS_A_PAGE);
        let mut document = serde_json::json!({ "rows": page });
        paging.add_to(&mut document);
        Ok(document.to_string())
    }

    fn inventory(&self, asked: Paging) -> Result<CallToolResult, String> {
        let outputs = self.analysis()?;
        let json = serde_json::to_string(&outputs.inventory).map_err(|error| error.to_string())?;
        Ok(text_page(&json, asked))
    }
}

/// The texts a session's words are looked for in, lower case: its name, the first line of its
/// first prompt, its id and its checkpoints' titles.
fn words_of(record: &SessionRecord) -> String {
    let texts = [&record.name, &record.first_prompt, &record.session_id].into_iter().chain(&record.checkpoint_titles);
    texts.map(|text| text.to_lowercase()).collect::<Vec<_>>().join("\n")
}

/// Whether the session's days (UTC, from its first to its last event) meet `since..=until`; a
/// session with no date meets no range.
fn overlaps(record: &SessionRecord, since: Option<NaiveDate>, until: Option<NaiveDate>) -> bool {
    if since.is_none() && until.is_none() {
        return true;
    }
    let day = |texts: [&str; 2]| {
        let millis = texts.into_iter().find_map(copilot_lens::time::parse_millis)?;
        chrono::DateTime::from_timestamp_millis(millis).map(|time| time.date_naive())
    };
    let (Some(first), Some(last)) =
        (day([&record.first_event, &record.created_at]), day([&record.last_event, &record.updated_at]))
    else {
        return false;
    };
    since.is_none_or(|since| last >= since) && until.is_none_or(|until| first <= until)
}

/// A session as sessions.jsonl has it, with the title the page shows it by and its `credits` in
/// the days asked (none without usage in them), and without its plan.md (whole, and long: the
/// transcript tool shows the session).
fn session_entry(record: &SessionRecord, credits: Option<f64>) -> serde_json::Value {
    let mut entry = serde_json::to_value(record).unwrap_or_default();
    if let Some(fields) = entry.as_object_mut() {
        fields.remove("plan");
        fields.insert("title".into(), record.display_name().into());
        // Hundredths, as `usage` shows credits: a sum of rows may carry a float's tail.
        fields.insert("credits".into(), credits.map(|credits| (credits * 100.0).round() / 100.0).into());
    }
    entry
}

/// The part of a long answer asked for.
#[derive(Clone, Copy, Default, Deserialize, JsonSchema)]
struct Paging {
    /// Where the page starts (0 the first; an answer that is cut gives the next page's offset as
    /// next_offset).
    #[serde(default)]
    offset: usize,
    /// The most a page holds (rows, sessions or characters; a default when left out).
    #[serde(default)]
    limit: Option<usize>,
}

/// Where the page asked for ends, and how many there are.
struct Paged {
    total: usize,
    next_offset: Option<usize>,
}

impl Paged {
    fn add_to(&self, document: &mut serde_json::Value) {
        document["total"] = self.total.into();
        if let Some(next) = self.next_offset {
            document["next_offset"] = next.into();
        }
    }
}

/// The items of the page asked for.
fn page_of<T: Clone>(items: &[T], paging: Paging, default_limit: usize) -> (Vec<T>, Paged) {
    let start = paging.offset.min(items.len());
    let end = start.saturating_add(paging.limit.unwrap_or(default_limit).max(1)).min(items.len());
    let next_offset = (end < items.len()).then_some(end);
    (items[start..end].to_vec(), Paged { total: items.len(), next_offset })
}

/// The characters of the page asked for of a long text, then, when the text goes on, a second
/// block saying where: `{"next_offset": N, "total": CHARS}`.
fn text_page(text: &str, paging: Paging) -> CallToolResult {
    let chars: Vec<char> = text.chars().collect();
    let (page, paged) = page_of(&chars, paging, CHARS_A_PAGE);
    let mut blocks = vec![ContentBlock::text(page.into_iter().collect::<String>())];
    if let Some(next) = paged.next_offset {
        blocks.push(ContentBlock::text(serde_json::json!({"next_offset": next, "total": paged.total}).to_string()));
    }
    CallToolResult::success(blocks)
}

/// `usage`'s groupings, by the names `--by` takes.
fn group_by_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": GroupBy::ALL.map(GroupBy::name),
        "description": "How to group, as usage --by: day (default), month, session, model, home, project, subagent (the main agent against each sub-agent), agent, client (the program the session was run from) or purpose (calls that answered requests against those Copilot made for itself, as VS Code's debug logs name them)",
    })
}

#[derive(Deserialize, JsonSchema)]
struct UsageAsked {
    #[serde(default)]
    #[schemars(schema_with = "group_by_schema")]
    by: Option<String>,
    /// First day (UTC, YYYY-MM-DD), included.
    since: Option<NaiveDate>,
    /// Last day (UTC, YYYY-MM-DD), included.
    until: Option<NaiveDate>,
    /// Only this agent's figures: copilot-cli or vscode-copilot-chat.
    agent: Option<String>,
    #[serde(flatten)]
    page: Paging,
}

#[derive(Deserialize, JsonSchema)]
struct MonthAsked {
    /// The billing month (UTC, YYYY-MM; default: this month).
    month: Option<String>,
    /// The monthly allowance in AI credits (1 credit = 0.01 USD).
    allowance: Option<f64>,
    /// A built-in plan whose allowance to use instead: pro, pro-plus or max.
    plan: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct SessionsAsked {
    /// Only sessions whose project path holds this (any case).
    project: Option<String>,
    /// Only sessions active on or after this day (UTC, YYYY-MM-DD).
    since: Option<NaiveDate>,
    /// Only sessions active on or before this day (UTC, YYYY-MM-DD).
    until: Option<NaiveDate>,
    /// Only sessions whose name, first prompt, id or checkpoint titles hold every one of these
    /// words (any case). To look inside the conversations, use search.
    words: Option<String>,
    #[serde(flatten)]
    page: Paging,
}

#[derive(Deserialize, JsonSchema)]
struct TranscriptAsked {
    /// The session's id, as sessions gives it.
    session_id: String,
    #[serde(flatten)]
    page: Paging,
}

#[derive(Deserialize, JsonSchema)]
struct SearchAsked {
    /// The text to find (any case) in prompts, replies, tool calls and their output.
    words: String,
    /// Also search the model's reasoning text.
    #[serde(default)]
    include_thinking: bool,
    #[serde(flatten)]
    page: Paging,
}

#[derive(Clone)]
struct LensServer {
    reading: Arc<Reading>,
    tool_router: ToolRouter<LensServer>,
}

/// Runs `answer` on the blocking pool: a call reads files, on threads of its own.
async fn blocking<T: Send + 'static>(answer: impl FnOnce() -> Result<T, String> + Send + 'static) -> Result<T, String> {
    tokio::task::spawn_blocking(answer).await.unwrap_or_else(|_| Err("the call failed".to_string()))
}

#[tool_router]
impl LensServer {
    fn new(reading: Reading) -> LensServer {
        LensServer { reading: Arc::new(reading), tool_router: Self::tool_router() }
    }

    #[tool(
        description = "Tokens, cost and AI credits (1 credit = 0.01 USD) used, grouped by day, month, session, model, home, project, subagent, agent, client or purpose, for a period: what `copilot-lens usage --json` prints. Rows are paged (offset, limit)."
    )]
    async fn usage(&self, Parameters(asked): Parameters<UsageAsked>) -> Result<String, String> {
        let reading = self.reading.clone();
        blocking(move || reading.usage(asked)).await
    }

    #[tool(
        description = "A billing month (UTC) day by day: AI credits used, the pace, projected and the day an allowance runs out; with the budgets set (copilot-lens's config) for today and this month, and any crossed."
    )]
    async fn month(&self, Parameters(asked): Parameters<MonthAsked>) -> Result<String, String> {
        let reading = self.reading.clone();
        blocking(move || reading.month(asked)).await
    }

    #[tool(
        description = "Sessions (Copilot CLI and VS Code) by project, date or words in their names, with their times, models, counts, usage, and credits: their AI credits in the days asked (every day without since/until). Paged (offset, limit)."
    )]
    async fn sessions(&self, Parameters(asked): Parameters<SessionsAsked>) -> Result<String, String> {
        let reading = self.reading.clone();
        blocking(move || reading.sessions(asked)).await
    }

    #[tool(
        description = "One session's conversation as Markdown: prompts, replies, tool calls and results, secrets scrubbed. Paged by characters (offset, limit): a cut answer ends with a block giving next_offset."
    )]
    async fn transcript(&self, Parameters(asked): Parameters<TranscriptAsked>) -> Result<CallToolResult, String> {
        let reading = self.reading.clone();
        blocking(move || reading.transcript(asked)).await
    }

    #[tool(
        description = "The rows (prompts, replies, tool calls and output) whose text holds the words, any case, with their time, session and project: what `copilot-lens search --json` prints. Paged (offset, limit)."
    )]
    async fn search(&self, Parameters(asked): Parameters<SearchAsked>) -> Result<String, String> {
        let reading = self.reading.clone();
        blocking(move || reading.search(asked)).await
    }

    #[tool(
        description = "The inventory as JSON (inventory.json): projects, models and tools used, MCP servers, skills, agents, instructions and plugins configured, each with whether it was used. Paged by characters (offset, limit)."
    )]
    async fn inventory(&self, Parameters(asked): Parameters<Paging>) -> Result<CallToolResult, String> {
        let reading = self.reading.clone();
        blocking(move || reading.inventory(asked)).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LensServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("copilot-lens", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Copilot's own history on this machine, read-only and offline: usage in tokens and AI credits \
                 (1 credit = 0.01 USD) by UTC day, model, project or session; the billing month against the \
                 allowance and budgets; sessions; transcripts; a search of prompts and replies; the inventory.",
            )
    }
}
