#!/usr/bin/env python3
"""Builds a session-store.db fixture the way Copilot CLI 1.0.102 leaves it on disk: the main
file holds only its header page and every row sits in the -wal sidecar, uncheckpointed.

    scripts/make-store-fixture.py ROWS.sql OUT_DIR
    scripts/make-store-fixture.py --wal-after-checkpoint BEFORE.sql AFTER.sql OUT_DIR

The second form keeps only the -wal of the rows written after a checkpoint: a log that lacks the
pages the main file held, which cannot stand in for a missing main file.

ROWS.sql holds INSERT statements for the tables below (the schema of a real 1.0.102 store,
schema_version 8). The store is built in a temporary folder and its two files are copied out
while the connection is still open, so SQLite has had no chance to checkpoint them.
"""
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

SCHEMA = """
CREATE TABLE schema_version ( version INTEGER NOT NULL );
CREATE TABLE sessions ( id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, summary TEXT, created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now')) );
CREATE TABLE turns ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), turn_index INTEGER NOT NULL, user_message TEXT, assistant_response TEXT, timestamp TEXT DEFAULT (datetime('now')), UNIQUE(session_id, turn_index) );
CREATE TABLE checkpoints ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), checkpoint_number INTEGER NOT NULL, title TEXT, overview TEXT, history TEXT, work_done TEXT, technical_details TEXT, important_files TEXT, next_steps TEXT, created_at TEXT DEFAULT (datetime('now')), UNIQUE(session_id, checkpoint_number) );
CREATE TABLE session_files ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), file_path TEXT NOT NULL, tool_name TEXT, turn_index INTEGER, first_seen_at TEXT DEFAULT (datetime('now')), UNIQUE(session_id, file_path) );
CREATE TABLE session_refs ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), ref_type TEXT NOT NULL, ref_value TEXT NOT NULL, turn_index INTEGER, created_at TEXT DEFAULT (datetime('now')), UNIQUE(session_id, ref_type, ref_value) );
CREATE TABLE forge_trajectory_events ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), tool_call_id TEXT, turn_index INTEGER, event_type TEXT NOT NULL, command TEXT, output TEXT, exit_code INTEGER, event_key TEXT, event_value TEXT, created_at TEXT DEFAULT (datetime('now')) );
CREATE INDEX idx_forge_trajectory_events_tool_call ON forge_trajectory_events(tool_call_id);
CREATE TABLE assistant_usage_events ( id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), turn_index INTEGER, agent_id TEXT, parent_tool_call_id TEXT, model TEXT NOT NULL, copilot_usage_model TEXT, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, reasoning_tokens INTEGER, total_nano_aiu INTEGER, request_multiplier REAL, duration_ms INTEGER, time_to_first_token_ms INTEGER, output_ttft_ms REAL, inter_token_latency_ms INTEGER, initiator TEXT, api_endpoint TEXT, reasoning_effort TEXT, finish_reason TEXT, content_filter_triggered INTEGER, token_details_json TEXT, created_at TEXT DEFAULT (datetime('now')) );
CREATE INDEX idx_sessions_repo ON sessions(repository);
CREATE INDEX idx_sessions_cwd ON sessions(cwd);
CREATE INDEX idx_session_files_path ON session_files(file_path);
CREATE INDEX idx_session_refs_type_value ON session_refs(ref_type, ref_value);
CREATE INDEX idx_turns_session ON turns(session_id);
CREATE INDEX idx_checkpoints_session ON checkpoints(session_id);
CREATE INDEX idx_forge_trajectory_events_session ON forge_trajectory_events(session_id, id);
CREATE INDEX idx_assistant_usage_events_session ON assistant_usage_events(session_id, id);
CREATE INDEX idx_assistant_usage_events_session_turn ON assistant_usage_events(session_id, turn_index);
CREATE INDEX idx_assistant_usage_events_model ON assistant_usage_events(model);
CREATE TABLE forge_skill_proposals ( id TEXT PRIMARY KEY, repo_owner TEXT, repo_name TEXT, git_root_path TEXT NOT NULL, branch_name TEXT NOT NULL, trigger_mode TEXT NOT NULL, status TEXT NOT NULL, fingerprint TEXT, manifest_json TEXT, summary_json TEXT, workspace_before_json TEXT, superseded_by TEXT, failure_reason TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL );
CREATE INDEX idx_forge_skill_proposals_scope_status ON forge_skill_proposals(git_root_path, branch_name, repo_owner, repo_name, status);
CREATE INDEX idx_forge_skill_proposals_scope_fingerprint ON forge_skill_proposals(git_root_path, branch_name, repo_owner, repo_name, fingerprint);
CREATE VIRTUAL TABLE search_index USING fts5( content, session_id UNINDEXED, source_type UNINDEXED, source_id UNINDEXED );
CREATE TABLE dynamic_context_items ( repository TEXT NOT NULL, branch TEXT NOT NULL, src TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '', content TEXT NOT NULL DEFAULT '', read_count INTEGER NOT NULL DEFAULT 0, count INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (repository, branch, src, name) );
CREATE INDEX idx_dynamic_context_repo_branch ON dynamic_context_items(repository, branch);
"""


def open_in_wal_mode(db: Path) -> sqlite3.Connection:
    """A connection whose writes stay in the -wal until a checkpoint is asked for."""
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA wal_autocheckpoint=0")
    return connection


def build_store(rows_sql: str, out_dir: Path, *, checkpoint: bool = False, transaction_per_statement: bool = False) -> None:
    """Writes out_dir/session-store.db and its -wal. With checkpoint, the rows go into the main
    file and there is no -wal; with transaction_per_statement, each INSERT commits on its own
    (the schema in one transaction), so that the log holds several commits to cut."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "session-store.db"
        connection = open_in_wal_mode(db)
        if transaction_per_statement:
            connection.executescript("BEGIN;\n" + SCHEMA + "INSERT INTO schema_version VALUES (8);\nCOMMIT;\n")
            for statement in filter(None, (line.strip() for line in rows_sql.splitlines())):
                connection.execute(statement)
        else:
            connection.executescript(SCHEMA + "INSERT INTO schema_version VALUES (8);\n" + rows_sql)
        if checkpoint:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copyfile(db, out_dir / "session-store.db")
        if not checkpoint:
            shutil.copyfile(f"{db}-wal", out_dir / "session-store.db-wal")
        connection.close()


def build_wal_after_checkpoint(before_sql: str, after_sql: str, out_dir: Path) -> None:
    """Writes out_dir/session-store.db-wal alone: before_sql checkpointed into the main file
    (which is left out), then after_sql in the log."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "session-store.db"
        connection = open_in_wal_mode(db)
        connection.executescript(SCHEMA + "INSERT INTO schema_version VALUES (8);\n" + before_sql)
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.executescript(after_sql)
        shutil.copyfile(f"{db}-wal", out_dir / "session-store.db-wal")
        connection.close()


def main() -> None:
    if sys.argv[1] == "--wal-after-checkpoint":
        build_wal_after_checkpoint(Path(sys.argv[2]).read_text(), Path(sys.argv[3]).read_text(), Path(sys.argv[4]))
        return
    build_store(Path(sys.argv[1]).read_text(), Path(sys.argv[2]))


if __name__ == "__main__":
    main()
