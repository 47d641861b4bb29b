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

/** The chat files read in VS Code's own folder: what is below each entry it holds, by the walk rules. */
function readBelow(source, walkRules) {
  return source.own_folder_holds.map((entry) => {
    const rule = walkRules.find(({ dir }) => dir.startsWith(entry.split('/')[0] + '/') || dir === entry);
    return rule && !entry.includes('/') ? `${rule.dir}/${rule.only.join('|')}` : entry;
  });
}

/** One system's steps. */
function steps(system, facts) {
  const [cli, ...others] = facts.sources;
  const on = (source, ...systems) => source.folders.filter((folder) => systems.includes(folder.system)).map((folder) => spelled(folder.path, system.id));
  const older = on(cli, 'older');
  const items = [
    h('li', null, `${cli.title}: open `, h('code', null, spelled(cli.folders.find((f) => f.system === 'any').path, system.id)), ` (your home folder's ${cli.own_folder}).`,
      older.length ? [' Older versions kept it in ', ...codes(older), '.'] : null),
    h('li', null, system.hidden),
  ];
  for (const source of others) {
    items.push(
      h('li', null, `${source.title}'s Copilot Chat: add its `, h('code', null, source.own_folder), ' folder, ', ...codes(on(source, system.id)),
        '; over Remote SSH, WSL or a dev container, ', ...codes(on(source, 'remote').map((path) => path.replace(/^%USERPROFILE%\\/, '~/').replaceAll('\\', '/'))),
        ' on the remote machine. Only its chat files are read (', ...codes(readBelow(source, facts.walk_rules)), ').'),
    );
  }
  items.push(h('li', null, 'Open one, then add the other: both are analysed together. A home folder works too, but takes longer to list.'));
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
