// The state as a collapsible tree: what the selected action changed highlighted (its
// ancestors opened), long arrays shown a hundred items at a time, and a search that marks
// matching keys and values and opens their ancestors.
const PAGE = 100;

const pathKey = (path) => JSON.stringify(path);

// A long array arrives as {"$window": {"count", "ranges": [{"start", "items"}]}}: its first
// and last items, and any window loaded since.
const isWindow = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) &&
  Object.keys(value).length === 1 && value.$window && Array.isArray(value.$window.ranges);

function entriesOf(value) {
  if (Array.isArray(value)) return { array: true, count: value.length, entries: value.map((v, i) => [i, v]) };
  if (isWindow(value)) {
    const entries = [];
    for (const range of value.$window.ranges) range.items.forEach((item, i) => entries.push([range.start + i, item]));
    return { array: true, count: value.$window.count, entries };
  }
  return { array: false, count: Object.keys(value).length, entries: Object.entries(value) };
}

// Adds the items of `loaded` (an array or a window) to the window `value`.
function mergeWindow(value, loaded) {
  const items = new Map(entriesOf(value).entries);
  for (const [index, item] of entriesOf(loaded).entries) items.set(index, item);
  const ranges = [];
  for (const index of [...items.keys()].sort((a, b) => a - b)) {
    const last = ranges[ranges.length - 1];
    if (last && last.start + last.items.length === index) last.items.push(items.get(index));
    else ranges.push({ start: index, items: [items.get(index)] });
  }
  value.$window.ranges = ranges;
}

export class StateTree {
  constructor(element, loadWindow) {
    this.element = element;
    // Fetches the items from `offset` of the array at `path`: (path, offset) => Promise.
    this.loadWindow = loadWindow;
    this.open = new Set([pathKey([])]);
    this.shown = new Map();
    this.matches = [];
    this.current = -1;
    // The path of the line picked (clicked) for the copy buttons, or null for the whole state.
    this.picked = null;
    // The word before a changed value's old one: 'was', or 'recorded' for a replay that
    // skipped actions.
    this.oldWord = 'was';
    this.movedFrom = new Map();
    this.removed = new Map();
    // The domain's display formats, by path pattern (Retrace's article "Defining a domain"): set per session.
    this.displayFormats = {};
  }

  // The value at `path` as the tree holds it, and whether it holds all of it (a long array's
  // window holds only some items): { value, complete }, or null when there is none.
  valueAt(path) {
    let value = this.state;
    for (const step of path) {
      if (value === null || typeof value !== 'object') return null;
      if (isWindow(value)) {
        const item = entriesOf(value).entries.find(([index]) => index === step);
        if (!item) return null;
        value = item[1];
      } else {
        if (!(step in value)) return null;
        value = value[step];
      }
    }
    return { value, complete: !JSON.stringify(value ?? null).includes('"$window"') };
  }

  render(state, changes = [], query = '') {
    this.state = state;
    this.marks = new Map();
    this.old = new Map();
    this.ancestors = new Set();
    this.noteMoves(changes);
    for (const change of changes) {
      if (change.kind !== 'removed') this.marks.set(pathKey(change.path), change.kind);
      if ('old' in change) this.old.set(pathKey(change.path), change.old);
      for (let depth = 0; depth < change.path.length; depth++) {
        const key = pathKey(change.path.slice(0, depth));
        this.ancestors.add(key);
        this.open.add(key);
      }
    }
    // The match gone to stays the current one while the query is the same (another render of
    // the same state, or the next action's).
    const kept = this.query === query.trim().toLowerCase() ? this.current : -1;
    this.query = query.trim().toLowerCase();
    this.found = new Set();
    if (this.query) this.search(state, []);
    const fragment = document.createDocumentFragment();
    fragment.append(this.node(null, state, []));
    this.element.replaceChildren(fragment);
    this.matches = [...this.element.querySelectorAll('.label.match')];
    this.current = kept < this.matches.length ? kept : -1;
    this.matches[this.current]?.classList.add('current-match');
    return this.matches.length;
  }

  // Notes where items moved from, and what was removed: a removed item's path ends with its
  // index before (another item may be at that index now), so it is shown apart, as a line at
  // the end of its parent's.
  noteMoves(changes) {
    this.movedFrom = new Map();
    this.removed = new Map();
    for (const change of changes) {
      if (change.kind === 'moved') this.movedFrom.set(pathKey(change.path), change.from);
      if (change.kind !== 'removed') continue;
      const parent = pathKey(change.path.slice(0, -1));
      if (!this.removed.has(parent)) this.removed.set(parent, []);
      this.removed.get(parent).push(change);
    }
  }

  // The lines of the items or keys removed from the value at `id`.
  removedLines(id) {
    return (this.removed.get(id) ?? []).map((change) => {
      const line = document.createElement('div');
      line.className = 'node';
      const label = document.createElement('div');
      label.className = 'label removed';
      const key = change.path[change.path.length - 1];
      const keySpan = document.createElement('span');
      keySpan.className = 'key';
      keySpan.textContent = typeof key === 'number' ? `[${key}]` : key;
      const what = document.createElement('span');
      what.className = 'was';
      what.textContent = 'id' in change ? `removed (id ${change.id})` : 'removed';
      label.append(keySpan, ': ', what);
      // What was removed, on one line (whole in the tooltip): the clue may be in it.
      if ('old' in change) {
        const text = JSON.stringify(change.old);
        const value = document.createElement('span');
        value.className = 'removed-value';
        value.textContent = ' ' + (text.length > 160 ? text.slice(0, 159) + '…' : text);
        value.title = text;
        label.append(value);
      }
      line.append(label);
      return line;
    });
  }

  // A number the domain has a display format for, formatted, beside the raw value: " (44.12
  // EUR)"; the raw value is also the formatted one's tooltip.
  formattedNote(value, path) {
    const shown = formatValue(this.displayFormats, path, value);
    if (shown === null) return [];
    const note = document.createElement('span');
    note.className = 'formatted';
    note.title = String(value);
    note.textContent = ` (${shown})`;
    return [note];
  }

  // "moved from [3]" beside an item that moved in its array, or nothing.
  movedNote(id) {
    if (!this.movedFrom.has(id)) return [];
    const note = document.createElement('span');
    note.className = 'was moved-from';
    note.textContent = ` moved from [${this.movedFrom.get(id)}]`;
    return [note];
  }

  // Opens the ancestors of every key or value that contains the query.
  search(value, path) {
    let hit = false;
    if (value && typeof value === 'object') {
      const { entries, array } = entriesOf(value);
      let lastHit = -1;
      for (const [key, child] of entries) {
        const childPath = [...path, key];
        const own = String(key).toLowerCase().includes(this.query) ||
          ((child === null || typeof child !== 'object') && String(child).toLowerCase().includes(this.query));
        if (own) this.found.add(pathKey(childPath));
        if (this.search(child, childPath) || own) { hit = true; lastHit = key; }
      }
      if (hit) {
        this.open.add(pathKey(path));
        // Show a long array far enough to reach its last match.
        if (array && !isWindow(value) && lastHit >= PAGE) this.shown.set(pathKey(path), lastHit + 1);
      }
    }
    return hit;
  }

  // Loads the items of long arrays that `paths` run through and the state does not hold yet
  // (a window from each such item), at most `most` windows; says whether it loaded any.
  async reveal(paths, most = 20) {
    let loaded = 0;
    for (const path of paths) {
      let value = this.state;
      for (let depth = 0; depth < path.length && value !== null && typeof value === 'object'; depth++) {
        const step = path[depth];
        if (isWindow(value)) {
          let item = entriesOf(value).entries.find(([index]) => index === step);
          if (!item) {
            if (loaded === most) return loaded > 0;
            mergeWindow(value, await this.loadWindow(path.slice(0, depth), step));
            loaded++;
            item = entriesOf(value).entries.find(([index]) => index === step);
          }
          value = item?.[1];
        } else {
          value = value[step];
        }
      }
    }
    return loaded > 0;
  }

  // Goes `delta` matches on (-1 back), round the ends, and scrolls the tree to it.
  moveMatch(delta = 1) {
    if (!this.matches.length) return;
    this.matches[this.current]?.classList.remove('current-match');
    const from = this.current < 0 && delta < 0 ? 0 : this.current;
    this.current = (from + delta + this.matches.length) % this.matches.length;
    const match = this.matches[this.current];
    match.classList.add('current-match');
    match.scrollIntoView({ block: 'center' });
  }

  node(key, value, path) {
    const id = pathKey(path);
    const node = document.createElement('div');
    node.className = 'node';
    const label = document.createElement('div');
    label.className = 'label';
    label.dataset.path = id;
    const mark = this.marks.get(id);
    if (mark) label.classList.add(mark);
    if (this.ancestors.has(id) && path.length) label.classList.add('contains-change');
    if (this.found.has(id)) label.classList.add('match');
    if (this.picked === id) label.classList.add('picked');
    label.addEventListener('click', (event) => {
      if (event.target.closest('.toggle, .meta')) return;
      this.element.querySelector('.label.picked')?.classList.remove('picked');
      this.picked = this.picked === id ? null : id;
      if (this.picked) label.classList.add('picked');
      this.element.dispatchEvent(new CustomEvent('pick', { detail: this.picked ? path : null }));
    });
    node.append(label);
    const isObject = value !== null && typeof value === 'object';
    if (isObject) {
      const toggle = document.createElement('span');
      toggle.className = 'toggle';
      const open = this.open.has(id);
      toggle.textContent = open ? '▾' : '▸';
      toggle.addEventListener('click', () => {
        if (this.open.has(id)) this.open.delete(id); else this.open.add(id);
        node.replaceWith(this.node(key, value, path));
      });
      label.append(toggle);
    }
    if (key !== null) {
      const keySpan = document.createElement('span');
      keySpan.className = 'key';
      keySpan.textContent = typeof key === 'number' ? `[${key}]` : key;
      label.append(keySpan, ': ');
    }
    if (!isObject) {
      label.append(this.leaf(value), ...this.formattedNote(value, path), ...this.movedNote(id));
      if (this.old.has(id)) {
        const was = document.createElement('span');
        was.className = 'was';
        const old = this.leaf(this.old.get(id));
        const shown = formatValue(this.displayFormats, path, this.old.get(id));
        if (shown !== null) old.title = shown;
        was.append(` (${this.oldWord} `, old, shown !== null ? `, ${shown})` : ')');
        label.append(was);
      }
      return node;
    }
    const { entries, array, count } = entriesOf(value);
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = array ? `[${count.toLocaleString('en')}]` : `{${count}}`;
    label.append(meta, ...this.movedNote(id));
    if (!this.open.has(id)) {
      meta.addEventListener('click', () => { this.open.add(id); node.replaceWith(this.node(key, value, path)); });
      return node;
    }
    if (isWindow(value)) {
      // Every item the window holds, and a link to load each gap.
      let expected = 0;
      const gap = (from, to) => {
        const more = document.createElement('div');
        more.className = 'more';
        more.textContent = `… ${(to - from).toLocaleString('en')} more (items ${from}–${to - 1}): show ${Math.min(PAGE, to - from)}`;
        more.addEventListener('click', async () => {
          more.textContent = 'loading…';
          try {
            mergeWindow(value, await this.loadWindow(path, from));
            node.replaceWith(this.node(key, value, path));
          } catch (error) {
            more.textContent = error.message;
          }
        });
        node.append(more);
      };
      for (const [index, child] of entries) {
        if (index > expected) gap(expected, index);
        node.append(this.node(index, child, [...path, index]));
        expected = index + 1;
      }
      if (expected < count) gap(expected, count);
      node.append(...this.removedLines(id));
      return node;
    }
    const limit = this.shown.get(id) || PAGE;
    for (const [childKey, child] of entries.slice(0, limit)) {
      node.append(this.node(childKey, child, [...path, childKey]));
    }
    if (entries.length > limit) {
      const more = document.createElement('div');
      more.className = 'more';
      more.textContent = `… ${entries.length - limit} more`;
      more.addEventListener('click', () => {
        this.shown.set(id, limit + PAGE);
        node.replaceWith(this.node(key, value, path));
      });
      node.append(more);
    }
    node.append(...this.removedLines(id));
    return node;
  }

  leaf(value) {
    const span = document.createElement('span');
    if (typeof value === 'string') { span.className = 'str'; span.textContent = JSON.stringify(value); }
    else if (typeof value === 'number') { span.className = 'numv'; span.textContent = String(value); }
    else { span.className = 'lit'; span.textContent = String(value); }
    return span;
  }
}

// The value shown for the number `value` at `path` under a domain's display formats
// ({pattern: {money: {currencyCode, minorUnits}} or {date: 'epochSeconds'}}), as
// `retrace state` shows it (DisplayFormat in the Swift sources), or null when no format
// applies. Of several matching patterns, the one with the most literal keys wins, then the
// longest.
export function formatValue(formats, path, value) {
  if (typeof value !== 'number' || !formats) return null;
  const literal = (keys) => keys.filter((k) => k !== '*' && k !== '**').length;
  const matches = (keys, steps) => {
    if (!keys.length) return !steps.length;
    if (keys[0] === '**') return steps.some((_, i) => matches(keys.slice(1), steps.slice(i))) || matches(keys.slice(1), []);
    if (!steps.length) return false;
    if (keys[0] !== '*' && (typeof steps[0] === 'number' || keys[0] !== steps[0])) return false;
    return matches(keys.slice(1), steps.slice(1));
  };
  const found = Object.entries(formats).map(([pattern, format]) => [pattern.split('.'), format, pattern])
    .filter(([keys]) => matches(keys, path))
    .sort((a, b) => literal(b[0]) - literal(a[0]) || b[0].length - a[0].length || (a[2] < b[2] ? 1 : -1))[0];
  if (!found) return null;
  const format = found[1];
  if (format.money) {
    const { currencyCode, minorUnits } = format.money;
    if (!Number.isSafeInteger(value)) return null;
    let digits = String(Math.abs(value)).padStart(minorUnits + 1, '0');
    const whole = digits.slice(0, digits.length - minorUnits).replace(/\B(?=(\d{3})+$)/g, ',');
    const fraction = minorUnits > 0 ? '.' + digits.slice(digits.length - minorUnits) : '';
    return `${value < 0 ? '-' : ''}${whole}${fraction} ${currencyCode}`;
  }
  if (format.date) {
    const seconds = Math.floor(format.date === 'epochMilliseconds' ? value / 1000 : value);
    if (!(seconds >= -62167219200 && seconds < 253402300800)) return null;
    const iso = new Date(seconds * 1000).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  }
  return null;
}
