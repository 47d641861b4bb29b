// The start screen's steps: where each source keeps its folder on Windows, macOS and Linux, and
// how to reach a hidden one in the browser's picker. The folders come from the engine's facts
// (each source's data folders with their system, its own folder and what only that folder holds).
import { clear, h } from './dom.js';

const SYSTEMS = [
  { id: 'windows', name: 'Windows', hidden: 'The folder picker shows hidden folders; type the path into its address bar to go straight there.' },
  { id: 'macos', name: 'macOS', hidden: 'In the folder picker, press Cmd+Shift+. (period) to show hidden folders, or Cmd+Shift+G to type the path.' },
  { id: 'linux', name: 'Linux', hidden: 'In the folder picker, press Ctrl+H to show hidden folders, or Ctrl+L to type the path.' },
];

/** This browser's system, for the steps shown open. */
function thisSystem() {
  const platform = navigator.userAgentData?.platform || navigator.platform || '';
  if (/win/i.test(platform)) return 'windows';
  if (/mac/i.test(platform)) return 'macos';
  return 'linux';
}

/** A home-relative folder as a person on `system` types it. */
function spelled(path, system) {
  if (system !== 'windows') return `~/${path}`;
  const roaming = 'AppData/Roaming/';
  const windows = path.startsWith(roaming) ? `%APPDATA%\\${path.slice(roaming.length)}` : `%USERPROFILE%\\${path}`;
  return windows.replaceAll('/', '\\');
}

const codes = (paths) => paths.flatMap((path, i) => (i ? [', ', h('code', null, path)] : [h('code', null, path)]));

/** The folders the walk reads below `dir`, its rules followed down: below each workspace's
 *  folder, `chatSessions` and `GitHub.copilot-chat/debug-logs`. */
function readUnder(dir, walkRules) {
  const rule = walkRules.find((r) => r.dir === dir);
  return rule ? rule.only.flatMap((name) => readUnder(`${dir}/${name}`, walkRules)) : [dir];
}

/** What is read below each entry a source's own folder holds, by the walk rules; none when no
 *  rule narrows the walk (the whole folder is read). */
function readBelow(source, walkRules) {
  let narrowed = false;
  const entries = source.own_folder_holds.flatMap((entry) => {
    const rule = walkRules.find(({ dir }) => dir.startsWith(entry.split('/')[0] + '/') || dir === entry);
    if (!rule || entry.includes('/')) return [entry];
    narrowed = true;
    return readUnder(rule.dir, walkRules);
  });
  return narrowed ? entries : [];
}

/** A source's step on `system`, from its folders alone: one folder on every system is opened
 *  by its path, else its own folder is named with where it is on this system and on a remote
 *  machine. The first source is the one the main action opens; the others are added. */
function sourceStep(source, first, system, walkRules) {
  const on = (...systems) => source.folders.filter((folder) => systems.includes(folder.system)).map((folder) => spelled(folder.path, system.id));
  const everywhere = on('any');
  const remote = on('remote').map((path) => path.replace(/^%USERPROFILE%\\/, '~/').replaceAll('\\', '/'));
  const older = on('older');
  const read = readBelow(source, walkRules);
  return h('li', null, `${source.title}: ${first ? 'open' : 'add'} `,
    everywhere.length
      ? [h('code', null, everywhere[0]), ` (your home folder's ${source.own_folder})`]
      : ['its ', h('code', null, source.own_folder), ' folder, ', ...codes(on(system.id))],
    remote.length ? ['; over Remote SSH, WSL or a dev container, ', ...codes(remote), ' on the remote machine'] : null,
    '.',
    older.length ? [' Older versions kept it in ', ...codes(older), '.'] : null,
    read.length ? [' Only these of its files are read (', ...codes(read), ').'] : null,
  );
}

/** One system's steps: every source's, the way to a hidden folder after the first. */
function steps(system, facts) {
  const items = facts.sources.map((source, i) => sourceStep(source, i === 0, system, facts.walk_rules));
  items.splice(1, 0, h('li', null, system.hidden));
  const together = facts.sources.length > 2 ? 'add the others: all are' : 'add the other: both are';
  if (facts.sources.length > 1) items.push(h('li', null, `Open one, then ${together} analysed together. A home folder works too, but takes longer to list.`));
  return h('ol', null, items);
}

/** Draws the steps for every system into `container`, this browser's open. */
export function drawWhere(container, facts) {
  const mine = thisSystem();
  clear(container).append(
    ...SYSTEMS.map((system) => {
      const details = h('details', { dataset: { system: system.id } }, h('summary', null, `Where it is on ${system.name}`), steps(system, facts));
      details.open = system.id === mine;
      return details;
    }),
  );
}
