//! What only the page's full module makes (the `extras` feature, ARCHITECTURE.md): the files to
//! save, the report to share, team exports and the bill's reconciliation. The first module, which
//! the page loads, leaves them out for its first download's sake.

use web_sys::Blob;

use super::finished::FinishedRun;
use crate::export;
use crate::model::OwnedRow;
use crate::outputs::{self, ROWS_CSV, ROWS_JSONL, ROWS_PER_PART, SESSION_MD};
use crate::page::blob::BlobReader;
use crate::page::table::RowFilter;
use crate::page::views::{ShareAsked, TeamAsked};
use crate::share::{self, Transcript};
use crate::team_export;
use crate::usage::bill::{self, Reconciliation};

impl FinishedRun {
    /// The report to share, with the transcripts `asked` for.
    pub(super) fn share_report(&self, asked: &ShareAsked) -> Result<String, String> {
        let outputs = &self.outputs;
        let mut transcripts = Vec::new();
        for id in &asked.sessions {
            let record = outputs.sessions.iter().find(|record| &record.session_id == id);
            let record = record.ok_or_else(|| format!("no session {id}"))?;
            transcripts.push(Transcript { record, rows: self.whole_texts_of(id)? });
        }
        Ok(share::write(outputs, &transcripts, &asked.options()?))
    }

    /// A team export (`team.csv`, `team.jsonl`).
    pub(super) fn team_export(&self, asked: &TeamAsked) -> Result<String, String> {
        let file = outputs::by_name(&asked.what).ok_or_else(|| format!("unknown export {:?}", asked.what))?;
        let mut out = Vec::new();
        let rows = team_export::rows(&self.outputs, &asked.options()?);
        outputs::write_team(file, &rows, &mut out).map_err(|error| error.to_string())?;
        String::from_utf8(out).map_err(|error| error.to_string())
    }

    /// GitHub's usage reports (Files, read as they stream: `bill::Reports`) reconciled with
    /// this analysis, for `user` or (none) the login this machine signed in with: what
    /// `usage --bill` prints as JSON.
    pub fn reconcile_bill(&self, reports: Vec<(String, Blob)>, user: Option<&str>) -> Result<Reconciliation, String> {
        let outputs = &self.outputs;
        let mut readers = Vec::with_capacity(reports.len());
        for (name, blob) in reports {
            let reader = BlobReader::new(blob).map_err(|error| format!("{name}: {error}"))?;
            readers.push((name, reader));
        }
        let logins = outputs.inventory.logins();
        let usage = &outputs.usage;
        bill::reconcile_reports(readers, user, &logins, usage.ledgers.values(), &usage.rates)
    }

    /// A file to save, by its name in the outputs catalogue; `session.md` is the session
    /// `session_id`.
    pub(super) fn export(&self, what: &str, session_id: &str) -> Result<String, String> {
        let file = outputs::by_name(what).ok_or_else(|| format!("unknown export {what:?}"))?;
        match file {
            ROWS_JSONL | ROWS_CSV => {
                let mut text = String::new();
                let mut offset = 0;
                while offset == 0 || (offset as usize) < self.table.len() {
                    text.push_str(&self.export_rows(what, offset, ROWS_PER_PART)?);
                    offset += ROWS_PER_PART;
                }
                Ok(text)
            }
            SESSION_MD => {
                let record = self.outputs.sessions.iter().find(|record| record.session_id == session_id);
                let name = record.map_or("", |record| record.name.as_str());
                Ok(export::session_markdown(name, session_id, &self.whole_texts_of(session_id)?))
            }
            _ => {
                let mut out = Vec::new();
                outputs::write(file, &self.outputs, &mut out).map_err(|error| error.to_string())?;
                String::from_utf8(out).map_err(|error| error.to_string())
            }
        }
    }

    /// Part of a rows export: the rows `offset..offset + limit` in table order.
    pub(super) fn export_rows(&self, what: &str, offset: u32, limit: u32) -> Result<String, String> {
        let file = outputs::by_name(what).ok_or_else(|| format!("unknown rows export {what:?}"))?;
        let end = (offset as usize).saturating_add(limit as usize).min(self.table.len());
        let indices: Vec<u32> = (offset as usize..end).map(|index| index as u32).collect();
        let rows = self.full_rows(&indices).whole()?;
        let mut out = Vec::new();
        outputs::write_rows(file, rows.iter(), offset == 0, &mut out).map_err(|error| error.to_string())?;
        String::from_utf8(out).map_err(|error| error.to_string())
    }

    /// A session's rows with their whole texts, for a file.
    fn whole_texts_of(&self, session_id: &str) -> Result<Vec<OwnedRow>, String> {
        let filter = RowFilter { session_id: session_id.to_string(), ..RowFilter::default() };
        self.full_rows(&self.table.filter(&filter)).whole()
    }
}
