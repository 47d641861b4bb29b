// Generated from the Rust types of the page's boundary (src/protocol.rs) by `cargo test --lib
// protocol`: do not edit. The JavaScript files use them through JSDoc, as
// `@typedef {import('./types').Request} Request`.

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
plans: Record<string, unknown>, 
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

export type FolderPlace = { path: string, system: System, };

export type System = "any" | "windows" | "macos" | "linux" | "remote" | "older";

export type Grouping = { name: GroupBy, column: string | null, };

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

export type MadeFrom = "analysis" | "session" | "choices" | "team";

export type GroupBy = "day" | "month" | "session" | "model" | "home" | "project" | "subagent" | "agent" | "client" | "purpose";

export type TurnType = "user" | "assistant" | "system" | "thinking" | "tool_use" | "tool_result";

export type RowMark = "plain" | "failed_tool_result" | "permission_request" | "permission_denied" | "permission_granted" | "permission_decision" | "permission_setting" | "standing_grant" | "model_change" | "bad_line" | "session_synced" | "scratch_directory";

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

export type Give = { "how": "files", files: Array<FileAt>, } | { "how": "bytes", files: Array<FileAt>, } | { "how": "bytes_up_to", files: Array<FileAt>, max_bytes: number, } | { "how": "logs", logs: Array<LogToGive>, } | { "how": "times" } | { "how": "late_metadata" } | { "how": "files_after_done", sizes_from: Array<number>, files: Array<FileAt>, };

export type Given = { "kind": "files", root: number, files: Array<File>, paths: Array<string>, } | { "kind": "bytes", items: Array<BytesGiven>, } | { "kind": "logs", items: Array<LogGiven>, } | { "kind": "times", items: Array<TimeGiven>, } | { "kind": "step_given", step: number, };

export type BytesGiven = { root: number, path: string, bytes: Uint8Array, };

export type LogGiven = { index: number, bytes?: Uint8Array, file?: Blob, 
/**
 * Milliseconds since the epoch.
 */
modified?: number, };

export type TimeGiven = { root: number, path: string, modified: number, };

export type FileAt = { root: number, path: string, };

export type AfterMetadata = { 
/**
 * For `Give::Times`.
 */
times: Array<FileAt>, 
/**
 * For `Give::LateMetadata`.
 */
late: Array<FileAt>, };

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

export type LogCache = "none" | "looked_up" | "unread" | "entry_after_done";

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

export type RawEntry = { header_start: number, span: number, packed: number, size: number, crc32: number, };

export type Need = { "need": "roots" } | { "need": "files", given: number, } | { "need": "logs", left: number, } | { "need": "last_files", given: number, } | { "need": "done", given: number, };

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

export type Request = "summary" | { "rows": { filter: Partial<RowFilter>, offset: number, limit: number, text_limit: number, } } | { "search_whole": { filter: Partial<RowFilter>, budget: number, } } | { "sessions_with_prompt": { search: string, } } | "facets" | "sessions" | "inventory" | "report" | { "usage": UsageQuery } | { "month": { month: string, today: string, allowance: string | null, budget: string | null, } } | "row_count" | { "export": { what: string, session_id: string, } } | { "export_rows": { what: string, offset: number, limit: number, } } | { "share_report": ShareAsked } | { "team_export": TeamAsked } | "session_credits";

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

export type UsageQuery = { by: GroupBy, 
/**
 * Days (`YYYY-MM-DD`) to show, both included; empty for open.
 */
since: string, until: string, 
/**
 * One agent's figures; empty for every agent's, added up.
 */
agent: string, };

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

export type Answer = { "answer": "summary", "value": Summary } | { "answer": "rows", "value": RowsPage } | { "answer": "searched", "value": SearchProgress } | { "answer": "session_ids", "value": Array<string> } | { "answer": "facets", "value": Facets } | { "answer": "sessions", "value": Array<Record<string, unknown>> } | { "answer": "inventory", "value": Record<string, unknown> } | { "answer": "report", "value": Record<string, unknown> } | { "answer": "usage", "value": UsageView } | { "answer": "month", "value": Record<string, unknown> } | { "answer": "row_count", "value": number } | { "answer": "text", "value": string } | { "answer": "session_credits", "value": Record<string, CreditsUsed> };

export type Summary = { bad_lines: number, files: number, rows: number, sessions: number, 
/**
 * The total's tokens, by the headline's rule (`UsageTable::grand_total`).
 */
total_tokens: number, 
/**
 * usage.jsonl's rows (one per day, agent and model).
 */
usage_rows: number, };

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
note_fields?: NoteFields, agent: string, timestamp_utc: string, session_id: string, project_path: string, git_branch: string, model: string, tool_name: string, tool_use_id: string, turn_type: TurnType, text: string, source: string, source_line: number, };

export type NoteFields = { lead: string, fields: Array<[string, string]>, };

export type OwnedRow = { agent: string, timestamp_utc: string, session_id: string, project_path: string, git_branch: string, model: string, tool_name: string, tool_use_id: string, turn_type: TurnType, text: string, source: string, source_line: number, };

export type Facets = { 
/**
 * The agents whose rows the table holds (`copilot-cli`, ...).
 */
agents: Array<string>, sessions: Array<string>, projects: Array<string>, models: Array<string>, tools: Array<string>, };

export type UsageView = { rows: Array<Record<string, unknown>>, 
/**
 * The total the headline gives, whose parts `totals` holds (and what it leaves out).
 */
grand_total: Record<string, unknown>, totals: Record<string, Record<string, unknown>>, 
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
counter_problems: Array<Record<string, unknown>>, rates: string, };

export type Flag = { name: string, words: string, meaning: string, };

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
