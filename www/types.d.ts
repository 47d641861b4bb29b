// Generated from the Rust types of the page's boundary (src/page/protocol.rs) by `cargo test
// --lib the_page_types`: do not edit. The JavaScript files use them through JSDoc, as
// `@typedef {import('./types').Request} Request`.

export type Account = { host: string, login: string, };

export type AfterMetadata = { 
/**
 * For `Give::Times`.
 */
times: Array<FileAt>, 
/**
 * For `Give::LateMetadata`.
 */
late: Array<FileAt>, };

export type AgentCredits = { agent: string, recorded: number, estimated: number, };

export type AgentInventory = { agent: string, sessions: number, projects: Array<Project>, scratch_directories: Array<ScratchDirectory>, synced_sessions: number, models: Array<ModelUse>, tools: Array<ToolUse>, mcp_servers: Array<McpServer>, skills: Array<Skill>, custom_agents: Array<CustomAgent>, instructions: Array<Instructions>, plugins: Array<Plugin>, permission_grants: Array<Grant>, accounts: Array<Account>, };

export type Answer = { "answer": "summary", "value": Summary } | { "answer": "rows", "value": RowsPage } | { "answer": "search_whole", "value": SearchProgress } | { "answer": "sessions_with_prompt", "value": Array<string> } | { "answer": "facets", "value": Facets } | { "answer": "sessions", "value": Array<SessionShown> } | { "answer": "inventory", "value": Inventory } | { "answer": "report", "value": Report } | { "answer": "usage", "value": UsageView } | { "answer": "month", "value": MonthCredits } | { "answer": "row_count", "value": number } | { "answer": "export", "value": string } | { "answer": "export_rows", "value": string } | { "answer": "share_report", "value": string } | { "answer": "team_export", "value": string } | { "answer": "session_credits", "value": Record<string, CreditsUsed> };

export type BytesGiven = { root: number, path: string, bytes: Uint8Array, };

export type CacheReport = { 
/**
 * Logs and stores taken from the cache (a store, main file and log, counts as one).
 */
from_cache: number, 
/**
 * Of those, the logs not read at all: their size and time were as their entries said.
 */
unread: number, 
/**
 * Logs parsed and stores read: new, changed, or without an entry that could be used.
 */
changed: number, 
/**
 * Of those, the logs that only grew since their entries were made: taken from the cache,
 * then parsed from where their entries ended.
 */
grown: number, 
/**
 * Why the cache the page kept could not be used at all, if it could not.
 */
problem: string | null, 
/**
 * Whether this run's entries are kept for the next (not when they outgrew the cap).
 */
kept: boolean, };

export type CreditsUsed = { 
/**
 * Recorded plus estimated, to the hundredth.
 */
credits: number, recorded: number, estimated: number, 
/**
 * `credits` × 0.01.
 */
usd: number, 
/**
 * The part of `credits` from partial lower bounds and from recovered sessions.
 */
partial: number, recovered: number, 
/**
 * Tokens of calls made on the person's own key (no Copilot charge).
 */
own_key_tokens: number, 
/**
 * Tokens whose model has no rate and which Copilot recorded nothing for: not in `credits`.
 */
unpriced_tokens: number, };

export type CustomAgent = { 
/**
 * Sub-agent runs and selections of it.
 */
uses: number, name: string, path: string, plugin: string | null, bytes: number, modified: string, description: string, description_cut?: boolean, };

export type DayCredits = { day: string, recorded: number, estimated: number, 
/**
 * Used since the month began, this day included.
 */
cumulative: number, };

export type Diagnostic = { home?: number, file: string, line?: number, kind: DiagnosticKind, message: string, };

export type DiagnosticKind = "listing" | "unreadable" | "unparsable" | "read_stopped" | "store" | "write_ahead_log" | "turns_unreadable" | "bad_counter_line" | "implausible_counter" | "missing_counters" | "undated_counter" | "implausible_date" | "implausible_time" | "text_not_reread" | "duplicate" | "holds_no_usage" | "unexpected_place" | "cut_when_saved" | "failed_request" | "cache_ignored";

export type EngineFacts = { 
/**
 * The folders of a home the sources' files are in; a walk of a home looks only there.
 */
home_folders: Array<string>, 
/**
 * The files at a home's top the sources read, listed beside those folders.
 */
home_files: Array<string>, 
/**
 * The data folders among them: a folder holding one is a home.
 */
data_folders: Array<string>, 
/**
 * Each source's folders, where they are on each system, and its own folder with the
 * entries that make a folder it: the page's steps and its suggestion after a pick.
 */
sources: Array<SourceFolders>, 
/**
 * The only child folders walked below some folders (VS Code's user data).
 */
walk_rules: Array<{ dir: string, only: Array<string> }>, 
/**
 * The largest log the page reads whole; a larger one is handed over as a File.
 */
log_given_whole_max_bytes: number, 
/**
 * Rows made at a time for a rows export.
 */
rows_per_part: number, 
/**
 * Every output file, named once.
 */
outputs: Array<OutputFile>, turn_types: Array<TurnType>, 
/**
 * What the page calls each turn type (`TurnType::label`).
 */
turn_type_labels: Array<[TurnType, string]>, 
/**
 * A row's fields and their labels, in the order a row's detail shows them.
 */
row_fields: Array<[string, string]>, groupings: Array<Grouping>, marks: Array<RowMark>, 
/**
 * The mark of a bad line's row, which the diagnostics list.
 */
bad_line_mark: RowMark, 
/**
 * Copilot plans and their monthly allowances in AI credits, with their source.
 */
plans: Plans, 
/**
 * What is never in local files, and each reconciliation status in words and what it means
 * (`usage::bill::LEGEND`).
 */
never_in_local_files: Array<string>, bill_statuses: Array<[string, string, string]>, 
/**
 * Whether this engine makes the files to save, the report to share, the team exports and
 * the bill's reconciliation: the page's first module leaves them out, and the page loads
 * the full one when one is asked for (the `extras` feature).
 */
full_engine: boolean, };

export type ExcludedTree = { home: number, tree: string, files: number, bytes: number, };

export type Facets = { 
/**
 * The agents whose rows the table holds (`copilot-cli`, ...).
 */
agents: Array<string>, sessions: Array<string>, projects: Array<string>, models: Array<string>, tools: Array<string>, };

export type FileAt = { root: number, path: string, };

export type FileReport = { home: number, path: string, 
/**
 * Its name (`FileKind::name`).
 */
kind: string, status: FileStatus, size: number, message?: string, 
/**
 * Rows this file gave (after deduplication, for secondary sources).
 */
rows: number, 
/**
 * Secondary rows that dropped as copies of other rows.
 */
rows_deduplicated?: number, lines?: LineAccount, wal?: WalStats, tables?: { [key in string]: number }, };

export type FileStatus = "read" | "not_wanted" | "not_read_secret" | "not_needed" | "superseded" | "listed" | "error";

export type Flag = { name: string, words: string, meaning: string, };

export type FolderPlace = { path: string, system: System, };

export type FormatDrift = { agent: string, 
/**
 * The version the logs' starts name; empty where none does.
 */
version: string, 
/**
 * "Copilot CLI 1.0.119 wrote 3 kinds of event copilot-lens 0.1.0 does not read" (`finish`).
 */
message: string, 
/**
 * The logs that hold them.
 */
logs: number, 
/**
 * Lines of each kind (`(others)`: those past the names a log or a version keeps).
 */
event_types: { [key in string]: number }, };

export type Give = { "how": "files", files: Array<FileAt>, } | { "how": "bytes", files: Array<FileAt>, } | { "how": "bytes_up_to", files: Array<FileAt>, max_bytes: number, } | { "how": "logs", logs: Array<LogToGive>, } | { "how": "times" } | { "how": "late_metadata" } | { "how": "files_after_done", sizes_from: Array<number>, files: Array<FileAt>, };

export type Given = { "kind": "files", root: number, files: Array<File>, paths: Array<string>, } | { "kind": "bytes", items: Array<BytesGiven>, } | { "kind": "logs", items: Array<LogGiven>, } | { "kind": "times", items: Array<TimeGiven>, } | { "kind": "step_given", step: number, };

export type Grant = { 
/**
 * `permissions-config.json` or `settings.json`.
 */
file: string, 
/**
 * The project location, empty for settings.json's URL lists.
 */
location: string, list: string, 
/**
 * The entry as compact JSON, as the file has it.
 */
entry: string, 
/**
 * What it allows, in a Copilot user's words (`command: cargo clippy`).
 */
words: string, };

export type GroupBy = "day" | "month" | "session" | "model" | "home" | "project" | "subagent" | "agent" | "client" | "purpose";

export type Grouping = { name: GroupBy, column: string | null, };

export type HandOver = { 
/**
 * Whether the input holds a file this module leaves to the full engine (a VS Code debug
 * log: `sources::READ_BY_FULL_ENGINE_ONLY`): the page runs the analysis there instead.
 */
needs_full_engine: boolean, steps: Array<HandOverStep>, };

export type HandOverStep = { 
/**
 * Whether the step also waits for the analysis to be done (`Need::Done`).
 */
after_done: boolean, 
/**
 * Given side by side.
 */
parts: Array<Give>, };

export type Home = { 
/**
 * The home's label (its root's, then its folder there).
 */
home: string, agents: Array<AgentInventory>, };

export type HomeReport = { root: number, 
/**
 * How outputs name the home: the root's label, then the home's folder in it.
 */
label: string, 
/**
 * The home's folder in its root, empty for the root itself.
 */
path: string, 
/**
 * `home` or `copilot_directory`.
 */
layout: string, };

export type Instructions = { path: string, first_line: string, bytes: number, modified: string, };

export type Inventory = { homes: Array<Home>, synced_sessions: number, };

export type Kind = "counted" | "partial" | "recovered" | "ambiguous_resume";

export type LineAccount = { lines: number, with_rows: number, 
/**
 * Lines of known types that give no row, by type (`<blank>` for empty lines).
 */
skipped_by_rule: { [key in string]: number }, unknown_types: { [key in string]: number }, bad_lines: number, };

export type LogCache = "none" | "looked_up" | "unread" | "entry_after_done";

export type LogGiven = { index: number, bytes?: Uint8Array, file?: Blob, 
/**
 * Milliseconds since the epoch.
 */
modified?: number, };

export type LogToGive = { 
/**
 * Its number for `parse_log`.
 */
index: number, root: number, path: string, 
/**
 * Whether the page hands it over: as bytes, or as a File when it is larger than
 * `log_given_whole_max_bytes` (from a zip, as bytes by `entry`; a larger entry is not
 * given); else the engine reads it from its root.
 */
given: boolean, entry?: RawEntry, 
/**
 * What the page's cache does with it.
 */
cache: LogCache, };

export type MadeFrom = "analysis" | "session" | "choices" | "team";

export type McpServer = { name: string, configured_in: Array<string>, plugin: string | null, calls: number, failures: number, 
/**
 * When a tool of it was last called (UTC), empty when never or undated.
 */
last_used: string, tools_used: Array<ToolUse>, connected: number, failed_to_start: number, verdict: ServerVerdict, 
/**
 * `type` as written, else `stdio` for a command and `http` for a URL.
 */
type: string, command: string, url_host: string, 
/**
 * The tool allowlist, as written.
 */
tools: Array<string> | null, 
/**
 * How many arguments, environment variables and headers it has (never their values).
 */
args: number, env: number, headers: number, };

export type ModelUse = { model: string, sessions: number, };

export type MonthCredits = { 
/**
 * `2026-11`.
 */
month: string, days_in_month: number, 
/**
 * The last day counted: the month's last, or the caller's today within it.
 */
as_of: string, finished: boolean, allowance: number | null, 
/**
 * Credits Copilot recorded, and credits estimated where it recorded none.
 */
recorded: number, estimated: number, used: number, days: Array<DayCredits>, 
/**
 * At the pace so far, the credits by the month's end (none once it is over).
 */
projected: number | null, 
/**
 * The day the allowance ran out, or would at that pace within the month.
 */
runs_out_on: string | null, 
/**
 * The person's own budget for the month (the page's Month view), and the day the credits
 * crossed it, or would at that pace within the month.
 */
budget: number | null, budget_crossed_on: string | null, 
/**
 * The month's credits of each surface (a source's agent: `copilot-cli`, `copilot-vscode`),
 * recorded and estimated, for the Month view; none where only the sessions' entries are
 * kept (the status line).
 */
by_agent: Array<AgentCredits>, };

export type Need = { "need": "roots" } | { "need": "files", given: number, } | { "need": "logs", left: number, } | { "need": "last_files", given: number, } | { "need": "done", given: number, };

export type NoteFields = { lead: string, fields: Array<[string, string]>, };

export type OutputFile = { name: string, mime: string, 
/**
 * What it holds, for a person choosing it.
 */
what: string, 
/**
 * Whether `copilot-lens analyze --out` writes it (the rest are the page's exports).
 */
written_by_cli: boolean, made_from: MadeFrom, 
/**
 * Whether the page makes it a part at a time (`ROWS_PER_PART` rows a part), so that a
 * large file never needs one string.
 */
in_parts: boolean, 
/**
 * The name the page saves it as; `{session_id}` stands for the session's id.
 */
save_as: string, };

export type OwnedRow = { agent: string, timestamp_utc: string, session_id: string, project_path: string, git_branch: string, client_name: string, model: string, tool_name: string, tool_use_id: string, turn_type: TurnType, text: string, source: string, source_line: number, };

export type PageOptions = { include_thinking: boolean, timezone: string | null, 
/**
 * The named zone's offsets, `[[from_epoch_ms, offset_seconds], ...]`, from the browser's
 * Intl: this build carries no time-zone database.
 */
zone_offsets: Array<[number, number]> | null, 
/**
 * A user's rates file (JSON), replacing or adding to the pinned table.
 */
rates: string | null, 
/**
 * The most memory the engine may use, in MiB (default `DEFAULT_MEMORY_LIMIT_MIB`).
 */
memory_limit_mib: number | null, 
/**
 * Today in UTC by the page's clock (`YYYY-MM-DD`): usage after tomorrow is flagged.
 */
today: string | null, };

export type Plans = { 
/**
 * Where the allowances were read, and when.
 */
source: string, 
/**
 * A plan's name and its monthly allowance in AI credits.
 */
plans: { [key in string]: number }, 
/**
 * A built-in plan's product name ("Copilot Pro+" for `pro-plus`): plans.json's `titles`,
 * read apart as a JSON value (a map of strings would add serde code the page's first
 * download has no room for).
 */
titles: Array<[string, string]>, };

export type Plugin = { name: string, version: string, marketplace: string, path: string, skills: Array<string>, custom_agents: Array<string>, mcp_servers: Array<string>, modified: string, description: string, description_cut?: boolean, };

export type Problem = { path: string, message: string, };

export type Project = { path: string, 
/**
 * The remote machine it is on (`ssh-remote+mybox`), absent when it is local.
 */
remote?: string, sessions: number, first_seen: string, last_seen: string, };

export type RawEntry = { header_start: number, span: number, packed: number, size: number, crc32: number, };

export type Report = { roots: Array<RootReport>, homes: Array<HomeReport>, files: Array<FileReport>, excluded_trees: Array<ExcludedTree>, 
/**
 * The keys of configuration files whose values were not read, since they can hold
 * secrets: how many values each had, never the values.
 */
skipped_keys: Array<ReportSkippedKey>, 
/**
 * Everything that went wrong, where and why, in file order.
 */
diagnostics: Array<Diagnostic>, 
/**
 * The kinds of event each agent's version wrote that this version does not read.
 */
format_drift?: Array<FormatDrift>, totals: Totals, };

export type ReportSkippedKey = { home: number, file: string, key: string, values: number, };

export type Request = "summary" | { "rows": { filter: Partial<RowFilter>, offset: number, limit: number, text_limit: number, } } | { "search_whole": { filter: Partial<RowFilter>, budget: number, } } | { "sessions_with_prompt": { search: string, } } | "facets" | "sessions" | "inventory" | "report" | { "usage": UsageQuery } | { "month": { month: string, today: string, allowance: string | null, budget: string | null, } } | "row_count" | { "export": { what: string, session_id: string, } } | { "export_rows": { what: string, offset: number, limit: number, } } | { "share_report": ShareAsked } | { "team_export": TeamAsked } | "session_credits";

export type RootReport = { label: string, files_listed: number, 
/**
 * Files outside its homes' Copilot directories, counted but never opened.
 */
outside_files: number, outside_bytes: number, problems: Array<Problem>, };

export type RowFilter = { turn_types: Array<TurnType>, 
/**
 * The agent whose rows to keep (`copilot-cli`, ...).
 */
agent: string, session_id: string, project_path: string, model: string, tool_name: string, 
/**
 * Days, `YYYY-MM-DD`, both included, in the zone of `zone_offsets`.
 */
since: string, until: string, 
/**
 * The zone `since` and `until` are days of, as the page's `zone.js` gives the browser's:
 * `[[from_epoch_ms, offset_seconds], ...]`; empty for UTC.
 */
zone_offsets: Array<[number, number]>, 
/**
 * Case-insensitive text to find in the row's text.
 */
search: string, 
/**
 * Only the prompts (user turns): the search then finds prompts only.
 */
prompts_only: boolean, 
/**
 * The newest row first (undated rows, and those dated by their file, still last); else the
 * oldest first.
 */
newest_first: boolean, 
/**
 * Rows with any of these marks (`["bad_line"]`: the bad lines).
 */
marks: Array<RowMark>, };

export type RowMark = "plain" | "failed_tool_result" | "permission_request" | "permission_denied" | "permission_granted" | "permission_decision" | "permission_setting" | "standing_grant" | "model_change" | "bad_line" | "session_synced" | "scratch_directory";

export type RowsPage = { 
/**
 * The rows passing the filter, all of them (those found so far, while `unread` is not 0).
 */
total: number, 
/**
 * Cut texts whose rows pass all but the search, still to be read whole for it
 * (`Request::SearchWhole`).
 */
unread: number, rows: Array<ShownRow>, };

export type ScratchDirectory = { path: string, sessions: number, };

export type SearchProgress = { 
/**
 * The rows found so far.
 */
total: number, 
/**
 * The cut texts read again, and those still to read.
 */
read: number, left: number, 
/**
 * Cut texts that could not be read again (a log no longer there).
 */
unreadable: number, };

export type ServerVerdict = "configured_and_used" | "configured_never_used" | "used_not_configured" | "built_in" | "failed_to_start";

export type SessionShown = { display_name: string, agent: string, session_id: string, name: string, project_path: string, 
/**
 * The remote machine the project is on (`ssh-remote+mybox`, `wsl+Ubuntu`: a VS Code
 * remote folder's); absent when it is local.
 */
remote?: string, git_branch: string, client_name: string, created_at: string, updated_at: string, first_event: string, last_event: string, copilot_version: string, models: Array<string>, 
/**
 * The models chosen for a session whose calls never answered (none in `models`).
 */
models_never_used?: Array<string>, 
/**
 * `shutdownType` of the last shutdown, or `none`.
 */
shutdown: string, synced: boolean, 
/**
 * Whether its events.jsonl exists; a session known only from other sources was deleted.
 */
events_log: boolean, found_in: Array<string>, 
/**
 * The homes (by label) that hold it: more than one when it was given twice.
 */
homes: Array<string>, 
/**
 * A session folder made ahead and never prompted (a workspace.yaml and no log).
 */
precreated_unused: boolean, 
/**
 * `plan.md`, whole.
 */
plan: string | null, 
/**
 * The names of its artifacts, below `files/`.
 */
artifacts: Array<string>, 
/**
 * The titles of its compaction checkpoints (`checkpoints/index.md`).
 */
checkpoint_titles: Array<string>, 
/**
 * Tokens and cost, with what they rest on; absent for a session no source counts.
 */
usage: SessionUsage | null, prompts: number, replies: number, tool_calls: number, failed_tool_calls: number, permission_requests: number, denials: number, bad_lines: number, };

export type SessionUsage = { 
/**
 * `counted` (shutdown checkpoints), `partial`, `recovered` or `unknown`.
 */
source: string, cost_usd_micros: number | null, 
/**
 * Sums of the per-call records, for reconciliation with the counted figure.
 */
per_call: Tokens | null, 
/**
 * What the upper reading adds when the CLI's version cannot tell whether the shutdowns
 * restart their counters on resume (flag `ambiguous_resume`; the figure is the lower one);
 * left out when none.
 */
ambiguous_resume_adds?: Tokens, checkpoints: number, flags: Array<string>, requests: number, 
/**
 * Fresh input: input less cache reads and cache writes.
 */
input: number, cache_read: number, cache_write: number, output: number, 
/**
 * Part of `output`, never added to it.
 */
reasoning: number, 
/**
 * Fresh input + cache reads + cache writes + output.
 */
total: number, };

export type ShareAsked = { 
/**
 * `YYYY-MM-DD`, by the page's clock in UTC.
 */
today: string, 
/**
 * The billing month `YYYY-MM` (none or blank, and no days: the latest month with usage).
 */
month: string | null, 
/**
 * A period of days instead, `YYYY-MM-DD`, both included.
 */
since: string | null, until: string | null, 
/**
 * The monthly allowance as typed (`allowance`).
 */
allowance: string | null, short_project_names: boolean, 
/**
 * The sessions whose transcripts go in, their secrets scrubbed.
 */
sessions: Array<string>, 
/**
 * Transcripts keep their system prompts.
 */
with_system_prompt: boolean, };

export type ShownRow = { index: number, 
/**
 * The text is only its start: read the rest with the row's locator.
 */
text_cut: boolean, 
/**
 * What the row means beyond its text (`"permission_denied"`, `"bad_line"`, ...).
 */
mark: RowMark, 
/**
 * The whole text's length, where the text was cut to the `text_limit` asked for.
 */
text_bytes?: number, 
/**
 * Where in the whole text the text shown starts, when it was cut around a search's first
 * match further in (a snippet).
 */
text_from?: number, 
/**
 * Why the whole text could not be read again (the text is then its start).
 */
text_error?: string, 
/**
 * A note whose text ends in `key=value` pairs (`hook ... end: success=true output=...`),
 * as its lead and those pairs, for the page to show labelled; rows.jsonl keeps the text.
 */
note_fields?: NoteFields, agent: string, timestamp_utc: string, session_id: string, project_path: string, git_branch: string, client_name: string, model: string, tool_name: string, tool_use_id: string, turn_type: TurnType, text: string, source: string, source_line: number, };

export type Skill = { invocations: number, by_person: number, by_model: number, 
/**
 * When it was last invoked (UTC), empty when never or undated.
 */
last_used: string, verdict: SkillVerdict, name: string, path: string, plugin: string | null, bytes: number, modified: string, description: string, description_cut?: boolean, };

export type SkillVerdict = "used" | "never_used" | "used_not_found";

export type SourceFolders = { agent: string, title: string, 
/**
 * Its data folders in a home, each with the system it is on.
 */
folders: Array<FolderPlace>, 
/**
 * The name of its own folder (`.copilot`, `User`), and the entries only that folder holds.
 */
own_folder: string, own_folder_holds: Array<string>, 
/**
 * The report's names of the homes found as its own folder (`HomeReport::layout`).
 */
own_folder_layouts: Array<string>, };

export type Summary = { bad_lines: number, files: number, rows: number, sessions: number, 
/**
 * The total's tokens, by the headline's rule (`UsageTable::grand_total`).
 */
total_tokens: number, 
/**
 * usage.jsonl's rows (one per day, agent and model).
 */
usage_rows: number, };

export type System = "any" | "windows" | "macos" | "linux" | "remote" | "older";

export type TeamAsked = { 
/**
 * `team.csv` or `team.jsonl`.
 */
what: string, 
/**
 * The login the rows name (none or blank: the one each home signed in with).
 */
user: string | null, 
/**
 * The machine the rows name (none or blank: each home's folder name).
 */
machine: string | null, share_projects: boolean, 
/**
 * RFC 3339, by the page's clock (the core has none).
 */
exported_at: string, };

export type TimeGiven = { root: number, path: string, modified: number, };

export type Tokens = { requests: number, input: number, output: number, cache_read: number, cache_write: number, 
/**
 * Part of `output`, never added to it.
 */
reasoning: number, };

export type ToolUse = { name: string, calls: number, failures: number, };

export type Totals = { files_found: number, files_read: number, files_with_errors: number, event_lines: number, event_lines_with_rows: number, event_lines_skipped: number, event_lines_unknown_type: number, bad_lines: number, rows: number, rows_by_turn_type: { [key in string]: number }, secondary_rows_kept: number, secondary_rows_deduplicated: number, sessions: number, };

export type TurnType = "user" | "assistant" | "system" | "thinking" | "tool_use" | "tool_result";

export type UsageQuery = { by: GroupBy, 
/**
 * Days (`YYYY-MM-DD`) to show, both included; empty for open.
 */
since: string, until: string, 
/**
 * One agent's figures; empty for every agent's, added up.
 */
agent: string, };

export type UsageRow = { day?: string, month?: string, session_id?: string, home?: string, project_path?: string, subagent?: string, client?: string, 
/**
 * `request` for calls that answered requests, else the purpose of Copilot's own the calls
 * were made for (`GroupBy::Purpose`).
 */
purpose?: string, 
/**
 * The agent whose figures the row adds up; empty when it adds up several agents' (one
 * day and model used by two agents), which `GroupBy::Agent` splits.
 */
agent: string, model: string, 
/**
 * The estimate at the published rates (Auto's discount applied; none for BYOK calls).
 */
cost_usd_micros: number | null, cost_ai_credits: number | null, 
/**
 * What Copilot itself recorded as billed (10^9 to the AI credit): none when it recorded
 * nothing. Beside the estimate, never mixed into it.
 */
recorded_nano_aiu: number | null, 
/**
 * Premium requests Copilot recorded (legacy plans).
 */
premium_requests: number | null, 
/**
 * AI credits used: as recorded where Copilot recorded them, else estimated; `credits_from`
 * says which (`recorded`, `estimated`, or `both` for a row of each kind of entry).
 */
credits: number | null, credits_from: string, 
/**
 * `no_rate`, `partial`, `recovered`, `long_context` (some calls priced at the higher tier),
 * `implausible_counter` (a counter that cannot be a token count was left out, not added),
 * `implausible_date` (on a day before 2020 or after tomorrow: left out of the month),
 * `byok` (calls made with the person's own key: GitHub does not bill them), `auto` (Auto
 * chose the model: its discount is applied), `differs` (the estimate and the recorded
 * amount differ by more than 5%), `ambiguous_resume` (a resumed session whose counters may
 * have restarted with each process: the counted row is the lower reading, the
 * `ambiguous_resume` kind what the upper one adds), `session_total_above_models` (credits a
 * shutdown's session-wide totals hold above its per-model ones: a process that ended
 * without a shutdown), `compaction` (tokens of compactions, which a shutdown's usage
 * counters leave out, counted from the tokens it says were billed).
 */
flags: Array<string>, requests: number, 
/**
 * Fresh input: input less cache reads and cache writes.
 */
input: number, cache_read: number, cache_write: number, output: number, 
/**
 * Part of `output`, never added to it.
 */
reasoning: number, 
/**
 * Fresh input + cache reads + cache writes + output.
 */
total: number, };

export type UsageView = { rows: Array<UsageRow>, 
/**
 * The total the headline gives, whose parts `totals` holds (and what it leaves out).
 */
grand_total: UsageRow, totals: { [key in Kind]?: UsageRow }, 
/**
 * What a person reads for each kind of figure (`Kind::words`).
 */
kind_words: Record<string, string>, 
/**
 * The flags the rows and totals carry, in a person's words, with what each means.
 */
flag_legend: Array<Flag>, 
/**
 * The one money figure, by the Month's rule (`usage::credits`).
 */
credits_used: CreditsUsed, 
/**
 * Grouped by project: each project's credits used, the most first (the rows' order).
 */
project_credits: Array<[string, CreditsUsed]>, unknown_usage_sessions: Array<string>, 
/**
 * Sessions whose figures leave out counters that cannot be token counts.
 */
implausible_counter_sessions: Array<string>, 
/**
 * The report's diagnostics of counter lines (left out, without modelMetrics, undated).
 */
counter_problems: Array<Diagnostic>, rates: string, };

export type WalStats = { 
/**
 * Whole frames present in the file.
 */
frames: number, 
/**
 * Frames of committed transactions.
 */
frames_applied: number, commits: number, 
/**
 * Frames after the last commit, or at and after the first invalid frame.
 */
frames_ignored: number, 
/**
 * Bytes after the last whole frame (a frame cut mid-write).
 */
torn_bytes: number, 
/**
 * Why the valid part of the log ended before its last frame, if it did.
 */
stopped: string | null, };
