//! The Copilot CLI's own counter records: `session.shutdown` `data` (cumulative per model and
//! per agent), `session.usage_record` `data.usage` (one model call), `session.usage_checkpoint`
//! `data`, and the store's per-call rows (read into [`UsageCounts`]). Each reads into the
//! ledger's source-neutral inputs (`usage::inputs`) by the lenient rules of `usage::counters`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::usage::Tokens;
use crate::usage::counters::{Amount, Count, Group, Reading, Recorded, Shaped, Written};
use crate::usage::inputs::{Call, ModelTotal, ShutdownTotals};

/// `usage` of a model metric, and of a usage record (which also names its model).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageCounts {
    pub model: Option<String>,
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_read_tokens: Count,
    pub cache_write_tokens: Count,
    pub reasoning_tokens: Count,
    /// A call made with the person's own model key, which GitHub does not bill (usage records).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub is_byok: Option<bool>,
    /// A call whose model Auto chose, billed at Auto's discount (usage records).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub is_auto: Option<bool>,
    /// The call's premium requests (usage records; the store's `request_multiplier`).
    pub cost: Amount,
    /// What Copilot billed for the call (usage records; the store's `total_nano_aiu`).
    #[serde(deserialize_with = "crate::json::lenient")]
    pub copilot_usage: Option<CopilotUsage>,
}

/// A call's `copilotUsage`: its billed amount in nano-AIU.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CopilotUsage {
    pub total_nano_aiu: Amount,
}

impl UsageCounts {
    /// What Copilot recorded as billed for one call.
    fn recorded(&self) -> Recorded {
        let nano_aiu = self.copilot_usage.as_ref().map_or(Amount::Absent, |usage| usage.total_nano_aiu);
        Recorded::read(nano_aiu, 1.0, self.cost)
    }

    fn read_into(&self, object: &'static str, reading: &mut Reading) {
        let tokens = Tokens {
            requests: reading.tokens.requests,
            input: reading.take(object, "inputTokens", self.input_tokens, Group::Input),
            cache_read: reading.take(object, "cacheReadTokens", self.cache_read_tokens, Group::Input),
            cache_write: reading.take(object, "cacheWriteTokens", self.cache_write_tokens, Group::Input),
            output: reading.take(object, "outputTokens", self.output_tokens, Group::Output),
            reasoning: reading.take(object, "reasoningTokens", self.reasoning_tokens, Group::Output),
        };
        reading.tokens = tokens;
        reading.hold_reasoning_inside_output(&Tokens::default(), object, "reasoningTokens");
    }

    /// One call (a store's per-call row), as the ledger takes it.
    pub fn call(&self) -> Call {
        let mut reading = Reading { tokens: Tokens { requests: 1, ..Tokens::default() }, ..Reading::default() };
        self.read_into("", &mut reading);
        Call {
            reading: reading.finish(),
            recorded: self.recorded(),
            byok: self.is_byok == Some(true),
            auto: self.is_auto == Some(true),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Requests {
    pub count: Count,
    /// Premium requests (legacy plans).
    pub cost: Amount,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelMetric {
    pub requests: Shaped<Requests>,
    pub usage: Shaped<UsageCounts>,
    pub total_nano_aiu: Amount,
    /// The tokens Copilot billed (1.0.78 and later), with a compaction's, which `usage` leaves
    /// out: `{input, cache_read, cache_write, output}`, each `{tokenCount}`, `input` fresh only.
    /// Kept as written and read by [`billed_tokens`]: its own derived reader cost the page's
    /// first download 2.4 kB.
    pub token_details: Option<serde_json::Value>,
}

/// The tokens a `tokenDetails` says were billed (input holding the cache's), if each count
/// written is one.
fn billed_tokens(details: &serde_json::Value) -> Option<Tokens> {
    let count = |name: &str| match details.get(name) {
        None => Some(0),
        Some(detail) => match Count::deserialize(detail.as_object()?.get("tokenCount").unwrap_or_default()).ok()? {
            Count::Read(value) => Some(value),
            Count::Unusable(_) => None,
        },
    };
    let (cache_read, cache_write) = (count("cache_read")?, count("cache_write")?);
    Some(Tokens {
        input: count("input")?.saturating_add(cache_read).saturating_add(cache_write),
        cache_read,
        cache_write,
        output: count("output")?,
        ..Tokens::default()
    })
}

impl ModelTotal for Shaped<ModelMetric> {
    fn recorded(&self) -> Recorded {
        match self {
            Shaped::Object(metric) => {
                let cost = match &metric.requests {
                    Shaped::Object(requests) => requests.cost,
                    Shaped::Not(_) => Amount::Absent,
                };
                Recorded::read(metric.total_nano_aiu, 1.0, cost)
            }
            Shaped::Not(_) => Recorded::default(),
        }
    }

    /// Field paths are relative to the metric.
    fn read(&self) -> Reading {
        let mut reading = Reading::default();
        match self {
            Shaped::Not(written) => reading.spoil("", "", *written, &[Group::Requests, Group::Input, Group::Output]),
            Shaped::Object(metric) => {
                match &metric.requests {
                    Shaped::Object(requests) => {
                        reading.tokens.requests = reading.take("requests", "count", requests.count, Group::Requests)
                    }
                    Shaped::Not(written) => reading.spoil("requests", "", *written, &[Group::Requests]),
                }
                read_usage(&metric.usage, &mut reading);
                // What was billed beyond the usage counters is a compaction's call: counted, so
                // that the tokens are those the credits were billed for.
                if let Some(billed) = metric.token_details.as_ref().and_then(billed_tokens) {
                    let with_billed = reading.tokens.max_each(&billed);
                    reading.compaction = with_billed != reading.tokens;
                    reading.tokens = with_billed;
                }
            }
        }
        reading.finish()
    }
}

fn read_usage(usage: &Shaped<UsageCounts>, reading: &mut Reading) {
    match usage {
        Shaped::Object(usage) => usage.read_into("usage", reading),
        Shaped::Not(written) => reading.spoil("usage", "", *written, &[Group::Input, Group::Output]),
    }
}

/// `session.shutdown` `data.modelMetrics`: cumulative totals per model since the session began.
pub type ModelMetrics = BTreeMap<String, Shaped<ModelMetric>>;

/// `session.usage_record` `data`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct UsageRecordData {
    pub usage: Shaped<UsageCounts>,
}

impl UsageRecordData {
    /// The call's model (empty when unnamed).
    pub fn model(&self) -> &str {
        match &self.usage {
            Shaped::Object(usage) => usage.model.as_deref().unwrap_or_default(),
            Shaped::Not(_) => "",
        }
    }

    /// The call as the ledger takes it (one request); field paths are relative to `data`.
    pub fn call(&self) -> Call {
        let mut reading = Reading { tokens: Tokens { requests: 1, ..Tokens::default() }, ..Reading::default() };
        read_usage(&self.usage, &mut reading);
        match &self.usage {
            Shaped::Object(usage) => Call {
                reading: reading.finish(),
                recorded: usage.recorded(),
                byok: usage.is_byok == Some(true),
                auto: usage.is_auto == Some(true),
            },
            Shaped::Not(_) => Call { reading: reading.finish(), ..Call::default() },
        }
    }
}

/// The counters of one shutdown line, as the ledger takes them. `None`: no `modelMetrics`
/// (absent or `null`), which counts nothing (an empty object counts a session without calls).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ShutdownCounters {
    pub model_metrics: Option<Shaped<ModelMetrics>>,
    /// The same per agent instance: `main` and each sub-agent (none when not written, or not
    /// in its shape). Read in place, as `modelMetrics` is: read through a JSON value, its
    /// counters' readers were in the page's first download twice (20 kB before compression).
    pub agent_metrics: Shaped<BTreeMap<String, Shaped<AgentMetric>>>,
    /// The session-wide billed totals (1.0.40 and later), which can exceed the per-model sum
    /// when a process before it ended without a shutdown.
    pub total_nano_aiu: Amount,
    pub total_premium_requests: Amount,
}

impl ShutdownTotals for ShutdownCounters {
    type Model = Shaped<ModelMetric>;

    fn per_model(&self) -> Result<&ModelMetrics, Option<Written>> {
        match &self.model_metrics {
            Some(Shaped::Object(metrics)) => Ok(metrics),
            Some(Shaped::Not(written)) => Err(Some(*written)),
            None => Err(None),
        }
    }

    fn per_agent(&self) -> impl Iterator<Item = (&str, &str, &ModelMetrics)> {
        let agents = match &self.agent_metrics {
            Shaped::Object(agents) => Some(agents),
            Shaped::Not(_) => None,
        };
        agents.into_iter().flatten().filter_map(|(id, agent)| match agent {
            Shaped::Object(AgentMetric { agent_name, model_metrics: Shaped::Object(models) }) => {
                let label = if id == "main" { "main" } else { agent_name.as_deref().unwrap_or(id) };
                Some((id.as_str(), label, models))
            }
            _ => None,
        })
    }

    fn session_recorded(&self) -> Recorded {
        Recorded::read(self.total_nano_aiu, 1.0, self.total_premium_requests)
    }
}

/// `session.usage_checkpoint` `data`: the session's running billed totals, written while it
/// runs (a lower bound for a session that never shuts down).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UsageCheckpointData {
    pub total_nano_aiu: Amount,
    pub total_premium_requests: Amount,
    /// The models whose prompt cache it tracks (1.0.75 and later), the latest expiry last.
    #[serde(deserialize_with = "crate::json::lenient")]
    pub model_cache_state: Option<Vec<ModelCacheState>>,
}

/// One entry of a checkpoint's `modelCacheState`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelCacheState {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub model_id: Option<String>,
    #[serde(deserialize_with = "crate::json::lenient")]
    pub cache_expires_at: Option<String>,
}

impl UsageCheckpointData {
    pub fn recorded(&self) -> Recorded {
        Recorded::read(self.total_nano_aiu, 1.0, self.total_premium_requests)
    }

    /// The model the checkpoint was last used with: of its cache states, the latest to
    /// expire (none when it names none).
    pub fn model(&self) -> Option<&str> {
        let states = self.model_cache_state.as_deref().unwrap_or_default();
        let named =
            states.iter().filter_map(|state| Some((state.cache_expires_at.as_deref(), state.model_id.as_deref()?)));
        named.max_by_key(|(expires, _)| *expires).map(|(_, model)| model).filter(|model| !model.is_empty())
    }
}

/// One agent's share of a shutdown's cumulative totals (`agentMetrics[id]`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentMetric {
    #[serde(deserialize_with = "crate::json::lenient")]
    pub agent_name: Option<String>,
    pub model_metrics: Shaped<ModelMetrics>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::counters::{LeftOut, Unusable};

    fn metric(json: &str) -> Reading {
        serde_json::from_str::<Shaped<ModelMetric>>(json).unwrap().read()
    }

    #[test]
    fn an_unreadable_part_leaves_out_its_group_only() {
        let reading = metric(
            r#"{"requests":{"count":3},"usage":{"inputTokens":900,"cacheReadTokens":-1,"outputTokens":50,"reasoningTokens":10}}"#,
        );
        assert_eq!(reading.left_out, LeftOut { requests: false, input: true, output: false });
        assert_eq!(reading.tokens, Tokens { requests: 3, output: 50, reasoning: 10, ..Tokens::default() });
        assert_eq!(reading.unusable.iter().map(Unusable::path).collect::<Vec<_>>(), ["usage.cacheReadTokens"]);
    }

    #[test]
    fn billed_token_details_above_the_usage_counters_are_a_compaction_and_bad_ones_are_ignored() {
        let usage = r#""requests":{"count":1},"usage":{"inputTokens":900,"cacheReadTokens":400,"outputTokens":50}"#;
        let billed = r#"{"input":{"tokenCount":700},"cache_read":{"tokenCount":600},"output":{"tokenCount":80}}"#;
        let reading = metric(&format!(r#"{{{usage},"tokenDetails":{billed}}}"#));
        assert!(reading.compaction);
        let tokens = Tokens { requests: 1, input: 1300, cache_read: 600, output: 80, ..Tokens::default() };
        assert_eq!(reading.tokens, tokens);
        // The same as the usage counters: nothing beyond them.
        let same = r#"{"input":{"tokenCount":500},"cache_read":{"tokenCount":400},"output":{"tokenCount":50}}"#;
        let reading = metric(&format!(r#"{{{usage},"tokenDetails":{same}}}"#));
        assert!(!reading.compaction);
        // Not in their shape, or a count that cannot be one: the usage counters alone.
        let counted = Tokens { requests: 1, input: 900, cache_read: 400, output: 50, ..Tokens::default() };
        for details in ["7", r#"{"input":{"tokenCount":-3},"output":{"tokenCount":80}}"#, r#"{"output":"many"}"#] {
            let reading = metric(&format!(r#"{{{usage},"tokenDetails":{details}}}"#));
            assert_eq!(
                (reading.compaction, reading.tokens, reading.left_out.any()),
                (false, counted, false),
                "{details}"
            );
        }
    }

    #[test]
    fn reasoning_above_output_leaves_out_the_output_group() {
        let reading =
            metric(r#"{"requests":{"count":1},"usage":{"inputTokens":900,"outputTokens":50,"reasoningTokens":80}}"#);
        assert_eq!(reading.left_out, LeftOut { requests: false, input: false, output: true });
        assert_eq!(reading.tokens, Tokens { requests: 1, input: 900, ..Tokens::default() });
        let [unusable] = reading.unusable.as_slice() else { panic!("{:?}", reading.unusable) };
        assert_eq!(
            format!("{} is {} ({})", unusable.path(), unusable.written, unusable.why()),
            "usage.reasoningTokens is 80, more than the output's 50 (reasoning is part of output)"
        );
        // Since earlier totals: 40 more reasoning against 20 more output.
        let mut reading = metric(r#"{"usage":{"outputTokens":120,"reasoningTokens":60}}"#);
        reading.hold_reasoning_inside_output(&Tokens { output: 100, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert!(reading.left_out.output);
        let mut whole = metric(r#"{"usage":{"outputTokens":120,"reasoningTokens":60}}"#);
        whole.hold_reasoning_inside_output(&Tokens { output: 60, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert_eq!(whole.left_out, LeftOut::default());
        // An output that went down is the ledger's `total_went_down`, not this.
        let mut lower = metric(r#"{"usage":{"outputTokens":80,"reasoningTokens":60}}"#);
        lower.hold_reasoning_inside_output(&Tokens { output: 100, reasoning: 20, ..Tokens::default() }, "usage", "r");
        assert_eq!(lower.left_out, LeftOut::default());
    }

    #[test]
    fn a_wrongly_shaped_object_spoils_what_it_holds() {
        let reading = metric(r#"{"requests":true,"usage":{"inputTokens":900}}"#);
        assert_eq!(reading.left_out, LeftOut { requests: true, ..LeftOut::default() });
        assert_eq!(reading.tokens.input, 900);
        assert_eq!(reading.unusable, [Unusable { object: "requests", field: "", written: Written::Bool(true) }]);
        let reading = metric(r#"{"requests":{"count":2},"usage":[1]}"#);
        assert_eq!(reading.left_out, LeftOut { requests: false, input: true, output: true });
        assert_eq!(reading.tokens.requests, 2);
        assert_eq!(metric("7").left_out, LeftOut { requests: true, input: true, output: true });
        let shutdown: ShutdownCounters = serde_json::from_str(r#"{"modelMetrics":"none"}"#).unwrap();
        assert_eq!(shutdown.model_metrics, Some(Shaped::Not(Written::Text)));
        for missing in ["{}", r#"{"modelMetrics":null}"#] {
            assert_eq!(serde_json::from_str::<ShutdownCounters>(missing).unwrap().model_metrics, None);
        }
    }

    #[test]
    fn a_usage_record_reads_into_one_call_with_its_flags_and_billed_figures() {
        let record: UsageRecordData = serde_json::from_str(
            r#"{"usage":{"model":"m","inputTokens":900,"outputTokens":50,"isByok":true,"isAuto":"yes","cost":2,
                "copilotUsage":{"totalNanoAiu":1500}}}"#,
        )
        .unwrap();
        let call = record.call();
        assert_eq!(record.model(), "m");
        assert_eq!(call.reading.tokens, Tokens { requests: 1, input: 900, output: 50, ..Tokens::default() });
        assert_eq!(call.recorded, Recorded { nano_aiu: Some(1500), premium_milli: Some(2000), implausible: false });
        // A flag that is not a bool is not one (read leniently as absent).
        assert_eq!((call.byok, call.auto), (true, false));
        // A `usage` that is not an object is a call whose counters are all left out.
        let spoiled: UsageRecordData = serde_json::from_str(r#"{"usage":[1]}"#).unwrap();
        let call = spoiled.call();
        assert_eq!(spoiled.model(), "");
        assert_eq!(call.reading.left_out, LeftOut { requests: false, input: true, output: true });
        assert_eq!(call.reading.tokens, Tokens { requests: 1, ..Tokens::default() });
        assert_eq!((call.recorded, call.byok, call.auto), (Recorded::default(), false, false));
    }

    #[test]
    fn a_shutdown_gives_its_models_its_agents_by_label_and_its_session_totals() {
        let shutdown: ShutdownCounters = serde_json::from_str(
            r#"{"modelMetrics":{"m":{"requests":{"count":2}}},"totalNanoAiu":3e9,
                "agentMetrics":{"main":{"agentName":"x","modelMetrics":{"m":{}}},"a1":{"agentName":"explore"},"a2":{}}}"#,
        )
        .unwrap();
        let models = shutdown.per_model().unwrap();
        assert_eq!(models.keys().collect::<Vec<_>>(), ["m"]);
        assert_eq!(models["m"].read().tokens.requests, 2);
        let agents: Vec<_> = shutdown.per_agent().map(|(id, label, models)| (id, label, models.len())).collect();
        assert_eq!(agents, [("a1", "explore", 0), ("a2", "a2", 0), ("main", "main", 1)]);
        assert_eq!(shutdown.session_recorded().nano_aiu, Some(3_000_000_000));
        let not_an_object: ShutdownCounters = serde_json::from_str(r#"{"modelMetrics":7,"agentMetrics":[1]}"#).unwrap();
        assert_eq!(not_an_object.per_model().err(), Some(Some(Written::Integer(7))));
        assert_eq!(not_an_object.per_agent().count(), 0);
        // An agent not in its shape is passed over, not the others with it.
        let one_bad: ShutdownCounters = serde_json::from_str(
            r#"{"agentMetrics":{"a1":"x","a2":{"modelMetrics":5},"a3":{"agentName":7,"modelMetrics":{"m":{}}}}}"#,
        )
        .unwrap();
        let agents: Vec<_> = one_bad.per_agent().map(|(id, label, models)| (id, label, models.len())).collect();
        assert_eq!(agents, [("a3", "a3", 1)]);
        let missing: ShutdownCounters = serde_json::from_str("{}").unwrap();
        assert_eq!(missing.per_model().err(), Some(None));
    }
}
