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
    for (const change of changes) {
      this.marks.set(pathKey(change.path), change.kind);
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
      label.append(this.leaf(value));
      if (this.old.has(id)) {
        const was = document.createElement('span');
        was.className = 'was';
        was.append(` (${this.oldWord} `, this.leaf(this.old.get(id)), ')');
        label.append(was);
      }
      return node;
    }
    const { entries, array, count } = entriesOf(value);
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = array ? `[${count.toLocaleString('en')}]` : `{${count}}`;
    label.append(meta);
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
