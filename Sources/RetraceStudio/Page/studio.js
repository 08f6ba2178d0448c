// Retrace Studio's page: sessions, a virtualized timeline with swimlanes and invariant
// marks, the state tree at the selected action, and the navigation, bench and export tabs.
// It reads everything through the JSON API (api.js); docs/STUDIO.md describes both.
import { api, apiWithProgress, onBusy, cancel, isAbort, download } from './api.js';
import { StateTree } from './tree.js';
import { drawFlows, drawBench } from './panels.js';
import { setUpDispatch, renderDispatch } from './dispatch.js';
import { setUpUploads } from './upload.js';

const ROW = 22;
const PAGE = 200;
// Browsers place elements imprecisely millions of pixels down (a million rows are 22 million
// pixels); past this height the list scrolls a scaled spacer and places its rows in view.
const MAX_HEIGHT = 4_000_000;
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

const app = {
  sessions: [], session: null, sel: 0, start: 0, last: 0, follow: false,
  rows: new Map(), loading: new Set(), filter: '', filtered: null, filteredNext: null,
  marks: [], lanes: null, stateTime: null, screens: null, flows: null, firstLoadDone: false, found: null,
  // The actions skipped (Redux DevTools' Skip): the state shown is the session replayed
  // without them. Cleared when another session opens.
  skips: new Set(),
  // Sessions removed from the list, so that a poll already under way does not bring one back.
  removed: new Set(),
};
// What the browser tests and the benchmark read.
window.studio = {
  firstLoadMs: null, lastMoveMs: null, moves: [], ready: false, lanesReady: false,
  select: (n) => select(n), rowCount: () => rowCount(),
};

const tree = new StateTree($('tree'), async (path, offset) => {
  if (app.skips.size) throw new Error('the items between the ends are not available while actions are skipped');
  const part = await api(`sessions/${encodeURIComponent(app.session.id)}/state`,
    { at: app.sel, path: JSON.stringify(path), offset, limit: 100 });
  return part.value;
});

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

function fail(error) {
  if (!isAbort(error)) status(error.message, true);
}

function duration(seconds) {
  if (!(seconds >= 0)) return '';
  if (seconds < 60) return seconds.toFixed(1) + ' s';
  if (seconds < 3600) return (seconds / 60).toFixed(1) + ' min';
  return (seconds / 3600).toFixed(1) + ' h';
}

// MARK: - Sessions

// The session list waits at most this many milliseconds for a session's summary: one still
// being read (a large file just opened) is listed as loading, and filled in by the next poll.
const LIST_WAIT = 1000;

async function loadSessions() {
  app.sessions = await api('sessions', { wait: LIST_WAIT });
  renderSessions();
  const wanted = params.get('session');
  const found = app.sessions.find((s) => s.id === wanted);
  const first = found || app.sessions[0];
  // A session the address names that is not served: the first one opens, and the status line
  // says so (its `at` was meant for the other session).
  if (first && wanted !== null && !found) {
    addressProblem = `no session '${wanted}': showing ${first.live ? first.name : first.id}`;
  }
  if (first) await openSession(first.id, found || wanted === null ? requestedAt() : null);
  setTimeout(poll, POLL);
}

// The `at` of the page's address: a sequence number, or null (with a message) when it is
// not one, so that a mistyped link still opens the session.
function requestedAt() {
  if (!params.has('at')) return null;
  const text = params.get('at');
  if (/^\d+$/.test(text.trim())) return Number(text);
  addressProblem = `'at=${text}' in the address is not a sequence number (a whole number from 0): showing the session's first action`;
  return null;
}
let addressProblem = null;

function renderSessions() {
  const body = $('sessions').tBodies[0];
  body.replaceChildren(...app.sessions.map((session) => {
    const row = document.createElement('tr');
    row.dataset.id = session.id;
    if (session.loading) {
      for (const [text, cls] of [[session.id, ''], ['…', ''], ['…', 'num'], ['…', 'num'], ['reading…', 'loading']]) {
        const cell = document.createElement('td');
        cell.textContent = text;
        if (cls) cell.className = cls;
        row.append(cell);
      }
      row.append(document.createElement('td'));
      row.classList.add('loading');
      row.classList.toggle('current', row.dataset.id === app.session?.id);
      row.title = `${session.id}: being read`;
      row.addEventListener('click', () => openSession(session.id));
      return row;
    }
    const intact = session.integrity.status === 'clean';
    const integrity = session.live && !session.diverged ? liveBadge(session) : [intact ? '✓' : `✗ ${session.integrity.status}`, intact ? 'ok' : 'bad'];
    for (const [text, cls] of [
      [session.live ? session.name : session.id, ''], [session.domain, ''], [session.actions.toLocaleString('en'), 'num'],
      [duration(session.duration), 'num'], integrity,
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (cls) cell.className = cls;
      row.append(cell);
    }
    if (session.live) {
      const dot = Object.assign(document.createElement('span'), { className: 'live-dot' + (session.connected ? ' connected' : '') });
      dot.title = session.connected ? 'live: the app is connected' : 'live: the app has disconnected';
      row.cells[0].prepend(dot);
      row.classList.add('live');
    }
    const tools = document.createElement('td');
    tools.className = 'tools';
    // Any session but a live one whose app is still connected can be taken off the list.
    if (!(session.live && session.connected)) {
      const remove = Object.assign(document.createElement('button'), { className: 'remove', textContent: '×' });
      remove.title = `Remove ${session.live ? session.name : session.id} from the list (the file stays)`;
      remove.setAttribute('aria-label', remove.title);
      remove.addEventListener('click', (event) => { event.stopPropagation(); removeSession(session.id); });
      tools.append(remove);
    }
    row.append(tools);
    row.classList.toggle('current', row.dataset.id === app.session?.id);
    row.title = `${session.file}: ${session.diverged ? 'diverged' : integrityText(session.integrity)}`;
    row.addEventListener('click', () => openSession(session.id));
    return row;
  }));
}

// MARK: - Live sessions

// A live session's badge in the list: "live" once a checkpoint of the app's covers its last
// action; until then the states after the last one checked are the Studio's replay alone.
function liveBadge(session) {
  if (session.checkedThrough === undefined || session.checkedThrough >= session.lastSequence) return ['live', 'ok'];
  return [`checked through ${session.checkedThrough.toLocaleString('en')}`, 'unchecked'];
}

// What the live bar says of the states no checkpoint of the app's has checked.
function uncheckedText(session) {
  if (session.diverged || session.checkedThrough === undefined || session.checkedThrough >= session.lastSequence) return null;
  return `checked through ${session.checkedThrough.toLocaleString('en')}: the states after it are unchecked`;
}

// The session list, and the open session when it is live, are asked for again every POLL
// milliseconds: the timeline grows as the app's actions arrive, and follows the last one
// unless the developer has moved away from it.
const POLL = 500;
let lanesAsked = 0;
async function poll() {
  try {
    const sessions = (await api('sessions', { wait: LIST_WAIT }, 'poll-sessions')).filter((s) => !app.removed.has(s.id));
    // The rows are made again only when something changed, so that a click is not lost.
    if (JSON.stringify(sessions) !== JSON.stringify(app.sessions)) {
      app.sessions = sessions;
      renderSessions();
    }
    const open = app.session && app.sessions.find((s) => s.id === app.session.id);
    if (open?.live && !open.loading) await refreshLive(open);
  } catch (error) {
    fail(error);
  } finally {
    setTimeout(poll, POLL);
  }
}

async function refreshLive(summary) {
  const id = app.session.id;
  Object.assign(app.session, summary);
  if (summary.lastSequence !== app.last) {
    const oldLast = app.last;
    app.last = summary.lastSequence;
    // The page that held the old last action was fetched short: fetch it again.
    app.loading.delete(Math.floor((oldLast - app.start - 1) / PAGE));
    app.loading.delete(Math.floor((oldLast - app.start) / PAGE));
    if (!zoomed()) $('slider').max = app.last;
    $('export-to').value = app.last;
    $('session-title').textContent = `${summary.name} · ${summary.actions.toLocaleString('en')} actions · recorded to ${summary.recordedTo}`;
    layoutRows();
    if (app.follow) await select(app.last, { scroll: true, following: true });
    else $('position').textContent = `after action ${app.sel.toLocaleString('en')} of ${app.last.toLocaleString('en')}`;
    if (Date.now() - lanesAsked > 2000 && app.session?.id === id) { lanesAsked = Date.now(); loadLanes(); }
  }
  refreshJumpMarks();
  renderLiveBar();
}

function renderLiveBar() {
  const session = app.session;
  const bar = $('live-bar');
  bar.hidden = !session?.live;
  renderDispatch(session);
  if (!session?.live) return;
  const parts = [session.connected ? 'app connected' : 'app disconnected'];
  if (session.connected) parts.push(appPosition(session));
  if (session.diverged) parts.push(`diverged: ${session.integrity.problem}`);
  if (session.appError) parts.push(`app: ${session.appError}`);
  $('live-status').textContent = parts.join(' · ');
  $('live-status').className = session.diverged ? 'error' : '';
  // After the buttons, so that a note that comes and goes as checkpoints arrive moves none.
  $('live-check').textContent = uncheckedText(session) ?? '';
  $('follow').hidden = app.follow;
  $('move-app').hidden = $('resume-app').hidden = !session.connected;
  window.studio.live = {
    last: app.last, follow: app.follow, connected: session.connected, diverged: session.diverged,
    checkedThrough: session.checkedThrough ?? null,
    jumps: session.jumps || [], appAt: session.appAt ?? null,
  };
}

// Says, in `where` (the status line by default), that a control needs an open session (or a
// live one), and returns false, when there is none.
function needSession(where = null, live = false) {
  const message = !app.session ? 'Open a session first: choose one in the list.'
    : live && !app.session.live ? 'This is a file, not a live session: there is no app to move.'
      : live && !app.session.connected ? 'The app has disconnected: there is no app to move.' : null;
  if (!message) return true;
  if (where) where.textContent = message; else status(message, true);
  return false;
}

async function moveApp(to) {
  if (!needSession(null, true)) return;
  try {
    const answer = await api(`sessions/${encodeURIComponent(app.session.id)}/jump`, { to }, null, 'POST');
    status(`the app was sent to the state after ${answer.to.toLocaleString('en')}`);
  } catch (error) {
    fail(error);
  }
}

// MARK: - Jumps: where the app was moved, and where it is now

// A live session's `jumps` ({after, to, time}) and `appAt` (the action whose state the app
// shows) mark the scrubber, the swimlanes and the action list.
let jumpKey = '';
function refreshJumpMarks() {
  const key = JSON.stringify([app.session?.jumps, app.session?.appAt]);
  if (key === jumpKey) return;
  jumpKey = key;
  renderMarks();
  renderRows();
  drawLanes();
}

function appPosition(session) {
  if (session.appAt === null || session.appAt === undefined) return 'app moved to a state the Studio did not send';
  return session.appAt === session.lastSequence ? `app at its last action, ${session.appAt.toLocaleString('en')}`
    : `app moved to action ${session.appAt.toLocaleString('en')}`;
}

function jumpsAfter(sequence) {
  return (app.session?.jumps || []).filter((jump) => jump.after === sequence);
}

// A file's jumps name no target (`to` null): the recording holds the state, not where it came from.
function jumpText(jump) {
  if (jump.to === null) return app.session?.live ? 'moved elsewhere' : 'moved';
  return jump.to === jump.after ? 'resumed' : `moved to ${jump.to.toLocaleString('en')}`;
}

function jumpRowClass(sequence) {
  if (!app.session) return '';
  return (jumpsAfter(sequence).length ? ' jumped-after' : '') + (app.session.live && app.session.connected && app.session.appAt === sequence ? ' app-now' : '');
}

// The row's badge: the jumps after it and, on the action whose state the app shows, "app".
function markJumpRow(row, sequence) {
  const parts = jumpsAfter(sequence).map((jump) => `↩ ${jumpText(jump)}`);
  if (app.session?.live && app.session.connected && app.session.appAt === sequence) parts.push('◀ app is here');
  const text = parts.join(' · ');
  if ((row.dataset.live || '') !== text) {
    if (text) row.dataset.live = text; else delete row.dataset.live;
  }
}

function jumpMarkButtons(span) {
  const session = app.session;
  if (!session) return [];
  const buttons = (session.jumps || []).map((jump) => {
    const button = document.createElement('button');
    button.className = 'mark jump';
    button.style.left = ((jump.after - app.start) / span) * 100 + '%';
    button.title = `after action ${jump.after.toLocaleString('en')} the app was ${jumpText(jump)}`;
    button.setAttribute('aria-label', button.title);
    button.addEventListener('click', () => select(jump.to ?? jump.after, { scroll: true }));
    return button;
  });
  if (session.live && session.connected && session.appAt !== null && session.appAt !== undefined) {
    const here = document.createElement('button');
    here.className = 'mark app-now';
    here.style.left = ((session.appAt - app.start) / span) * 100 + '%';
    here.title = `the app shows the state after action ${session.appAt.toLocaleString('en')}`;
    here.setAttribute('aria-label', here.title);
    here.addEventListener('click', () => select(session.appAt, { scroll: true }));
    buttons.push(here);
  }
  return buttons;
}

// On the swimlanes: an orange line at each jump's time, and a green one at the time of the
// action whose state the app shows (when its row has been loaded).
function drawJumpLanes(context, width, height) {
  const lanes = app.lanes, session = app.session;
  if (!session || !lanes || !(lanes.end > lanes.start)) return;
  const at = (time) => LABEL + ((time - lanes.start) / (lanes.end - lanes.start)) * (width - LABEL);
  context.fillStyle = '#e08a00';
  // A file's jumps carry no time: they are drawn at their action's, once its row is loaded.
  for (const jump of session.jumps || []) {
    const time = jump.time ?? app.rows.get(jump.after)?.time;
    if (time === undefined || time === null) continue;
    const x = Math.min(width - 1, Math.max(LABEL, at(time)));
    for (let y = 0; y < height; y += 6) context.fillRect(x - 0.5, y, 1.5, 3);
  }
  const here = session.live && session.connected ? app.rows.get(session.appAt) : null;
  if (here) {
    context.fillStyle = '#2b9348';
    context.fillRect(Math.min(width - 2, Math.max(LABEL, at(here.time))) - 1, 0, 2.5, height);
  }
}

$('follow').addEventListener('click', () => { if (!needSession(null, true)) return; app.follow = true; renderLiveBar(); select(app.last, { scroll: true, following: true }); });
$('move-app').addEventListener('click', () => moveApp(app.sel));
$('resume-app').addEventListener('click', () => moveApp('last'));

// Takes a session off the Studio's list (DELETE /api/sessions/{id}); if it was open, the
// first other session opens, or the page empties when there is none.
async function removeSession(id) {
  // Its swimlanes, still being read, are not asked for once it is gone.
  if (app.session?.id === id) cancelSessionWork();
  try {
    await api(`sessions/${encodeURIComponent(id)}`, {}, null, 'DELETE');
  } catch (error) {
    fail(error);
    return;
  }
  app.removed.add(id);
  app.sessions = app.sessions.filter((s) => s.id !== id);
  renderSessions();
  if (app.session?.id === id) {
    const next = app.sessions.find((s) => !(s.live && s.connected)) || app.sessions[0];
    if (next) await openSession(next.id).catch(fail);
    else closeSession();
  }
  status(`removed ${id} from the list`);
}

// No session open: what the page shows before one is chosen.
function closeSession() {
  app.session = null;
  app.sel = 0; app.start = 0; app.last = 0; app.follow = false;
  app.rows.clear(); app.loading.clear(); app.marks = []; app.filter = ''; app.filtered = null;
  app.lanes = null; app.lastState = null; app.skips.clear();
  resetNavigation();
  window.studio.lastState = null;
  $('actions-spacer').replaceChildren();
  $('actions-spacer').style.height = '0px';
  $('session-title').textContent = '';
  $('state-title').textContent = 'State';
  $('action-detail').replaceChildren();
  $('screens').replaceChildren();
  $('tree').replaceChildren();
  $('invariants').replaceChildren();
  $('marks').replaceChildren();
  $('position').textContent = '';
  $('slider').min = 0; $('slider').max = 0; $('slider').value = 0;
  $('type-filter').replaceChildren(new Option('all', ''));
  const canvas = $('lanes');
  canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
  renderSkips();
  renderLiveBar();
  history.replaceState(null, '', `?${new URLSearchParams({ token: params.get('token') || '' })}`);
}

async function openSession(id, at = null) {
  const session = await api(`sessions/${encodeURIComponent(id)}`);
  app.session = session;
  app.start = session.startSequence;
  app.last = session.lastSequence;
  app.rows.clear();
  $('actions-spacer').replaceChildren();
  tree.picked = null;
  $('picked').textContent = '';
  app.loading.clear();
  app.marks = [];
  app.filter = '';
  app.filtered = null;
  app.lanes = null;
  window.studio.lanesReady = false;
  app.flows = null;
  app.skips.clear();
  resetNavigation();
  renderSkips();
  for (const row of $('sessions').tBodies[0].rows) row.classList.toggle('current', row.dataset.id === id);
  $('session-title').textContent = `${session.file} · ${session.domain} · ${session.actions.toLocaleString('en')} actions`;
  const filter = $('type-filter');
  filter.replaceChildren(new Option('all', ''), ...session.actionCases.map((c) => new Option(`${c.name} (${c.count})`, c.name)));
  renderInvariants();
  tree.displayFormats = session.displayFormats ?? {};
  $('slider').min = app.start;
  $('slider').max = app.last;
  $('export-from').value = Math.min(app.last, app.start + 1);
  $('export-to').value = app.last;
  $('compare-at').value = app.start;
  $('shrink-invariant').replaceChildren(...session.invariants.map((i) => new Option(i.name, i.name)));
  $('tabs').querySelector('[data-tab=navigation]').hidden = !session.navigation;
  if (session.live) $('session-title').textContent = `${session.name} · ${session.actions.toLocaleString('en')} actions · recorded to ${session.recordedTo}`;
  app.follow = session.live && at === null;
  renderLiveBar();
  renderMarks();
  layoutRows();
  const target = at ?? (app.follow ? app.last : Math.min(app.last, app.start + 1));
  if (at !== null && (at < app.start || at > app.last)) {
    addressProblem = `action ${at.toLocaleString('en')} is not in this session (${app.start.toLocaleString('en')} to ${app.last.toLocaleString('en')}): showing the nearest`;
  }
  await select(target, { scroll: true, following: app.follow });
  if (addressProblem) status(addressProblem, true);
  addressProblem = null;
  loadLanes();
}

// MARK: - Timeline

function rowCount() {
  return app.filtered ? app.filtered.length : app.last - app.start;
}

function sequenceAt(index) {
  return app.filtered ? app.filtered[index]?.seq : app.start + 1 + index;
}

function indexOf(sequence) {
  if (!app.filtered) return sequence - app.start - 1;
  return app.filtered.findIndex((a) => a.seq === sequence);
}

function layoutRows() {
  $('actions-spacer').style.height = Math.min(rowCount() * ROW, MAX_HEIGHT) + 'px';
  renderRows();
}

// How many pixels of the list one pixel of scrolling moves: 1 unless the list is taller
// than MAX_HEIGHT.
function scrollScale() {
  const list = $('actions');
  const height = rowCount() * ROW;
  if (height <= MAX_HEIGHT) return 1;
  return (height - list.clientHeight) / Math.max(1, MAX_HEIGHT - list.clientHeight);
}

// The rows on screen (and a few beyond) are kept by sequence number and updated in place:
// a live session that follows its app redraws them twice a second, and a row made again
// between the press and the release of a click would lose the click.
function renderRows() {
  const list = $('actions');
  const scale = scrollScale();
  const virtualTop = list.scrollTop * scale;
  const top = Math.max(0, Math.floor(virtualTop / ROW) - 5);
  const bottom = Math.min(rowCount(), Math.ceil((virtualTop + list.clientHeight) / ROW) + 5);
  const spacer = $('actions-spacer');
  const existing = new Map();
  for (const row of spacer.children) existing.set(row.dataset.seq, row);
  const kept = new Set();
  let previous = null;
  for (let index = top; index < bottom; index++) {
    const sequence = sequenceAt(index);
    const action = app.filtered ? app.filtered[index] : app.rows.get(sequence);
    if (!action && !app.filtered) fetchPage(sequence);
    let row = existing.get(String(sequence));
    if (!row) {
      row = document.createElement('div');
      row.dataset.seq = sequence;
      // In the list's order (a redraw may add rows above those kept), as it is read.
      if (previous) previous.after(row); else spacer.prepend(row);
    }
    previous = row;
    kept.add(row);
    const position = list.scrollTop + (index * ROW - virtualTop) + 'px';
    if (row.style.top !== position) row.style.top = position;
    const violated = app.marks.some((m) => m.fail !== null && sequence >= m.fail && (m.heal === null || sequence < m.heal));
    const className = 'row' + (sequence === app.sel ? ' selected' : '') + (violated ? ' violated' : '') +
      (app.skips.has(sequence) ? ' skipped' : '') + jumpRowClass(sequence);
    if (row.className !== className) row.className = className;
    markJumpRow(row, sequence);
    const filled = action ? 'action' : 'pending';
    if (row.dataset.filled !== filled) {
      row.dataset.filled = filled;
      const seq = Object.assign(document.createElement('span'), { className: 'seq', textContent: sequence });
      if (action) {
        row.replaceChildren(seq, sinceSpan(action), actionText(action));
        row.title = `${JSON.stringify(action.action)}\n${isoTime(action.time)}`;
      } else {
        row.replaceChildren(seq, '…');
      }
    }
  }
  for (const row of existing.values()) if (!kept.has(row)) row.remove();
  // The selected action's time since the previous one, once its row has come.
  renderSince();
  if (app.filtered && bottom >= rowCount() - 20 && app.filteredNext !== null) loadFiltered(true);
}

// An action as a developer reads it: its label (`navigation › push(route: about)`), the case's name
// in its own color; the raw JSON is the row's title and the state panel's details.
function actionText(action) {
  const text = document.createElement('span');
  text.className = 'text';
  const label = action.label ?? action.case;
  const name = label.startsWith(action.case) ? action.case : label;
  text.append(Object.assign(document.createElement('span'), { className: 'case', textContent: name }), label.slice(name.length));
  return text;
}

async function fetchPage(sequence) {
  const page = Math.floor((sequence - app.start - 1) / PAGE);
  if (app.loading.has(page)) return;
  app.loading.add(page);
  const from = app.start + 1 + page * PAGE;
  const id = app.session.id;
  try {
    const result = await api(`sessions/${encodeURIComponent(id)}/actions`, { from, to: Math.min(app.last, from + PAGE - 1), limit: PAGE });
    if (app.session?.id !== id) return;
    for (const action of result.actions) app.rows.set(action.seq, action);
    renderRows();
  } catch (error) {
    app.loading.delete(page);
    fail(error);
  }
}

// The list of the actions the filters keep (case and text), a page of 2,000 at a time from
// the server; a change of filter cancels the load under way and starts afresh.
async function loadFiltered(more = false) {
  if (more && app.filterLoading) return;
  const asked = filterParams();
  const same = () => JSON.stringify(filterParams()) === JSON.stringify(asked);
  app.filterLoading = true;
  renderFilterCount();
  try {
    const from = more ? app.filteredNext : null;
    const result = await api(`sessions/${encodeURIComponent(app.session.id)}/actions`, { ...asked, from, limit: 2000 }, 'filter');
    if (!same() || !app.filtered) return;
    app.filtered = more ? app.filtered.concat(result.actions) : result.actions;
    app.filteredNext = result.next;
    app.filterLoading = false;
    layoutRows();
  } catch (error) {
    fail(error);
  } finally {
    if (same()) app.filterLoading = false;
    renderFilterCount();
  }
}

function scrollToSelection() {
  const index = indexOf(app.sel);
  if (index < 0) return;
  const list = $('actions');
  const scale = scrollScale();
  const top = index * ROW;
  const virtualTop = list.scrollTop * scale;
  if (top < virtualTop || top + ROW > virtualTop + list.clientHeight) {
    list.scrollTop = (top - list.clientHeight / 2) / scale;
  }
}

function renderMarks() {
  const marks = $('marks');
  // Over the part of the session the timeline shows (all of it unless zoomed).
  const [from, to] = viewRange();
  const span = Math.max(1, to - from);
  const buttons = [];
  for (const mark of app.marks) {
    for (const [kind, sequence] of [['fail', mark.fail], ['heal', mark.heal]]) {
      if (sequence === null || sequence < from || sequence > to) continue;
      const button = document.createElement('button');
      button.className = `mark ${kind}`;
      button.style.left = ((sequence - from) / span) * 100 + '%';
      button.title = `${mark.invariant} ${kind === 'fail' ? 'fails after' : 'holds again after'} ${sequence}`;
      button.setAttribute('aria-label', button.title);
      button.addEventListener('click', () => select(sequence, { scroll: true }));
      buttons.push(button);
    }
  }
  marks.replaceChildren(...buttons, ...jumpMarkButtons(span));
}

async function loadLanes() {
  const canvas = $('lanes');
  const id = app.session.id;
  // The first time, the server reads the whole session: say so where the lanes will be.
  if (!app.lanes) showLanesStatus('reading the whole session for the swimlanes…');
  try {
    const lanes = await api(`sessions/${encodeURIComponent(id)}/lanes`,
      { buckets: Math.max(50, Math.floor(canvas.clientWidth / 3)), ...lanesSpan() }, 'lanes');
    if (app.session.id !== id) return;
    app.lanes = lanes;
    window.studio.lanesSpan = { from: lanes.from, to: lanes.to };
    showLanesStatus(null);
    drawLanes();
    window.studio.lanesReady = true;
  } catch (error) {
    if (!isAbort(error)) showLanesStatus(null);
    fail(error);
  }
}

const LANE = 12, LABEL = 110;
function drawLanes() {
  const canvas = $('lanes');
  const lanes = app.lanes;
  if (!lanes) return;
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = Math.max(20, lanes.lanes.length * LANE);
  canvas.style.height = height + 'px';
  canvas.width = width * ratio;
  canvas.height = height * ratio;
  const context = canvas.getContext('2d');
  context.scale(ratio, ratio);
  context.font = '10px system-ui, sans-serif';
  const cell = (width - LABEL) / lanes.buckets;
  lanes.lanes.forEach((lane, row) => {
    const max = Math.max(1, ...lane.counts);
    context.fillStyle = '#6b737c';
    context.fillText(lane.case, 2, row * LANE + 9);
    lane.counts.forEach((count, bucket) => {
      if (!count) return;
      context.fillStyle = `rgba(47, 111, 222, ${0.25 + 0.75 * (count / max)})`;
      context.fillRect(LABEL + bucket * cell, row * LANE + 1, Math.max(1, cell - 0.5), LANE - 2);
    });
  });
  if (app.stateTime !== null && lanes.end > lanes.start) {
    const x = LABEL + ((app.stateTime - lanes.start) / (lanes.end - lanes.start)) * (width - LABEL);
    context.fillStyle = '#d33b2f';
    context.fillRect(x - 0.5, 0, 1.5, height);
  }
  drawJumpLanes(context, width, height);
}

$('lanes').addEventListener('click', (event) => {
  const lanes = app.lanes;
  if (!lanes) return;
  const rect = event.currentTarget.getBoundingClientRect();
  const row = Math.floor((event.clientY - rect.top) / LANE);
  const bucket = Math.floor(((event.clientX - rect.left - LABEL) / (rect.width - LABEL)) * lanes.buckets);
  const lane = lanes.lanes[row];
  if (!lane || bucket < 0) return;
  // The lane's first action in that span of time, or the nearest span after it that has one.
  for (let b = bucket; b < lanes.buckets; b++) {
    if (lane.first[b] !== null) { select(lane.first[b], { scroll: true }); return; }
  }
});

// MARK: - Selection and state

async function select(sequence, { scroll = false, following = false, pinned = false, playing = false } = {}) {
  if (!app.session || !Number.isFinite(sequence)) return;
  sequence = Math.max(app.start, Math.min(app.last, Math.round(sequence)));
  // Any move but the player's stops it.
  if (!playing) stopPlaying();
  // Moving away from the last action stops following it; going back to it follows again.
  // A row pressed is pinned: the developer chose that action, even when it is the last one.
  const follow = !pinned && sequence === app.last;
  if (app.session.live && !following && app.follow !== follow) {
    app.follow = follow;
    renderLiveBar();
  }
  performance.mark('move-start');
  const started = performance.now();
  app.sel = sequence;
  // The state is asked for first: the server works on it while the page updates the rest.
  const compare = $('compare-toggle').checked;
  const id = app.session.id;
  // With actions skipped, the state replayed without them is asked for too: the recorded
  // answer still gives the action and the screens.
  const skip = skipParameter();
  const answers = Promise.all([
    api(`sessions/${encodeURIComponent(id)}/state`, { at: sequence }, 'state'),
    compare ? api(`sessions/${encodeURIComponent(id)}/diff`, { from: $('compare-at').value, to: sequence }, 'diff') : null,
    skip ? api(`sessions/${encodeURIComponent(id)}/state`, { at: sequence, skip }, 'skip-state').catch((error) => {
      if (isAbort(error)) throw error;
      return { error: error.message };
    }) : null,
  ]);
  answers.catch(() => {});
  keepInView(sequence);
  $('slider').value = sequence;
  $('position').textContent = `after action ${sequence.toLocaleString('en')} of ${app.last.toLocaleString('en')}`;
  history.replaceState(null, '', `?${new URLSearchParams({ token: params.get('token') || '', session: app.session.id, at: sequence })}`);
  if (scroll) scrollToSelection();
  renderRows();
  try {
    const [recorded, diff, skipped] = await answers;
    if (app.sel !== sequence || app.session.id !== id || skip !== skipParameter()) return;
    const fetched = performance.now();
    const state = skipped && !skipped.error
      ? { ...recorded, state: skipped.state, changed: skipped.changed, skipped: skipped.skipped } : recorded;
    renderSkips(skipped?.error);
    renderState(state, diff);
    const rendered = performance.now();
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    performance.measure('move', 'move-start');
    const elapsed = performance.now() - started;
    window.studio.lastMoveMs = elapsed;
    window.studio.moves.push(elapsed);
    window.studio.lastMoveParts = { fetch: fetched - started, server: serverTime(), render: rendered - fetched, frame: performance.now() - rendered };
    if (!app.firstLoadDone) {
      app.firstLoadDone = true;
      performance.measure('first-load', { start: 0, end: performance.now() });
      window.studio.firstLoadMs = performance.now();
    }
    window.studio.ready = true;
    status('');
  } catch (error) {
    fail(error);
  }
}

// MARK: - Skipping actions

function skipParameter() {
  return [...app.skips].sort((a, b) => a - b).join(',');
}

// Under the heading (which reads the selected action as a developer does): its time, a Skip
// toggle, and its raw JSON behind a toggle (kept open or closed from one action to the next).
let payloadOpen = false;
function renderActionDetail(action) {
  const detail = $('action-detail');
  if (!action) { detail.replaceChildren(); return; }
  const skip = Object.assign(document.createElement('input'), { type: 'checkbox', id: 'skip-toggle', checked: app.skips.has(action.seq) });
  skip.addEventListener('change', () => toggleSkip(action.seq));
  const skipLabel = Object.assign(document.createElement('label'), { className: 'skip', title: 'Replay the session without this action (Redux DevTools’ Skip)' });
  skipLabel.append(skip, ' skip');
  const line = Object.assign(document.createElement('div'), { className: 'action-line' });
  line.append(Object.assign(document.createElement('span'), { className: 'meta', textContent: isoTime(action.time) }),
    Object.assign(document.createElement('span'), { className: 'meta', id: 'action-since' }), ' ', skipLabel);
  const details = Object.assign(document.createElement('details'), { id: 'action-json', open: payloadOpen });
  details.addEventListener('toggle', () => { payloadOpen = details.open; });
  details.append(Object.assign(document.createElement('summary'), { textContent: 'JSON' }),
    Object.assign(document.createElement('pre'), { textContent: JSON.stringify(action.action, null, 2) }));
  detail.replaceChildren(line, details);
}

function toggleSkip(sequence) {
  if (app.skips.has(sequence)) app.skips.delete(sequence); else app.skips.add(sequence);
  renderSkips();
  select(app.sel);
}

// The banner that says the state is not the recorded one, with a way back.
function renderSkips(error = null) {
  const banner = $('skip-banner');
  banner.hidden = !app.skips.size;
  window.studio.skips = [...app.skips];
  if (app.skips.size) {
    const numbers = [...app.skips].sort((a, b) => a - b);
    const listed = numbers.slice(0, 10).map((n) => n.toLocaleString('en')).join(', ') + (numbers.length > 10 ? ` and ${numbers.length - 10} more` : '');
    $('skip-text').textContent = error
      ? `cannot replay without action${numbers.length > 1 ? 's' : ''} ${listed}: ${error}; showing the recorded state`
      : `replaying without action${numbers.length > 1 ? 's' : ''} ${listed}: marked values differ from the recording`;
    banner.classList.toggle('error', !!error);
  }
  renderRows();
}

$('clear-skips').addEventListener('click', () => {
  app.skips.clear();
  renderSkips();
  select(app.sel);
});

// What the server said it took for the last state request (its Server-Timing header).
function serverTime() {
  const entries = performance.getEntriesByType('resource').filter((e) => e.name.includes('/state?'));
  const timing = entries[entries.length - 1]?.serverTiming?.find((t) => t.name === 'app');
  // The browser keeps 250 entries by default: start afresh for the next move.
  performance.clearResourceTimings();
  return timing ? timing.duration : null;
}

function renderState(state, diff) {
  app.lastState = state;
  window.studio.lastState = state;
  app.lastDiff = diff;
  const action = state.action;
  const heading = Object.assign(document.createElement('span'), { className: 'title-label', textContent: action ? action.label ?? action.case : 'initial state' });
  $('state-title').replaceChildren(`State after ${state.seq.toLocaleString('en')} · `, heading);
  // The state after an action is the one after the jumps that followed it (the app's next
  // action saw that one): say so, since the changes marked are the jumps' too.
  const jumps = jumpsAfter(state.seq);
  if (jumps.length) {
    $('state-title').append(Object.assign(document.createElement('span'), {
      className: 'title-jumps',
      textContent: `, then the app was ${jumps.map(jumpText).join(', then ')} (the changes marked include ${jumps.length > 1 ? 'those moves' : 'that move'})`,
    }));
  }
  renderActionDetail(action);
  renderSince();
  app.stateTime = action ? action.time : null;
  app.screens = state.screens;
  const screens = $('screens');
  if (state.screens) {
    const parts = [];
    if (state.screens.tab) parts.push(Object.assign(document.createElement('span'), { textContent: `tab ${state.screens.tab}: ` }));
    for (const name of state.screens.screens) {
      const span = document.createElement('span');
      span.className = 'screen' + (name === state.screens.visible ? ' visible' : '');
      span.textContent = name;
      parts.push(span);
    }
    screens.replaceChildren(...parts);
  } else {
    screens.replaceChildren();
  }
  const changes = diff ? diff.changes : state.changed;
  // Replayed without skipped actions, the old values are the recorded ones.
  tree.oldWord = state.skipped && !diff ? 'recorded' : 'was';
  const query = $('search').value;
  const count = tree.render(state.state, changes, query);
  // The server's count covers the whole state, the parts not loaded too.
  const found = app.found && app.found.seq === state.seq && app.found.query === query.trim() ? app.found : null;
  renderSearchCount(query, count, found);
  // The server searches the recorded state: not while actions are skipped.
  if (query.trim() && !found && !state.skipped) searchSoon();
  const text = $('diff-text');
  text.hidden = !diff;
  text.textContent = diff ? (diff.diff ?? `no change from ${diff.from} to ${diff.to}`) : '';
  drawLanes();
  if (app.flows) drawFlows($('flow-graph'), app.flows, app.screens);
}

$('slider').addEventListener('input', (event) => select(Number(event.target.value), { scroll: true }));
$('actions').addEventListener('scroll', () => renderRows());
// A row is selected when it is pressed, as in a list box: a click's release may come after
// the list has moved on (a live session that follows its app scrolls it).
$('actions').addEventListener('mousedown', (event) => {
  const row = event.button === 0 && event.target.closest('.row');
  if (row) select(Number(row.dataset.seq), { pinned: true });
});
$('type-filter').addEventListener('change', async (event) => {
  app.filter = event.target.value;
  // The keys move between actions, not between the select's options.
  $('actions').focus();
  await applyFilters();
});
$('search').addEventListener('input', () => { if (app.lastState) renderState(app.lastState, app.lastDiff); });

// The search box also asks the server, which searches the whole state (the parts of long
// arrays not loaded too), and loads the items where it found matches, so that the tree
// shows and marks them.
let searchTimer = null;
function searchSoon() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(searchState, 250);
}

async function searchState() {
  const query = $('search').value.trim();
  const state = app.lastState;
  if (!query || !state || !app.session) return;
  app.searching = query;
  refreshSearchCount();
  try {
    const result = await api(`sessions/${encodeURIComponent(app.session.id)}/search`, { at: state.seq, q: query, limit: 1000 }, 'search');
    if (app.searching === query) app.searching = null;
    if (app.lastState !== state || $('search').value.trim() !== query) return;
    app.found = { seq: state.seq, query, count: result.count, complete: result.complete };
    await tree.reveal(result.paths);
    if (app.lastState !== state) return;
    renderState(state, app.lastDiff);
    window.studio.searched = { seq: state.seq, query, count: result.count };
  } catch (error) {
    if (!isAbort(error) && app.searching === query) { app.searching = null; refreshSearchCount(); }
    fail(error);
  }
}
$('search').addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  event.preventDefault();
  moveMatch(event.shiftKey ? -1 : 1);
});
$('compare-toggle').addEventListener('change', () => select(app.sel));
$('compare-at').addEventListener('change', () => { if ($('compare-toggle').checked) select(app.sel); });

// Arrow keys (or j and k) step; Page Up and Down jump a screenful; Home and End go to the
// ends. In a filtered list, steps go from one shown action to the next.
document.addEventListener('keydown', (event) => {
  if (event.target.closest('input, select, textarea') || event.metaKey || event.ctrlKey || event.altKey) return;
  if (/^[0-9]$/.test(event.key) && app.session) {
    // Typing a number goes to that action: the digits go into the go-to field, Enter goes.
    event.preventDefault();
    $('goto').value = event.key;
    $('goto').focus();
    return;
  }
  const page = Math.max(1, Math.floor($('actions').clientHeight / ROW) - 1);
  const step = (delta) => {
    if (app.filtered) {
      const index = indexOf(app.sel);
      const next = app.filtered[Math.max(0, Math.min(app.filtered.length - 1, (index < 0 ? 0 : index + delta)))];
      return next ? next.seq : app.sel;
    }
    return app.sel + delta;
  };
  const moves = {
    ArrowDown: () => step(1), ArrowRight: () => step(1), j: () => step(1),
    ArrowUp: () => step(-1), ArrowLeft: () => step(-1), k: () => step(-1),
    PageDown: () => step(page), PageUp: () => step(-page),
    Home: () => app.filtered ? app.filtered[0]?.seq ?? app.sel : app.start,
    End: () => app.filtered ? lastFiltered() : app.last,
  };
  if (!moves[event.key] || !app.session) return;
  event.preventDefault();
  Promise.resolve(moves[event.key]()).then((sequence) => select(sequence, { scroll: true })).catch(fail);
});

// The last action the case filter lists: the rest of the list is loaded first, if it has
// not all been.
async function lastFiltered() {
  const filter = app.filter;
  while (app.filterLoading) await new Promise((resolve) => setTimeout(resolve, 20));
  app.filterLoading = true;
  try {
    while (app.filtered && app.filter === filter && app.filteredNext !== null) {
      const result = await api(`sessions/${encodeURIComponent(app.session.id)}/actions`, { ...filterParams(), from: app.filteredNext, limit: 10000 });
      if (app.filter !== filter || !app.filtered) return app.sel;
      app.filtered = app.filtered.concat(result.actions);
      app.filteredNext = result.next;
    }
  } finally {
    app.filterLoading = false;
  }
  layoutRows();
  return app.filtered?.at(-1)?.seq ?? app.sel;
}

$('goto').addEventListener('keydown', (event) => {
  if (event.key === 'Escape') { $('goto').value = ''; $('actions').focus(); return; }
  if (event.key !== 'Enter') return;
  event.preventDefault();
  if (!needSession()) return;
  const text = $('goto').value.trim().replaceAll(',', '').replaceAll('_', '');
  if (!/^\d+$/.test(text)) {
    status(`'${$('goto').value}' is not an action number (a whole number from ${app.start})`, true);
    return;
  }
  const target = Number(text);
  $('goto').value = '';
  $('actions').focus();
  select(target, { scroll: true }).then(() => {
    if (target < app.start || target > app.last) {
      status(`action ${target.toLocaleString('en')} is not in this session (${app.start.toLocaleString('en')} to ${app.last.toLocaleString('en')}): showing the nearest`, true);
    }
  });
});

// MARK: - Copying values, paths and the state as JSON

// Puts `text` on the clipboard (the Clipboard API where the page may use it, else a hidden
// text field and the copy command), and says what was copied.
async function copy(text, what) {
  window.studio.copied = text;
  let done = false;
  try {
    await navigator.clipboard.writeText(text);
    done = true;
  } catch {
    const field = Object.assign(document.createElement('textarea'), { value: text });
    field.style.position = 'fixed';
    field.style.opacity = '0';
    document.body.append(field);
    field.select();
    try { done = document.execCommand('copy'); } catch { done = false; }
    field.remove();
  }
  const size = text.length > 1000 ? ` (${text.length.toLocaleString('en')} characters)` : '';
  status(done ? `copied ${what}${size}` : `the browser refused the clipboard: ${what} is in window.studio.copied`, !done);
}

// The state after the selected action, whole (a long array's items too), from the server.
async function wholeState() {
  // The server's whole state is the recorded one; with actions skipped only the tree's is right.
  if (app.skips.size) {
    const held = tree.valueAt([]);
    if (held?.complete) return held.value;
    throw new Error('the whole state is not available while actions are skipped (a long array is cut): clear the skips to copy it');
  }
  const answer = await api(`sessions/${encodeURIComponent(app.session.id)}/state`, { at: app.sel, full: 1 });
  return answer.state;
}

function pickedPath() {
  return tree.picked ? JSON.parse(tree.picked) : [];
}

$('tree').addEventListener('pick', (event) => {
  $('picked').textContent = event.detail ? JSON.stringify(event.detail) : '';
});
$('copy-value').addEventListener('click', async () => {
  if (!needSession() || !app.lastState) return;
  const path = pickedPath();
  try {
    let found = tree.valueAt(path);
    if (!found || !found.complete) {
      // The tree holds only part of a long array: the server has all of it.
      let value = await wholeState();
      for (const step of path) value = value?.[step];
      found = { value };
    }
    await copy(JSON.stringify(found.value ?? null, null, 2), path.length ? `the value at ${JSON.stringify(path)}` : 'the state');
  } catch (error) {
    fail(error);
  }
});
$('copy-path').addEventListener('click', () => {
  if (!needSession() || !app.lastState) return;
  const path = pickedPath();
  copy(JSON.stringify(path), `the path ${JSON.stringify(path)}`).catch(fail);
});
$('copy-state').addEventListener('click', async () => {
  if (!needSession() || !app.lastState) return;
  try {
    await copy(JSON.stringify(await wholeState(), null, 2), `the state after ${app.sel.toLocaleString('en')}`);
  } catch (error) {
    fail(error);
  }
});

// MARK: - Invariants

function renderInvariants() {
  const list = $('invariants');
  list.replaceChildren(...app.session.invariants.map((invariant) => {
    const item = document.createElement('li');
    item.dataset.invariant = invariant.name;
    const name = Object.assign(document.createElement('span'), { className: 'name', textContent: invariant.name });
    const summary = Object.assign(document.createElement('span'), { className: 'summary', textContent: invariant.summary });
    const run = Object.assign(document.createElement('button'), { textContent: 'Run', className: 'run' });
    const result = Object.assign(document.createElement('div'), { className: 'result' });
    run.addEventListener('click', () => runInvariant(invariant.name, result));
    item.append(name, ' ', run, summary, result);
    return item;
  }));
  if (!app.session.invariants.length) list.append(Object.assign(document.createElement('li'), { textContent: 'This domain declares no invariants.' }));
}

/** A session's integrity in a line, as the CLI's `info` says it: `damaged at FILE, offset N, sequence S: problem`. */
function integrityText(integrity) {
  if (!integrity.problem) return integrity.status;
  const at = [integrity.file, integrity.line != null && `line ${integrity.line}`, integrity.offset != null && `offset ${integrity.offset}`,
    integrity.sequence != null && `sequence ${integrity.sequence}`].filter(Boolean);
  return `${integrity.status}${at.length ? ` at ${at.join(', ')}` : ''}: ${integrity.problem}`;
}

function jumpButton(text, sequence, cls) {
  const button = Object.assign(document.createElement('button'), { className: `jump ${cls}`, textContent: text });
  button.dataset.seq = sequence;
  button.addEventListener('click', () => select(sequence, { scroll: true }));
  return button;
}

async function runInvariant(name, result) {
  result.textContent = 'checking every action…';
  try {
    const bisect = await api(`sessions/${encodeURIComponent(app.session.id)}/bisect`, { invariant: name });
    app.marks = app.marks.filter((m) => m.invariant !== name);
    if (bisect.firstViolation === null && bisect.readWhole === false) {
      // Not read to its end: nothing is known of the actions after the damage.
      result.replaceChildren(Object.assign(document.createElement('span'), { className: 'bad', textContent: `${bisect.actions ? `holds after the ${bisect.actions.toLocaleString('en')} actions read` : 'nothing was checked'}, but the session could not be read whole: ${integrityText(bisect.integrity)}` }));
    } else if (bisect.nothingChecked) {
      // Holding in the starting state alone is no pass.
      result.replaceChildren(Object.assign(document.createElement('span'), { className: 'bad', textContent: 'nothing was checked: the session holds no actions' }));
    } else if (bisect.firstViolation === null) {
      result.replaceChildren(Object.assign(document.createElement('span'), { className: 'ok', textContent: `holds after all ${bisect.actions.toLocaleString('en')} actions` }));
      // In the Studio's replay: a live session's states past its last checked one may not be the app's.
      const session = app.session;
      if (session.live && (session.diverged || (session.checkedThrough ?? session.lastSequence) < session.lastSequence)) {
        result.append(Object.assign(document.createElement('span'), { className: 'unchecked', textContent: session.diverged
          ? ' in the Studio\'s replay, which has diverged from the app'
          : ` in the Studio's replay; the app's states are checked through ${session.checkedThrough.toLocaleString('en')} only` }));
      }
    } else {
      // Every stretch where it fails gets its marks; the first is spelled out with links.
      for (const stretch of bisect.violations) {
        app.marks.push({ invariant: name, fail: stretch.fails, heal: stretch.healedAt });
      }
      const parts = [Object.assign(document.createElement('span'), { className: 'bad', textContent: 'fails after ' }),
        jumpButton(`action ${bisect.firstViolation}`, bisect.firstViolation, 'first-failure')];
      if (bisect.failsAtJump) parts.push(' (set by the time-travel jump after it)');
      if (bisect.healedAt !== null) parts.push(' · holds again after ', jumpButton(`action ${bisect.healedAt}`, bisect.healedAt, 'healed'), bisect.healsAtJump ? ' (set by the time-travel jump after it)' : '');
      else parts.push(' · stays broken to the end');
      if (bisect.violations.length > 1) {
        const more = document.createElement('div');
        more.className = 'stretches';
        const later = bisect.violations.length - 1;
        more.append(`${bisect.violations.length} stretches where it fails; the ${later === 1 ? 'other' : `${later.toLocaleString('en')} others`}:`);
        for (const stretch of bisect.violations.slice(1, 20)) {
          more.append(' ', jumpButton(`${stretch.fails}`, stretch.fails, 'failure'),
            stretch.healedAt !== null ? '–' : '…', stretch.healedAt !== null ? jumpButton(`${stretch.healedAt}`, stretch.healedAt, 'healed') : '');
        }
        if (bisect.violations.length > 20) more.append(' …');
        parts.push(more);
      }
      result.replaceChildren(...parts);
    }
    renderMarks();
    renderRows();
  } catch (error) {
    result.textContent = error.message;
    result.className = 'result error';
  }
}

// MARK: - Tabs: navigation, bench, export

for (const button of $('tabs').querySelectorAll('button')) {
  button.addEventListener('click', () => {
    const name = button.dataset.tab;
    const opening = $(`tab-${name}`).hidden;
    for (const other of $('tabs').querySelectorAll('button')) other.classList.remove('active');
    for (const tab of document.querySelectorAll('.tab')) tab.hidden = true;
    if (!opening) return;
    button.classList.add('active');
    $(`tab-${name}`).hidden = false;
    if (name === 'navigation') loadFlows();
  });
}

async function loadFlows() {
  if (!needSession($('flow-legend'))) return;
  $('flow-legend').textContent = 'replaying the session…';
  try {
    app.flows = await api(`sessions/${encodeURIComponent(app.session.id)}/flows`);
    $('flow-legend').textContent = 'Grey: allowed by the flow rules; blue: observed in this session (with counts); red dashed: refused. The current screens are outlined.';
    drawFlows($('flow-graph'), app.flows, app.screens);
  } catch (error) {
    $('flow-legend').textContent = error.message;
  }
}

$('run-bench').addEventListener('click', async () => {
  if (!needSession($('bench-summary'))) return;
  $('bench-summary').textContent = 'replaying the session 3 times…';
  try {
    const report = await api(`sessions/${encodeURIComponent(app.session.id)}/bench`, { repeat: 3 });
    $('bench-summary').textContent = (report.warning ? `warning: ${report.warning}. ` : '') +
      `${report.actions.toLocaleString('en')} actions: reduce ${report.reduceNanosecondsPerAction.toFixed(1)} ns/action, ` +
      `${Math.round(report.actionsPerSecond).toLocaleString('en')} actions/s (median of ${report.repetitions}; p50 and p99 per case below)`;
    drawBench($('bench-chart'), report);
  } catch (error) {
    $('bench-summary').textContent = error.message;
  }
});

$('export-button').addEventListener('click', () => exportRange());

let shrunk = null;
$('shrink-button').addEventListener('click', async () => {
  if (!needSession($('shrink-summary'))) return;
  const invariant = $('shrink-invariant').value;
  $('shrink-summary').textContent = 'shrinking…';
  $('shrink-downloads').hidden = true;
  try {
    shrunk = await api(`sessions/${encodeURIComponent(app.session.id)}/shrink`, { invariant });
    if (!shrunk.fails) {
      $('shrink-summary').textContent = shrunk.readWhole === false
        ? `${invariant} holds after the ${shrunk.actions.toLocaleString('en')} actions read, but the session could not be read whole (${integrityText(shrunk.integrity)}): nothing to shrink`
        : `${invariant} holds after every action: nothing to shrink`;
      return;
    }
    $('shrink-summary').textContent = `${shrunk.originalCount.toLocaleString('en')} actions shrunk to ${shrunk.actions} that still break ${invariant} (${shrunk.replays} replays)`;
    $('shrink-downloads').hidden = false;
    $('shrink-test-text').hidden = false;
    $('shrink-test-text').textContent = shrunk.swiftTest;
  } catch (error) {
    $('shrink-summary').textContent = error.message;
  }
});
$('shrink-jsonl').addEventListener('click', () => download(`${app.session.id}-shrunk.jsonl`, shrunk.jsonl, 'application/x-ndjson'));
$('shrink-test').addEventListener('click', () => download(`${app.session.id}-shrunk-test.swift`, shrunk.swiftTest, 'text/x-swift'));

window.addEventListener('resize', () => { renderRows(); drawLanes(); });
window.addEventListener('panes', () => { renderRows(); drawLanes(); });
// The list's height changes without a scroll when the swimlanes above it are drawn (or the
// window or a divider moves): on a long list the rows' places depend on it.
new ResizeObserver(() => renderRows()).observe($('actions'));
loadSessions().catch(fail);

/** An action's time as ISO 8601, or the seconds themselves when no Date can hold them. */
function isoTime(seconds) {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `${seconds} s` : date.toISOString();
}

// MARK: - Dispatch and opening files (dispatch.js, upload.js)

setUpDispatch({
  session: () => app.session,
  selectedAction: () => app.rows.get(app.sel)?.action,
  report: (text) => status(text),
});

setUpUploads({
  opened: async (answer) => {
    app.removed.delete(answer.id);
    app.sessions = (await api('sessions', { wait: LIST_WAIT })).filter((s) => !app.removed.has(s.id));
    renderSessions();
    await openSession(answer.id);
    status(`opened ${answer.file}`);
  },
  report: status,
});

// MARK: - Navigation: zoom, time between actions, filters, search matches, play, work under way

// Everything here starts afresh when a session opens or closes.
function resetNavigation() {
  cancelSessionWork();
  stopPlaying();
  zoom.from = zoom.to = null;
  showZoom();
  app.textFilter = '';
  $('text-filter').value = '';
  app.filterLoading = false;
  renderFilterCount();
  showLanesStatus(null);
}

// MARK: Timeline zoom

// The part of the session the slider, the marks and the swimlanes show: [from, to] in
// sequence numbers, or all of it (null) when not zoomed. Ctrl + wheel (or a pinch) over the
// timeline zooms around the pointer, − and + around the selection; the wheel alone, or a drag
// on the swimlanes, pans a zoomed timeline.
const zoom = { from: null, to: null };
const MIN_SPAN = 20;

function zoomed() { return zoom.from !== null; }

function viewRange() {
  if (!zoomed()) return [app.start, app.last];
  return [Math.max(app.start, zoom.from), Math.min(app.last, zoom.to)];
}

// Shows [from, to] (a span of at least MIN_SPAN actions, within the session; all of it
// ends the zoom).
function setView(from, to) {
  const total = app.last - app.start;
  const span = Math.max(Math.min(MIN_SPAN, total), Math.round(to - from));
  if (!app.session || span >= total) {
    zoom.from = zoom.to = null;
  } else {
    zoom.from = Math.round(Math.max(app.start, Math.min(app.last - span, from)));
    zoom.to = zoom.from + span;
  }
  showZoom();
}

// Draws what depends on the view from what the page holds, once a frame however many wheel
// events come in it, and asks for the swimlanes of the new view when the zoom has paused.
let zoomLanesTimer = null;
let zoomFrame = null;
function showZoom() {
  const [from, to] = viewRange();
  $('slider').min = from;
  $('slider').max = to;
  $('slider').value = app.sel;
  $('zoom-range').textContent = zoomed() && app.session
    ? `${from.toLocaleString('en')}–${to.toLocaleString('en')} (×${((app.last - app.start) / Math.max(1, to - from)).toFixed(1)})` : '';
  $('zoom-reset').disabled = $('zoom-out').disabled = !zoomed();
  window.studio.zoom = { from, to, zoomed: zoomed() };
  if (!app.session) return;
  if (zoomFrame === null) {
    zoomFrame = requestAnimationFrame(() => {
      const started = performance.now();
      zoomFrame = null;
      renderMarks();
      drawLanes();
      // The last hundred, for the browser test.
      window.studio.zoomDrawMs = [...(window.studio.zoomDrawMs || []).slice(-99), performance.now() - started];
    });
  }
  clearTimeout(zoomLanesTimer);
  zoomLanesTimer = setTimeout(() => { if (app.session && app.lanes) loadLanes(); }, 150);
}

// The lanes endpoint's span for the view: none when the whole session is shown.
function lanesSpan() {
  if (!zoomed()) return {};
  const [from, to] = viewRange();
  return { from: Math.max(app.start + 1, from), to };
}

function zoomBy(factor, anchor) {
  const [from, to] = viewRange();
  const span = Math.max(1, to - from);
  const center = Number.isFinite(anchor) && anchor >= from && anchor <= to ? anchor : from + span / 2;
  const ratio = (center - from) / span;
  const next = span * factor;
  setView(center - ratio * next, center - ratio * next + next);
}

function panBy(actions) {
  if (!zoomed()) return;
  const [from, to] = viewRange();
  setView(from + actions, to + actions);
}

// A selection outside a zoomed view moves the view to it, keeping its span.
function keepInView(sequence) {
  if (!zoomed()) return;
  const [from, to] = viewRange();
  if (sequence >= from && sequence <= to) return;
  const span = to - from;
  setView(sequence - span / 2, sequence + span / 2);
}

// The sequence number under the pointer: the slider and the marks span the whole width, the
// swimlanes the width right of their labels.
function sequenceAtPointer(element, clientX) {
  const rect = element.getBoundingClientRect();
  const left = element.id === 'lanes' ? LABEL : 0;
  const ratio = Math.max(0, Math.min(1, (clientX - rect.left - left) / Math.max(1, rect.width - left)));
  const [from, to] = viewRange();
  return from + ratio * (to - from);
}

function timelineWidth(element) {
  return Math.max(1, element.getBoundingClientRect().width - (element.id === 'lanes' ? LABEL : 0));
}

for (const element of [$('scrubber'), $('lanes')]) {
  element.addEventListener('wheel', (event) => {
    if (!app.session) return;
    const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
    if (event.ctrlKey || event.metaKey) {
      event.preventDefault();
      zoomBy(Math.exp(Math.max(-300, Math.min(300, delta)) * 0.003), sequenceAtPointer(element, event.clientX));
    } else if (zoomed()) {
      event.preventDefault();
      const [from, to] = viewRange();
      const sideways = Math.abs(event.deltaX) > Math.abs(delta) ? event.deltaX : delta;
      panBy((sideways / timelineWidth(element)) * (to - from));
    }
  }, { passive: false });
}

// A drag on the swimlanes pans; a press without a drag is still a click that jumps.
let lanesDrag = null;
$('lanes').addEventListener('pointerdown', (event) => {
  if (event.button !== 0 || !zoomed()) return;
  lanesDrag = { x: event.clientX, view: viewRange(), moved: false, pointer: event.pointerId };
});
$('lanes').addEventListener('pointermove', (event) => {
  if (!lanesDrag) return;
  const dx = event.clientX - lanesDrag.x;
  if (!lanesDrag.moved && Math.abs(dx) < 4) return;
  if (!lanesDrag.moved) { $('lanes').setPointerCapture(lanesDrag.pointer); $('lanes').classList.add('panning'); }
  lanesDrag.moved = true;
  const [from, to] = lanesDrag.view;
  const shift = (-dx / timelineWidth($('lanes'))) * (to - from);
  setView(from + shift, to + shift);
});
for (const name of ['pointerup', 'pointercancel']) {
  $('lanes').addEventListener(name, () => {
    $('lanes').classList.remove('panning');
    if (lanesDrag && !lanesDrag.moved) lanesDrag = null;
  });
}
// Capturing, on the canvas itself: runs before the click that jumps, and stops it after a drag.
$('lanes').addEventListener('click', (event) => {
  if (lanesDrag?.moved) event.stopImmediatePropagation();
  lanesDrag = null;
}, true);

function selectionOrCenter() {
  const [from, to] = viewRange();
  return app.sel >= from && app.sel <= to ? app.sel : (from + to) / 2;
}
$('zoom-in').addEventListener('click', () => { if (needSession()) zoomBy(1 / 4, selectionOrCenter()); });
$('zoom-out').addEventListener('click', () => { if (needSession()) zoomBy(4, selectionOrCenter()); });
$('zoom-reset').addEventListener('click', () => { if (needSession()) setView(app.start, app.last); });
window.studio.zoomTo = (from, to) => setView(from, to);

// The requests for the open session that no move replaces: its swimlanes and its filter.
function cancelSessionWork() {
  cancel('lanes');
  cancel('filter');
  clearTimeout(zoomLanesTimer);
}

function showLanesStatus(text) {
  $('lanes-status').hidden = !text;
  $('lanes-status').textContent = text || '';
}

// MARK: Time between actions

// `+120 ms`, `+3.2 s`, `+4 min 05 s`, `+2 h 10 min`: the time since the previous action.
function sinceText(seconds) {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '';
  const sign = seconds < 0 ? '−' : '+';
  const s = Math.abs(seconds);
  if (s < 1) return `${sign}${Math.round(s * 1000)} ms`;
  if (s < 60) return `${sign}${s.toFixed(1)} s`;
  if (s < 3600) return `${sign}${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${sign}${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

window.studio.sinceText = sinceText;

function sinceSpan(action) {
  const text = sinceText(action.sincePrevious);
  const span = Object.assign(document.createElement('span'), { className: 'since', textContent: text });
  if (text) span.title = 'since the previous action';
  return span;
}

// The selected action's time since the previous one, from the rows the page holds.
function sinceOf(sequence) {
  const row = app.rows.get(sequence) ?? app.filtered?.[indexOf(sequence)];
  if (row && row.seq === sequence && row.sincePrevious !== undefined) return row.sincePrevious;
  const action = app.lastState?.action, previous = app.rows.get(sequence - 1);
  return action && previous ? action.time - previous.time : undefined;
}

function renderSince() {
  const element = document.getElementById('action-since');
  const action = app.lastState?.action;
  if (!element || !action) return;
  const text = sinceText(sinceOf(action.seq));
  const line = text ? ` · ${text} since the previous action` : '';
  if (element.textContent !== line) element.textContent = line;
}

// MARK: Filter by text

function filterParams() {
  return { type: app.filter, text: app.textFilter };
}

function filtering() {
  return !!(app.filter || app.textFilter);
}

// Lists the actions the filters keep, afresh: the server filters (every action of a long
// session is read there, a page of 2,000 at a time).
async function applyFilters() {
  app.filtered = filtering() ? [] : null;
  app.filteredNext = null;
  app.filterLoading = false;
  $('actions-spacer').replaceChildren();
  $('actions').scrollTop = 0;
  if (filtering()) await loadFiltered(); else layoutRows();
  scrollToSelection();
  renderFilterCount();
}

function renderFilterCount() {
  const count = $('filter-count');
  window.studio.filter = { text: app.textFilter || '', count: app.filtered?.length ?? null, more: app.filteredNext !== null, loading: !!app.filterLoading };
  if (!filtering() || !app.filtered) { count.textContent = ''; return; }
  const listed = `${app.filtered.length.toLocaleString('en')}${app.filteredNext !== null ? '+' : ''}`;
  // The server reads a long session a stretch at a time: how far it has read.
  const read = app.filteredNext !== null ? ` (read to ${app.filteredNext.toLocaleString('en')} of ${app.last.toLocaleString('en')})` : '';
  count.textContent = app.filterLoading ? `filtering… ${app.filtered.length ? listed + ' found' : ''}${read}`
    : app.filtered.length ? `${listed} action${app.filtered.length === 1 && app.filteredNext === null ? '' : 's'}`
      : app.textFilter ? `no action contains “${app.textFilter}”` : 'none';
}

let textFilterTimer = null;
$('text-filter').addEventListener('input', () => {
  clearTimeout(textFilterTimer);
  textFilterTimer = setTimeout(() => {
    const text = $('text-filter').value.trim();
    if (text === (app.textFilter || '') || !app.session) return;
    app.textFilter = text;
    applyFilters();
  }, 300);
});
$('text-filter').addEventListener('keydown', (event) => {
  if (event.key === 'Escape') { $('text-filter').value = ''; $('text-filter').dispatchEvent(new Event('input')); }
  // Enter goes to the list, where the keys move between the actions kept.
  if (event.key === 'Enter') { event.preventDefault(); $('actions').focus(); }
});

// MARK: Search matches: "n of m"

function renderSearchCount(query, count, found) {
  const element = $('search-count');
  const searching = app.searching && app.searching === query.trim();
  const none = !query;
  $('search-prev').hidden = $('search-next').hidden = none;
  if (none) { element.textContent = ''; window.studio.searchCount = null; app.autoMatch = null; return; }
  // A new query goes to its first match, as a browser's find does.
  if (count && tree.current < 0 && app.autoMatch !== query.trim()) {
    app.autoMatch = query.trim();
    tree.moveMatch(1);
  }
  const current = tree.current >= 0 ? tree.current + 1 : 0;
  let text = count ? `${current} of ${count}` : 'no match';
  // The server's count covers the whole state, the parts the tree does not hold too.
  if (found && (found.count !== count || !found.complete)) text += ` (${found.count}${found.complete ? '' : '+'} in the state)`;
  if (searching) text += ' · searching…';
  element.textContent = text;
  window.studio.searchCount = { current, count, total: found?.count ?? null };
}

// The count again, for the tree as it is.
function refreshSearchCount() {
  const query = $('search').value;
  const found = app.found && app.lastState && app.found.seq === app.lastState.seq && app.found.query === query.trim() ? app.found : null;
  renderSearchCount(query, tree.matches.length, found);
}

function moveMatch(delta) {
  tree.moveMatch(delta);
  refreshSearchCount();
}
$('search-next').addEventListener('click', () => moveMatch(1));
$('search-prev').addEventListener('click', () => moveMatch(-1));

// MARK: Play

// Steps through the actions (the ones the filters keep) at the speed chosen, one step after
// the state of the last has been shown; stops at the end or on any other move.
const player = { timer: null, running: false };

function playing() { return player.running; }

function stopPlaying() {
  if (!player.running) return;
  player.running = false;
  clearTimeout(player.timer);
  player.timer = null;
  showPlayer();
}

function showPlayer() {
  $('play').textContent = player.running ? '❚❚ pause' : '▶ play';
  $('play').classList.toggle('playing', player.running);
  $('play').setAttribute('aria-pressed', String(player.running));
  window.studio.playing = player.running;
}

// The action after `sequence` among those listed, or null at the end.
async function nextListed(sequence) {
  if (!app.filtered) return sequence < app.last ? sequence + 1 : null;
  let index = app.filtered.findIndex((a) => a.seq > sequence);
  if (index < 0 && app.filteredNext !== null) {
    await loadFiltered(true);
    index = app.filtered?.findIndex((a) => a.seq > sequence) ?? -1;
  }
  return index < 0 ? null : app.filtered[index].seq;
}

async function firstListed() {
  if (!app.filtered) return app.start;
  return app.filtered[0]?.seq ?? null;
}

async function startPlaying() {
  if (!needSession() || player.running) return;
  player.running = true;
  showPlayer();
  // From the end, play starts again from the beginning.
  if ((await nextListed(app.sel)) === null) {
    const first = await firstListed();
    if (first === null || !player.running) { stopPlaying(); return; }
    await select(first, { scroll: true, playing: true });
  }
  scheduleStep(0);
}

function scheduleStep(spent) {
  if (!player.running) return;
  const interval = 1000 / Number($('play-speed').value || 5);
  player.timer = setTimeout(step, Math.max(0, interval - spent));
}

async function step() {
  if (!player.running) return;
  const started = performance.now();
  const next = await nextListed(app.sel);
  if (!player.running) return;
  if (next === null) { stopPlaying(); status('played to the last action'); return; }
  await select(next, { scroll: true, playing: true });
  scheduleStep(performance.now() - started);
}

function togglePlaying() {
  if (player.running) stopPlaying(); else startPlaying().catch(fail);
}
$('play').addEventListener('click', togglePlaying);
document.addEventListener('keydown', (event) => {
  if (event.key !== ' ' || event.metaKey || event.ctrlKey || event.altKey) return;
  // A text field, a button or a toggle has its own use of the space bar.
  if (event.target.closest('input, select, textarea, button, summary, [contenteditable]')) return;
  if (!app.session) return;
  event.preventDefault();
  togglePlaying();
});

// MARK: Work under way

// The header says what the page has been waiting for more than 300 ms (a first load, the
// swimlanes, a search), with the time it has taken so far.
let busyList = [];
let busyTimer = null;
function renderBusy() {
  const now = performance.now();
  const slow = busyList.filter((entry) => now - entry.started > 300);
  $('busy').hidden = !slow.length;
  window.studio.busy = slow.map((entry) => entry.what);
  if (slow.length) {
    const oldest = slow[0];
    const others = slow.length > 1 ? ` and ${slow.length - 1} more` : '';
    $('busy-text').textContent = `loading ${oldest.what}${others}… ${((now - oldest.started) / 1000).toFixed(1)} s`;
  }
  clearTimeout(busyTimer);
  if (busyList.length) busyTimer = setTimeout(renderBusy, 100);
}
onBusy((list) => { busyList = list; renderBusy(); });

// MARK: Export with progress

// Downloads the range as JSON Lines, saying how far it has come: the time while the server
// prepares it, then the bytes received of the Content-Length. Cancel stops the download.
let exporting = null;
async function exportRange() {
  if (!needSession()) return;
  if (exporting) return;
  const from = $('export-from').value, to = $('export-to').value;
  const controller = new AbortController();
  const started = performance.now();
  const state = { received: 0, total: null, phase: 'preparing' };
  exporting = controller;
  window.studio.export = state;
  $('export-cancel').hidden = false;
  $('export-button').disabled = true;
  const show = () => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const mb = (bytes) => (bytes / 1e6).toFixed(1);
    $('export-progress').textContent = state.received === 0
      ? `the server is preparing the export… ${seconds} s`
      : state.total ? `received ${mb(state.received)} of ${mb(state.total)} MB (${Math.floor((state.received / state.total) * 100)}%) · ${seconds} s`
        : `received ${mb(state.received)} MB · ${seconds} s`;
  };
  const ticker = setInterval(show, 200);
  show();
  try {
    const text = await apiWithProgress(`sessions/${encodeURIComponent(app.session.id)}/export`, { from, to }, {
      signal: controller.signal,
      progress: (received, total) => { state.received = received; state.total = total; state.phase = received ? 'receiving' : 'preparing'; },
    });
    state.phase = 'done';
    download(`${app.session.id}-${from}-${to}.jsonl`, text, 'application/x-ndjson');
    $('export-progress').textContent = `exported ${text.length.toLocaleString('en')} characters in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  } catch (error) {
    state.phase = isAbort(error) ? 'cancelled' : 'failed';
    $('export-progress').textContent = isAbort(error) ? 'export cancelled' : error.message;
  } finally {
    clearInterval(ticker);
    exporting = null;
    $('export-cancel').hidden = true;
    $('export-button').disabled = false;
  }
}
$('export-cancel').addEventListener('click', () => exporting?.abort());
