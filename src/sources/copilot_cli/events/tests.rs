use super::*;
use crate::facts::log::{SkillUse, ToolTally};
use crate::model::{Marked, OwnedRow};

fn parse_marked(lines: &[&str], include_thinking: bool) -> (Vec<OwnedRow>, Vec<RowMark>, LogOutcome) {
    let rates = crate::usage::rates::RateTable::default_table();
    let context = LogContext {
        session_id: "s1",
        fallback_project: "/fallback",
        include_thinking,
        ..LogContext::of_test("copilot-cli", ".copilot/session-state/s1/events.jsonl", &rates)
    };
    let mut sink = Marked::default();
    let text = lines.join("\n");
    let outcome = parse_log(&context, text.as_bytes(), &mut sink);
    let (rows, marks) = sink.0.into_iter().unzip();
    (rows, marks, outcome)
}

fn parse(lines: &[&str], include_thinking: bool) -> (Vec<OwnedRow>, LogOutcome) {
    let (rows, _, outcome) = parse_marked(lines, include_thinking);
    (rows, outcome)
}

/// The time of every line `line` makes.
const LINE_STAMP: &str = "2026-10-01T09:00:00.000Z";

fn line(kind: &str, data: &str) -> String {
    format!(r#"{{"id":"x","timestamp":"{LINE_STAMP}","type":"{kind}","data":{data}}}"#)
}

/// `LINE_STAMP` in epoch milliseconds: when a call or a skill counted at a line was last used.
fn line_ms() -> Option<i64> {
    crate::time::parse_millis(LINE_STAMP)
}

fn texts(rows: &[OwnedRow]) -> Vec<(TurnType, &str)> {
    rows.iter().map(|row| (row.turn_type, row.text.as_str())).collect()
}

#[test]
fn tool_use_text_prefers_a_string_then_known_keys_then_json() {
    let message = line(
        "assistant.message",
        concat!(
            r#"{"content":"","model":"m","toolRequests":["#,
            r#"{"toolCallId":"a","name":"apply_patch","arguments":"*** Begin Patch"},"#,
            r#"{"toolCallId":"b","name":"web_fetch","arguments":{"url":"https://x.example","max_length":5}},"#,
            r#"{"toolCallId":"c","name":"report_intent","arguments":{"intent":"Reading","z":1}}]}"#
        ),
    );
    let (rows, outcome) = parse(&[&message], false);
    assert_eq!(
        texts(&rows),
        [
            (TurnType::ToolUse, "*** Begin Patch"),
            (TurnType::ToolUse, "https://x.example"),
            (TurnType::ToolUse, r#"{"intent":"Reading","z":1}"#)
        ]
    );
    assert!(rows.iter().all(|row| row.model == "m" && row.project_path == "/fallback"));
    assert_eq!(outcome.tools["web_fetch"].calls, 1);
}

#[test]
fn a_tool_start_without_a_request_is_a_call_and_results_use_the_remembered_name() {
    let (rows, marks, outcome) = parse_marked(
        &[
            &line(
                "tool.execution_start",
                r#"{"toolCallId":"t1","toolName":"view","arguments":{"path":"/a"},"mcpServerName":"fs"}"#,
            ),
            &line("tool.user_requested", r#"{"toolCallId":"t2","toolName":"bash","arguments":{"command":"ls"}}"#),
            &line(
                "tool.execution_complete",
                r#"{"toolCallId":"t1","success":false,"result":{"content":"short","detailedContent":"longer text"},"error":{"message":"boom"}}"#,
            ),
            &line(
                "tool.execution_complete",
                r#"{"toolCallId":"t2","success":true,"result":{"content":"a much longer text","detailedContent":"tiny"},"shellExecution":{"exitCode":0}}"#,
            ),
        ],
        false,
    );
    assert_eq!(
        texts(&rows),
        [
            (TurnType::ToolUse, "/a"),
            (TurnType::ToolUse, "user requested: ls"),
            (TurnType::ToolResult, "longer text\nboom"),
            (TurnType::ToolResult, "a much longer text"),
        ]
    );
    assert_eq!((rows[2].tool_name.as_str(), rows[3].tool_name.as_str()), ("view", "bash"));
    assert_eq!(marks, [RowMark::Plain, RowMark::Plain, RowMark::FailedToolResult, RowMark::Plain]);
    assert_eq!(outcome.tools["view"], ToolTally { calls: 1, failures: 1, last_ms: line_ms() });
    assert_eq!(
        outcome.mcp_calls["fs"]["view"],
        ToolTally { calls: 1, failures: 1, last_ms: line_ms() },
        "the failure is the server's too"
    );
}

#[test]
fn an_mcp_call_requested_then_started_counts_once_under_its_mcp_tool_name() {
    let (_, outcome) = parse(
        &[
            &line(
                "assistant.message",
                r#"{"content":"","toolRequests":[{"toolCallId":"m1","name":"github-get_issue","mcpServerName":"github"}]}"#,
            ),
            &line(
                "tool.execution_start",
                r#"{"toolCallId":"m1","toolName":"github-get_issue","mcpServerName":"github","mcpToolName":"get_issue"}"#,
            ),
            &line("tool.execution_complete", r#"{"toolCallId":"m1","success":false}"#),
        ],
        false,
    );
    assert_eq!(outcome.mcp_calls["github"].len(), 1, "{:?}", outcome.mcp_calls);
    assert_eq!(outcome.mcp_calls["github"]["get_issue"], ToolTally { calls: 1, failures: 1, last_ms: line_ms() });
    assert_eq!(outcome.tools["github-get_issue"], ToolTally { calls: 1, failures: 1, last_ms: line_ms() });
}

#[test]
fn denials_and_their_details_are_spelled_out() {
    let (rows, marks, _) = parse_marked(
        &[
            &line(
                "permission.requested",
                r#"{"permissionRequest":{"kind":"url","toolCallId":"u","url":"https://a.example","intention":"Fetch"},"permissionMode":"manual","agentMode":"interactive"}"#,
            ),
            &line(
                "permission.completed",
                r#"{"toolCallId":"u","decisionSource":"human_response","result":{"kind":"denied-interactively-by-user","feedback":"not that site"}}"#,
            ),
            &line(
                "permission.requested",
                r#"{"permissionRequest":{"kind":"mcp","toolCallId":"m","serverName":"github","toolName":"create_issue"},"permissionMode":"allow-all","agentMode":"autopilot"}"#,
            ),
            &line(
                "permission.completed",
                r#"{"toolCallId":"m","result":{"kind":"denied-by-rules","rules":[{"kind":"mcp","argument":"github"}],"decisionSource":"host_policy"}}"#,
            ),
            &line("permission.carriedForward", r#"{"toolCallId":"m","decisionSource":"authorization_carry_forward"}"#),
        ],
        false,
    );
    assert_eq!(
        texts(&rows),
        [
            (TurnType::System, "permission request: url https://a.example intention=Fetch"),
            (TurnType::System, "permission mode: manual agent=interactive"),
            (
                TurnType::System,
                "permission decision: denied-interactively-by-user source=human_response feedback=not that site"
            ),
            (TurnType::System, "permission request: mcp github/create_issue"),
            (TurnType::System, "permission mode: manual -> allow-all"),
            (TurnType::System, "agent mode: interactive -> autopilot"),
            (
                TurnType::System,
                r#"permission decision: denied-by-rules source=host_policy rules=[{"argument":"github","kind":"mcp"}]"#
            ),
            (TurnType::System, "permission decision: carried-forward source=authorization_carry_forward"),
        ]
    );
    assert_eq!(
        marks,
        [
            RowMark::PermissionRequest,
            RowMark::PermissionSetting,
            RowMark::PermissionDenied,
            RowMark::PermissionRequest,
            RowMark::PermissionSetting,
            RowMark::Plain,
            RowMark::PermissionDenied,
            RowMark::PermissionDecision,
        ]
    );
}

#[test]
fn decisions_are_marked_by_their_result_kind() {
    let decision = |result: &str| line("permission.completed", &format!(r#"{{"toolCallId":"t","result":{result}}}"#));
    let (rows, marks, _) = parse_marked(
        &[
            &decision(r#"{"kind":"approved"}"#),
            &decision(r#"{"kind":"approved-for-session","approval":{"kind":"write"}}"#),
            &decision(r#"{"kind":"approved-read-only-for-session","directories":["/tmp"]}"#),
            &decision(r#"{"kind":"cancelled","reason":"the user rejected it"}"#),
            &decision(r#"{"kind":"denied-no-approval-rule-and-could-not-request-from-user"}"#),
            &decision(r#"{"feedback":"denied"}"#),
        ],
        false,
    );
    assert_eq!(rows[3].text, "permission decision: cancelled source=- reason=the user rejected it");
    assert_eq!(rows[5].text, "permission decision: - source=- feedback=denied");
    assert_eq!(
        marks,
        [
            RowMark::PermissionGranted,
            RowMark::PermissionGranted,
            RowMark::PermissionGranted,
            RowMark::PermissionDecision,
            RowMark::PermissionDenied,
            RowMark::PermissionDecision,
        ]
    );
}

#[test]
fn models_are_tracked_from_changes_and_auto_resolution() {
    let (rows, marks, _) = parse_marked(
        &[
            &line("session.model_change", r#"{"newModel":"gpt-5.4"}"#),
            &line("session.model_change", r#"{"newModel":"auto","source":"model_picker"}"#),
            &line("session.auto_mode_resolved", r#"{"chosenModel":"claude-sonnet-4.5","routingMethod":"router"}"#),
            &line("user.message", r#"{"content":"hi"}"#),
        ],
        false,
    );
    assert_eq!(
        texts(&rows)[..3],
        [
            (TurnType::System, "model: gpt-5.4"),
            (TurnType::System, "model: gpt-5.4 -> auto source=model_picker"),
            (TurnType::System, "model: auto -> claude-sonnet-4.5 (auto, router)"),
        ]
    );
    assert_eq!(rows[3].model, "claude-sonnet-4.5");
    assert_eq!(marks, [RowMark::ModelChange, RowMark::ModelChange, RowMark::ModelChange, RowMark::Plain]);
}

#[test]
fn user_messages_that_are_not_typed_prompts_are_labelled() {
    let (rows, _) = parse(
        &[
            &line("user.message", r#"{"content":"go on","isAutopilotContinuation":true}"#),
            &line("user.message", r#"{"content":"review it","source":"skill-review"}"#),
            &line("user.message", r#"{"content":"typed","source":"user"}"#),
            r#"{"id":"y","timestamp":"2026-10-01T09:00:00.000Z","type":"user.message","agentId":"a1","data":{"content":"sub task"}}"#,
        ],
        false,
    );
    assert_eq!(
        texts(&rows),
        [
            (TurnType::System, "auto-continuation: go on"),
            (TurnType::System, "skill-review: review it"),
            (TurnType::User, "typed"),
            (TurnType::System, "subagent task: sub task"),
        ]
    );
}

#[test]
fn thinking_only_when_asked_and_from_summaries_when_there_is_no_text() {
    let message = line(
        "assistant.message",
        r#"{"content":"done","reasoningBlocks":{"blocks":[{"summary":[{"text":"first"},{"text":"second"}]}]}}"#,
    );
    let reasoning = line("assistant.reasoning", r#"{"reasoningId":"r","content":"deep"}"#);
    assert_eq!(texts(&parse(&[&message, &reasoning], false).0), [(TurnType::Assistant, "done")]);
    assert_eq!(
        texts(&parse(&[&message, &reasoning], true).0),
        [(TurnType::Assistant, "done"), (TurnType::Thinking, "first\nsecond"), (TurnType::Thinking, "deep")]
    );
}

#[test]
fn hooks_mode_changes_and_other_types() {
    let (rows, marks, outcome) = parse_marked(
        &[
            &line("hook.start", r#"{"hookType":"preToolUse","input":{"b":1,"a":2},"parentToolCallId":"p"}"#),
            &line("hook.end", r#"{"hookType":"preToolUse","success":true,"error":{"message":"x"}}"#),
            &line("hook.end", r#"{"success":"maybe"}"#),
            &line(
                "session.permissions_changed",
                r#"{"previousAllowAllPermissions":false,"allowAllPermissions":true,"allowAllPermissionMode":"session"}"#,
            ),
            &line("session.mode_changed", r#"{"previousMode":"interactive","newMode":"plan"}"#),
            &line("skill.invoked", r#"{"name":"pdf","path":"/s","content":"long body"}"#),
            &line("subagent.started", r#"{"toolCallId":"t","agentName":"explore","agentDisplayName":"Explore"}"#),
            &line("subagent.deselected", r#"{}"#),
            &line("abort", r#"{"reason":"user_initiated"}"#),
            &line("session.compaction_complete", r#"{"success":true,"summaryContent":"summary"}"#),
            &line(
                "session.info",
                r#"{"infoType":"tip","message":"Try /model","url":"https://docs.example","tip":"t1"}"#,
            ),
        ],
        false,
    );
    assert_eq!(
        texts(&rows),
        [
            (TurnType::System, r#"hook preToolUse start: {"a":2,"b":1}"#),
            (TurnType::System, r#"hook preToolUse end: success=true output={} error={"message":"x"}"#),
            (TurnType::System, "hook - end: success=- output={}"),
            (TurnType::System, "permission mode: allow-all - -> session"),
            (TurnType::System, "agent mode: interactive -> plan"),
            (TurnType::System, "skill.invoked: pdf"),
            (TurnType::System, "subagent.started: explore"),
            (TurnType::System, "subagent.deselected: {}"),
            (TurnType::System, "abort: user_initiated"),
            (TurnType::System, "compaction summary: summary"),
            (TurnType::System, "session.info tip: Try /model url=https://docs.example tip=t1"),
        ]
    );
    assert_eq!(rows[0].tool_use_id, "p");
    let marked: Vec<_> = marks.iter().enumerate().filter(|(_, mark)| **mark != RowMark::Plain).collect();
    assert_eq!(marked, [(3, &RowMark::PermissionSetting)], "a tip and an agent mode are plain notes");
    assert_eq!(outcome.skill_uses["pdf"], SkillUse { by_person: 0, by_model: 1, last_ms: line_ms() });
    assert_eq!(outcome.agent_uses["explore"], 1);
}

#[test]
fn a_skill_the_prompt_asked_for_is_the_persons_choice_once() {
    let (_, outcome) = parse(
        &[
            &line("user.message", r#"{"content":"ship it","source":"skill-deploy"}"#),
            &line("skill.invoked", r#"{"name":"deploy","path":"/h/.copilot/skills/deploy/SKILL.md","content":"x"}"#),
            &line("skill.invoked", r#"{"name":"deploy","path":"/h/.copilot/skills/deploy/SKILL.md","content":"x"}"#),
            &line("user.message", r#"{"content":"/lint src"}"#),
            &line("skill.invoked", r#"{"name":"lint","path":"p","content":"x"}"#),
            &line("user.message", r#"{"content":"just talk"}"#),
            &line("skill.invoked", r#"{"name":"lint","path":"p","content":"x"}"#),
        ],
        false,
    );
    assert_eq!(outcome.skill_uses["deploy"], SkillUse { by_person: 1, by_model: 1, last_ms: line_ms() });
    assert_eq!(outcome.skill_uses["lint"], SkillUse { by_person: 1, by_model: 1, last_ms: line_ms() });
}

#[test]
fn the_working_directory_follows_the_log() {
    let (rows, outcome) = parse(
        &[
            &line("user.message", r#"{"content":"before start"}"#),
            &line(
                "session.start",
                r#"{"copilotVersion":"1.0.102","producer":"copilot-agent","context":{"cwd":"/a","branch":"main"}}"#,
            ),
            &line("session.context_changed", r#"{"cwd":"/b","branch":"dev"}"#),
            &line("user.message", r#"{"content":"after"}"#),
        ],
        false,
    );
    let projects: Vec<_> = rows.iter().map(|row| (row.project_path.as_str(), row.git_branch.as_str())).collect();
    assert_eq!(projects, [("/fallback", ""), ("/a", "main"), ("/b", "dev")]);
    assert_eq!(
        (outcome.summary.project.as_deref(), outcome.summary.copilot_version.as_deref()),
        (Some("/b"), Some("1.0.102"))
    );
}

#[test]
fn every_line_is_accounted_for() {
    let long = format!(r#"{{"type":"user.message","data":{{"content":"{}"}}}}"#, "x".repeat(200));
    let rates = crate::usage::rates::RateTable::default_table();
    let context = LogContext::of_test("copilot-cli", "e", &rates);
    let mut input = Vec::new();
    for text in [
        line("user.message", r#"{"content":"ok"}"#).as_bytes(),
        b"",
        line("assistant.turn_start", "{}").as_bytes(),
        line("session.brand_new_thing", "{}").as_bytes(),
        line("session.brand_new_thing", "{}").as_bytes(),
        b"{\"type\":\"user.message\",\"data\":{\"content\":\"\xff\"}}",
        b"[1,2]",
        line("user.message", r#"{"content":{"not":"text"},"source":7}"#).as_bytes(),
        long.as_bytes(),
    ] {
        input.extend_from_slice(text);
        input.push(b'\n');
    }
    let mut sink = Marked::default();
    let mut reader = crate::lines::LineReader::with_limit(&input[..], 128);
    let mut parser = LogParser::new(&context, &mut sink, LogState::default(), LogOutcome::default());
    parser.read(&mut reader);
    let account = parser.outcome.account;
    assert_eq!(account.lines, 9);
    assert_eq!(account.with_rows, 2);
    assert_eq!(account.skipped_by_rule.values().sum::<u64>(), 2);
    assert_eq!(account.unknown_types["session.brand_new_thing"], 2);
    assert_eq!(account.bad_lines, 3);
    let rows: Vec<&OwnedRow> = sink.0.iter().map(|(row, _)| row).collect();
    let bad: Vec<_> =
        sink.0.iter().filter(|(_, mark)| *mark == RowMark::BadLine).map(|(row, _)| row.text.as_str()).collect();
    assert_eq!(bad.len(), 3);
    assert!(bad.iter().all(|text| text.starts_with("parser: ")));
    assert!(bad[0].starts_with("parser: unparseable line (invalid UTF-8 at byte 42)"), "{}", bad[0]);
    assert!(bad[1].starts_with("parser: unparseable line (not a JSON object): [1,2]"), "{}", bad[1]);
    assert!(
        bad[2].contains("line of 245 bytes is longer than the 128 byte limit")
            && bad[2].ends_with("[... 245 bytes in all]"),
        "{}",
        bad[2]
    );
    assert_eq!(rows[3].text, r#"7: {"not":"text"}"#);
}

/// The specification's sample log, real lines: each row's mark, by line.
#[test]
fn the_sample_log_marks_its_rows() {
    let log = include_str!(
        "../../../../fixtures/spec-sample/.copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl"
    );
    let lines: Vec<&str> = log.lines().collect();
    let (rows, marks, _) = parse_marked(&lines, true);
    let marked: Vec<(u64, &str, RowMark)> = rows
        .iter()
        .zip(marks)
        .filter(|(_, mark)| *mark != RowMark::Plain)
        .map(|(row, mark)| (row.source_line, row.text.split([':', '\n']).next().unwrap_or_default(), mark))
        .collect();
    assert_eq!(
        marked,
        [
            (2, "model", RowMark::ModelChange),
            (15, "permission request", RowMark::PermissionRequest),
            (15, "permission mode", RowMark::PermissionSetting),
            (16, "permission decision", RowMark::PermissionGranted),
            (18, "[exit 1] 1 failing", RowMark::FailedToolResult),
            (22, "permission request", RowMark::PermissionRequest),
            (23, "permission decision", RowMark::PermissionGranted),
            (31, "model", RowMark::ModelChange),
            (32, "session.info model", RowMark::ModelChange),
            (33, "session.info model", RowMark::ModelChange),
            (35, "parser", RowMark::BadLine),
        ]
    );
}

/// A line whose type comes first, as the CLI writes it, is read in one pass
/// (`LogParser::event_read_at_once`); with its type after its data, the usual way. Both give
/// the same rows, marks and outcome, whatever the data holds (the quote of a bad line aside,
/// and where the envelope itself fails, the column, which is the line's).
#[test]
fn a_line_read_in_one_pass_gives_what_the_usual_read_gives() {
    let datas = [
        r#"{"toolCallId":"c1","toolName":"bash","arguments":{"command":"ls -l"},"model":"gpt-5"}"#,
        r#"{"toolCallId":"c1","toolName":"github-get_issue","mcpServerName":"github","mcpToolName":"get_issue"}"#,
        r#"{"toolCallId":"c1","success":true,"result":{"content":"a\nb \"q\" \u00e9","detailedContent":"x"},"model":"gpt-5"}"#,
        r#"{"toolCallId":"c1","success":false,"error":{"message":"denied"},"shellExecution":{"exitCode":2}}"#,
        r#"{"content":"hi","model":"gpt-5","reasoningText":"think","toolRequests":[{"toolCallId":"c2","name":"view","arguments":{"path":"/a"}}]}"#,
        r#"{"usage":{"model":"gpt-4.1","inputTokens":1001,"outputTokens":21,"cacheReadTokens":100,"reasoningTokens":5,"isByok":false}}"#,
        r#"{"usage":5}"#,
        r#"{"content":5,"toolCallId":{"a":1},"success":"maybe"}"#,
        r#"{"toolRequests":"none"}"#,
        r#"{"content":"lone \ud800 surrogate"}"#,
        r#""a string""#,
        "[1, 2]",
        "7",
        "null",
        "{}",
    ];
    let kinds = ["tool.execution_start", "tool.execution_complete", "assistant.message", "session.usage_record"];
    let columns = regex_lite::Regex::new(r"column \d+").unwrap();
    let read = |line: &str, envelope_fails: bool| {
        let (rows, marks, outcome) = parse_marked(&[line], true);
        let rows: Vec<_> = (rows.into_iter())
            .map(|row| {
                let text = row.text.replace(line, "<line>");
                let text = if envelope_fails { columns.replace_all(&text, "column _").into_owned() } else { text };
                (row.turn_type, text, row.model, row.tool_name)
            })
            .collect();
        (rows, marks, format!("{outcome:?}"))
    };
    for kind in kinds {
        let tail = format!(r#""id":"e1","timestamp":"{LINE_STAMP}","parentId":null"#);
        let mut pairs: Vec<(String, String, bool)> = (datas.iter())
            .map(|data| {
                let first = format!(r#"{{"type":"{kind}","data":{data},{tail}}}"#);
                (first, format!(r#"{{"data":{data},"type":"{kind}",{tail}}}"#), false)
            })
            .collect();
        pairs.push((format!(r#"{{"type":"{kind}",{tail}}}"#), format!(r#"{{{tail},"type":"{kind}"}}"#), false));
        let (time, twice) = (r#""data":{},"timestamp":5"#, r#""data":{},"data":{}"#);
        pairs.push((format!(r#"{{"type":"{kind}",{time}}}"#), format!(r#"{{{time},"type":"{kind}"}}"#), false));
        pairs.push((format!(r#"{{"type":"{kind}",{twice}}}"#), format!(r#"{{{twice},"type":"{kind}"}}"#), true));
        for (first, after, envelope_fails) in pairs {
            assert_eq!(leading_type(&first), Some(kind));
            assert_eq!(leading_type(&after), None);
            assert_eq!(read(&first, envelope_fails), read(&after, envelope_fails), "{first}");
        }
    }
}
