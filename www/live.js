// The page, live (issue 54): a remembered folder analysed again on a timer while the tab is
// visible, through the page's cache (only what changed is read again), and what a refresh
// changed, in words. Loaded once a remembered folder is analysed: a first visit downloads none of
// it. (The tab's title, which says today's credits after every analysis, is app.js's.)
import { fmtCount, fmtInt, fmtTime, h } from './dom.js';
import { rememberedFolder, rememberedId } from './remember.js';

const EVERY_KEY = 'copilot-lens.refresh-minutes';
let timer = null;

/**
 * @typedef {{ refreshable: boolean, analyseAgain?: (handle: FileSystemDirectoryHandle, id: string | null) => unknown, cache?: any, seconds?: number }} Followed
 * `refreshable`: a remembered folder was just analysed (else the timer stops); `analyseAgain`
 * analyses it again; `cache` and `seconds`: what that analysis cost (the cache line's figures).
 */
/** @type {Followed | null} */
let followed = null;

/**
 * Offers to analyse the remembered folder again every few minutes while the tab is visible,
 * when one was just analysed (else stops), and says what a refresh costs.
 * @param {Followed} state
 */
export function follow(state) {
  followed = state;
  if (!document.getElementById('auto-refresh')) made();
  /** @type {HTMLElement} */ (document.getElementById('auto-refresh-line')).hidden = !state.refreshable;
  schedule();
}

/** The control beside Refresh, and the line under it, made once (none in the first download). */
function made() {
  const select = h(
    'select#auto-refresh',
    { attrs: { 'aria-label': 'Refresh the folder automatically' } },
    [['0', 'never'], ['1', 'minute'], ['5', '5 minutes'], ['15', '15 minutes']].map(([value, text]) => h('option', { value }, text)),
  );
  const refresh = /** @type {HTMLElement} */ (document.getElementById('refresh-folder'));
  const line = h('label#auto-refresh-line.muted', null, 'every ', select);
  const note = h('p#auto-refresh-note.muted', { hidden: true });
  // Styled here (CSSOM, which the page's policy allows): style.css is in the first download.
  Object.assign(line.style, { fontSize: '0.85rem' });
  Object.assign(note.style, { margin: '0', flexBasis: '100%', fontSize: '0.85rem' });
  refresh.after(line, note);
  try {
    select.value = localStorage.getItem(EVERY_KEY) || '0';
  } catch {
    // storage refused: off until chosen
  }
  select.addEventListener('change', () => {
    try {
      localStorage.setItem(EVERY_KEY, select.value);
    } catch {
      // for this page only
    }
    schedule();
  });
  document.addEventListener('visibilitychange', schedule);
}

/** Sets the next refresh when one is chosen, a remembered folder shown and the tab visible; says what a refresh costs. */
function schedule() {
  clearTimeout(timer);
  timer = null;
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('auto-refresh'));
  const note = /** @type {HTMLElement} */ (document.getElementById('auto-refresh-note'));
  const minutes = followed && followed.refreshable ? Number(select.value) : 0;
  note.hidden = !minutes;
  if (!minutes || !followed || !followed.analyseAgain) return;
  const { cache, seconds = 0, analyseAgain } = followed;
  const cost = cache && !cache.unavailable
    ? `the last analysis took ${seconds.toFixed(1)} s: ${fmtInt(cache.changed)} ${cache.changed === 1 ? 'file' : 'files'} read, ${fmtInt(cache.from_cache)} from the cache`
    : `the last analysis took ${seconds.toFixed(1)} s, with no cache`;
  const visible = document.visibilityState === 'visible';
  note.textContent = `Refreshing every ${minutes} min while this tab is visible${visible ? '' : ' (paused)'}; ${cost}.`;
  if (!visible) return;
  timer = setTimeout(async () => {
    const handle = await rememberedFolder();
    // Never asks: a timer has no click to ask with. Refresh (a click) asks again.
    if (handle && (await handle.queryPermission({ mode: 'read' })) === 'granted') analyseAgain(handle, rememberedId());
    else note.textContent = 'Not refreshed: the browser no longer allows reading the folder; Refresh asks again.';
  }, minutes * 60_000);
}

/** What a refresh found against the sessions `before` it: new activity and new sessions, in words. */
export function changedWords(before, after) {
  const lastEvent = (session) => session.last_event || session.updated_at || '';
  const was = new Map(before.map((session) => [session.session_id, lastEvent(session)]));
  const added = after.filter((session) => !was.has(session.session_id));
  const active = after.filter((session) => was.has(session.session_id) && lastEvent(session) !== was.get(session.session_id));
  if (!added.length && !active.length) return 'nothing new since the last analysis.';
  const parts = [];
  if (active.length) parts.push(`${fmtCount(active.length, 'session')} ${active.length === 1 ? 'has' : 'have'} new activity`);
  if (added.length) parts.push(fmtCount(added.length, 'new session'));
  const latest = [...active, ...added].map(lastEvent).filter(Boolean).sort().pop();
  return `${parts.join(', ')}${latest ? `; latest event ${fmtTime(latest)}` : ''}.`;
}
