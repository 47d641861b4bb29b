// A time zone's offsets from UTC as this browser's Intl knows them, for the engine, which
// carries no time-zone database of its own: [[from_epoch_ms, offset_seconds], ...] for every
// change from 1970 to 2100 (before, the first offset holds; after, the last).

const FROM = Date.UTC(1970, 0, 1);
const UNTIL = Date.UTC(2100, 0, 1);
// Offsets are sampled a week apart (no zone changes twice in a week since 1970), and each
// change found is narrowed down to the millisecond.
const STEP = 7 * 86_400_000;

export function zoneOffsets(zone) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const offsetAt = (ms) => {
    const part = Object.fromEntries(format.formatToParts(ms).map(({ type, value }) => [type, Number(value)]));
    const wall = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
    return Math.round((wall - Math.floor(ms / 1000) * 1000) / 1000);
  };
  let offset = offsetAt(FROM);
  const changes = [[FROM, offset]];
  for (let at = FROM + STEP; at < UNTIL; at += STEP) {
    const next = offsetAt(at);
    if (next === offset) continue;
    // The change is in (at - STEP, at]: the first millisecond with the new offset.
    let low = at - STEP;
    let high = at;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetAt(middle) === offset) low = middle;
      else high = middle;
    }
    changes.push([high, next]);
    offset = next;
  }
  return changes;
}
