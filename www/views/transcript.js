// One session as a conversation: prompts and replies, tool calls with their results folded
// (<details>), permission requests and decisions, model changes and other notes, thinking
// behind a toggle. Rows come from the worker a page at a time.
import { add, badge, clear, download, fmtCount, fmtCredits, fmtInt, fmtTime, fmtUsd, firstLine, h } from '../dom.js';
import { diffView, looksLikeDiff } from '../diff.js';
import { markdown, markdownReady } from '../markdown.js';
import { creditsUsedText, estimatedShareText } from './month.js';

/** A session's models, with those chosen but never answering marked so. */
export function modelsShown(session) {
  return [...session.models, ...(session.models_never_used || []).map((model) => `${model} (chosen, never answered)`)];
}

/** The mark of a session Copilot Desktop made and nobody prompted (`precreated_unused`). */
export const PRECREATED = 'empty session';

const PAGE = 400;
const TEXT_LIMIT = 200_000;

/** A prompt's or reply's text, as Markdown. */
function text(row) {
  const more = row.text_bytes ? h('span.cut', null, ` … (${fmtInt(row.text_bytes)} bytes in all; the whole text is in the exports)`) : null;
  return h('div.msg-text', null, markdown(row.text), more);
}

/** Lines of a tool's call or output shown before "Show all". */
const OUTPUT_LINES = 20;

/** A tool call's or result's text: a diff for an edit, long output folded to its first lines. */
function toolText(row, className) {
  const lines = row.text.split('\n');
  const cut = row.text_bytes ? ` … (${fmtInt(row.text_bytes)} bytes)` : '';
  const asDiff = looksLikeDiff(row.text);
  const draw = (count) => (asDiff ? diffView(row.text, count) : h(`pre.${className}`, null, lines.slice(0, count).join('\n'), count >= lines.length ? cut : ''));
  if (lines.length <= OUTPUT_LINES + 5) return [asDiff ? diffView(row.text) : h(`pre.${className}`, null, row.text, cut)];
  const body = h('div.folded', null, draw(OUTPUT_LINES));
  const open = h('button.button.small.show-all', { on: { click: () => (body.replaceChildren(draw(Infinity)), open.remove()) } }, `Show all ${fmtInt(lines.length)} lines`);
  return [body, open];
}

/** A button that shows this row of the transcript in the timeline. */
function inTimeline(ctx, sessionId, position) {
  return h('button.link.to-timeline', { title: 'Show this row in the timeline', on: { click: () => ctx.showTimelineRow({ session_id: sessionId }, position) } }, 'timeline');
}

function meta(row, ...extra) {
  return h('div.msg-meta', null, h('span', { title: `${row.source}:${row.source_line}` }, fmtTime(row.timestamp_utc) || 'undated'), ...extra);
}

// How a system row shows, by its mark (what the core says the row means, set where it made
// the row): its CSS class and label. Rows with any other mark are notes.
const SYSTEM_SHOW = {
  permission_request: ['perm-request', 'permission requested'],
  permission_granted: ['perm-decision', 'permission granted'],
  permission_decision: ['perm-decision', 'permission decision'],
  permission_denied: ['perm-denied', 'permission denied'],
  permission_setting: ['perm-setting', 'permissions'],
  model_change: ['model', 'model'],
  bad_line: ['bad', 'bad line'],
};
const NOTE = ['note', 'note'];

/** @param {import('../app.js').ViewContext} ctx */
export async function renderTranscript(container, ctx, sessionId, index = null) {
  await markdownReady();
  const [sessions, credits] = await Promise.all([ctx.get('sessions'), ctx.get('session_credits')]);
  const session = sessions.find((s) => s.session_id === sessionId);
  const used = credits[sessionId];
  const showThinking = h('input#show-thinking', { type: 'checkbox' });
  const conversation = h('div#conversation.conversation');
  const status = h('p.muted');
  const more = h('div');

  const header = transcriptHead(ctx, session, sessionId, used, showThinking);
  const thinkingOff = thinkingLeftOut(ctx);
  add(container, header, thinkingOff, status, conversation, more);
  showThinking.addEventListener('change', () => {
    if (!ctx.thinkingIncluded) {
      thinkingOff.hidden = !showThinking.checked;
      return;
    }
    conversation.classList.toggle('show-thinking', showThinking.checked);
  });

  const calls = new Map();
  let loaded = 0;
  let total = 0;
  let thinkingRows = 0;

  const load = async () => {
    const page = await ctx.ask({ rows: { filter: { session_id: sessionId }, offset: loaded, limit: PAGE, text_limit: TEXT_LIMIT } });
    if (!ctx.alive()) return;
    total = page.total;
    page.rows.forEach((row, i) => {
      if (row.turn_type === 'thinking') thinkingRows++;
      addRow(conversation, calls, ctx, sessionId, row, loaded + i);
    });
    loaded += page.rows.length;
    status.textContent = `${fmtCount(total, 'row')}${thinkingRows ? `, ${fmtInt(thinkingRows)} of them thinking` : ''}.`;
    clear(more);
    if (loaded < total) {
      add(more, h('button#transcript-more.button', { on: { click: () => load() } }, `Load ${fmtInt(Math.min(PAGE, total - loaded))} more of ${fmtInt(total - loaded)}`));
    }
  };
  await load();
  if (index !== null) {
    // A row shown from the timeline: the pages before it are loaded too.
    const find = () => conversation.querySelector(`[data-index="${index}"]`);
    while (!find() && loaded < total && ctx.alive()) await load();
    const target = find();
    if (target) focusRow(target);
  }
  container.dataset.loaded = sessionId;
}

/** The transcript's head: the session's title and facts, its warnings, its plan and controls. */
function transcriptHead(ctx, session, sessionId, used, showThinking) {
  return h(
    'div.transcript-head',
    null,
    h('h2.view-title', null, session ? session.display_name : 'Session'),
    h('p.mono.muted', null, sessionId),
    session ? sessionFacts(session, used) : null,
    session && session.precreated_unused
      ? h('p#session-precreated.warning', null, badge(PRECREATED, 'info'), ' Copilot Desktop made this session (its workspace.yaml) and it was never prompted: it has no event log.')
      : session && !session.events_log
        ? h('p.warning', null, 'This session has no event log any more (deleted or never written): what is left comes from the store, the history and other files.')
        : null,
    // The plan is the session's plan.md, shown only when asked for, as plain text.
    session && session.plan !== null ? h('details#session-plan.plan', null, h('summary', null, 'Plan (plan.md)'), h('pre', null, session.plan)) : null,
    h(
      'div.controls',
      null,
      h('label', null, showThinking, ' Show thinking'),
      h('button.button.small', { on: { click: () => ctx.showTimeline({ session_id: sessionId }) } }, 'Show in timeline'),
      h(
        'button#export-session-md.button.small',
        {
          on: {
            click: async () => {
              const { name, saveAs } = ctx.engine.sessionFile(sessionId);
              download(await ctx.engine.exportFile(name, sessionId), saveAs);
            },
          },
        },
        'Export as Markdown',
      ),
    ),
  );
}

/** What the session is: where, when, which agent and models, what it did and cost. */
function sessionFacts(session, used) {
  return h(
    'dl.facts',
    null,
    fact('project', session.project_path),
    fact('branch', session.git_branch),
    fact('client', session.client_name),
    fact('started', fmtTime(session.first_event || session.created_at)),
    fact('last event', fmtTime(session.last_event || session.updated_at)),
    fact('agent', session.agent),
    // Copilot CLI's version, or the Copilot Chat extension's for a VS Code chat.
    fact('version', session.copilot_version),
    fact('models', modelsShown(session).join(', ')),
    fact('prompts / replies / tool calls', `${session.prompts} / ${session.replies} / ${session.tool_calls} (${session.failed_tool_calls} failed)`),
    fact('permission requests / denials', `${session.permission_requests} / ${session.denials}`),
    fact('shutdown', session.shutdown),
    fact('credits used', used ? `${creditsUsedText(used)}${used.credits ? ` (${fmtUsd(used.usd)}, ${estimatedShareText(used)})` : ''}` : null),
    fact('usage', session.usage ? `${fmtInt(session.usage.total)} tokens (${session.usage.source})` : 'unknown'),
    fact('found in', session.found_in.join(', ')),
    fact('checkpoints', session.checkpoint_titles.length ? h('ol#session-checkpoints.checkpoints', null, session.checkpoint_titles.map((title) => h('li', null, title))) : null),
    fact('artifacts', session.artifacts.length ? h('ul#session-artifacts.plain.mono', null, session.artifacts.map((name) => h('li', null, name))) : null),
  );
}

/**
 * Without the option the analysis kept no thinking rows: the toggle says so and offers to
 * analyse again with it, rather than showing nothing.
 */
function thinkingLeftOut(ctx) {
  return h(
    'p#thinking-off.warning',
    { hidden: true },
    'This analysis left out the model\u2019s reasoning (the option “Include the model\u2019s reasoning”). ',
    h('button#analyse-with-thinking.button.small', { on: { click: () => ctx.analyseWithThinking() } }, 'Analyse again with it'),
  );
}

/**
 * A row of the conversation, added to it (a tool's result to its call, `calls` by their ids).
 * `position` is the row's place in the session's rows: the timeline's, filtered by session.
 */
function addRow(conversation, calls, ctx, sessionId, row, position) {
  const dataset = { index: row.index, position };
  const jump = inTimeline(ctx, sessionId, position);
  switch (row.turn_type) {
    case 'user':
      add(conversation, h('div.msg.user', { dataset }, meta(row, h('strong', null, 'Prompt'), jump), text(row)));
      break;
    case 'assistant':
      add(conversation, h('div.msg.assistant', { dataset }, meta(row, h('strong', null, 'Copilot'), row.model ? badge(row.model) : null, jump), text(row)));
      break;
    case 'thinking':
      add(conversation, h('div.msg.thinking', { dataset }, meta(row, h('strong', null, 'Thinking'), jump), text(row)));
      break;
    case 'tool_use': {
      const details = toolCall(row, dataset, jump);
      if (row.tool_use_id) calls.set(row.tool_use_id, details);
      add(conversation, details);
      break;
    }
    case 'tool_result':
      addToolResult(conversation, calls, row, dataset, jump);
      break;
    default:
      add(conversation, systemRow(row, dataset, jump));
  }
}

/** A tool call, folded, with no result until one comes. */
function toolCall(row, dataset, jump) {
  return h(
    'details.tool',
    { dataset: { ...dataset, toolUseId: row.tool_use_id } },
    h('summary', null, h('span.tool-name', null, row.tool_name || 'tool'), ' ', h('span.tool-first', null, firstLine(row.text, 120)), h('span.tool-status', null, ' · no result')),
    meta(row, h('span.mono', null, row.tool_use_id), jump),
    h('div.tool-label', null, 'Call'),
    ...toolText(row, 'call'),
  );
}

/** A tool's result, in its call when the call is shown, else folded on its own. */
function addToolResult(conversation, calls, row, dataset, jump) {
  const result = [h('div.tool-label', { dataset }, `Result (${fmtTime(row.timestamp_utc)}) `, jump), ...toolText(row, 'result')];
  const call = row.tool_use_id && calls.get(row.tool_use_id);
  if (call) {
    add(call, ...result);
    call.querySelector('.tool-status').textContent = ' · ' + firstLine(row.text, 60);
  } else {
    add(conversation, h('details.tool', { dataset }, h('summary', null, h('span.tool-name', null, row.tool_name || 'tool'), ' result ', h('span.tool-first', null, firstLine(row.text, 120))), ...result));
  }
}

/** A system row: a permission's request or decision, a model change, a bad line, or a note. */
function systemRow(row, dataset, jump) {
  const [kind, label] = SYSTEM_SHOW[row.mark] || NOTE;
  const long = row.text.length > 240 || row.text.includes('\n');
  // A note of `key=value` pairs (the engine's reading): its lead, then each value labelled.
  const body = long
    ? h('details.sys-text', null, h('summary', null, firstLine(row.text, 160)), h('pre', null, row.text))
    : row.note_fields
      ? h('span.sys-text', null, row.note_fields.lead, row.note_fields.fields.map(([key, value]) => [' · ', h('span.muted', null, `${key.replaceAll('_', ' ')} `), value]))
      : h('span.sys-text', null, row.text);
  return h('div.sys', { class: kind, dataset }, h('span.sys-label', null, label), h('span.sys-time', null, fmtTime(row.timestamp_utc)), body, jump);
}

/** Shows the row shown from the timeline: unfolded, marked, in view and focused. */
function focusRow(target) {
  const folded = target.closest('details');
  if (folded) folded.open = true;
  target.classList.add('focus-row');
  target.tabIndex = -1;
  target.scrollIntoView({ block: 'center' });
  target.focus({ preventScroll: true });
}

function fact(label, value) {
  if (!value) return null;
  return [h('dt', null, label), h('dd', null, value)];
}
