// Retrace Studio's page: sessions, a virtualized timeline with swimlanes and invariant
// marks, the state tree at the selected action, and the navigation, bench and export tabs.
// It reads everything through the JSON API (api.js); docs/STUDIO.md describes both.
import { api, isAbort, download } from './api.js';
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

async function loadSessions() {
  app.sessions = await api('sessions');
  renderSessions();
  const wanted = params.get('session');
  const first = app.sessions.find((s) => s.id === wanted) || app.sessions[0];
  if (first) await openSession(first.id, requestedAt());
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
    const intact = session.integrity.status === 'clean';
    const integrity = session.live && !session.diverged ? ['live', 'ok'] : [intact ? '✓' : `✗ ${session.integrity.status}`, intact ? 'ok' : 'bad'];
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
    row.title = `${session.file}: ${session.diverged ? 'diverged' : session.integrity.status}`;
    row.addEventListener('click', () => openSession(session.id));
    return row;
  }));
}

// MARK: - Live sessions

// The session list, and the open session when it is live, are asked for again every POLL
// milliseconds: the timeline grows as the app's actions arrive, and follows the last one
// unless the developer has moved away from it.
const POLL = 500;
let lanesAsked = 0;
async function poll() {
  try {
    const sessions = (await api('sessions', {}, 'poll-sessions')).filter((s) => !app.removed.has(s.id));
    // The rows are made again only when something changed, so that a click is not lost.
    if (JSON.stringify(sessions) !== JSON.stringify(app.sessions)) {
      app.sessions = sessions;
      renderSessions();
    }
    const open = app.session && app.sessions.find((s) => s.id === app.session.id);
    if (open?.live) await refreshLive(open);
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
    $('slider').max = app.last;
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
  $('follow').hidden = app.follow;
  $('move-app').hidden = $('resume-app').hidden = !session.connected;
  window.studio.live = {
    last: app.last, follow: app.follow, connected: session.connected, diverged: session.diverged,
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

function jumpText(jump) {
  return jump.to === null ? 'moved elsewhere' : jump.to === jump.after ? 'resumed' : `moved to ${jump.to.toLocaleString('en')}`;
}

function jumpRowClass(sequence) {
  if (!app.session?.live) return '';
  return (jumpsAfter(sequence).length ? ' jumped-after' : '') + (app.session.connected && app.session.appAt === sequence ? ' app-now' : '');
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
  if (!session?.live) return [];
  const buttons = (session.jumps || []).map((jump) => {
    const button = document.createElement('button');
    button.className = 'mark jump';
    button.style.left = ((jump.after - app.start) / span) * 100 + '%';
    button.title = `after action ${jump.after.toLocaleString('en')} the app was ${jumpText(jump)}`;
    button.setAttribute('aria-label', button.title);
    button.addEventListener('click', () => select(jump.to ?? jump.after, { scroll: true }));
    return button;
  });
  if (session.connected && session.appAt !== null && session.appAt !== undefined) {
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
  if (!session?.live || !lanes || !(lanes.end > lanes.start)) return;
  const at = (time) => LABEL + ((time - lanes.start) / (lanes.end - lanes.start)) * (width - LABEL);
  context.fillStyle = '#e08a00';
  for (const jump of session.jumps || []) {
    const x = Math.min(width - 1, Math.max(LABEL, at(jump.time)));
    for (let y = 0; y < height; y += 6) context.fillRect(x - 0.5, y, 1.5, 3);
  }
  const here = session.connected ? app.rows.get(session.appAt) : null;
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
  for (let index = top; index < bottom; index++) {
    const sequence = sequenceAt(index);
    const action = app.filtered ? app.filtered[index] : app.rows.get(sequence);
    if (!action && !app.filtered) fetchPage(sequence);
    let row = existing.get(String(sequence));
    if (!row) {
      row = document.createElement('div');
      row.dataset.seq = sequence;
      spacer.append(row);
    }
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
        row.replaceChildren(seq, actionText(action));
        row.title = `${JSON.stringify(action.action)}\n${isoTime(action.time)}`;
      } else {
        row.replaceChildren(seq, '…');
      }
    }
  }
  for (const row of existing.values()) if (!kept.has(row)) row.remove();
  if (app.filtered && bottom >= rowCount() - 20 && app.filteredNext !== null) loadFiltered(true);
}

// An action as a developer reads it: its label (`navigation › push(about)`), the case's name
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

async function loadFiltered(more = false) {
  if (app.filterLoading) return;
  app.filterLoading = true;
  try {
    const from = more ? app.filteredNext : null;
    const result = await api(`sessions/${encodeURIComponent(app.session.id)}/actions`, { type: app.filter, from, limit: 2000 });
    app.filtered = more ? app.filtered.concat(result.actions) : result.actions;
    app.filteredNext = result.next;
    layoutRows();
  } catch (error) {
    fail(error);
  } finally {
    app.filterLoading = false;
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
  const span = Math.max(1, app.last - app.start);
  const buttons = [];
  for (const mark of app.marks) {
    for (const [kind, sequence] of [['fail', mark.fail], ['heal', mark.heal]]) {
      if (sequence === null) continue;
      const button = document.createElement('button');
      button.className = `mark ${kind}`;
      button.style.left = ((sequence - app.start) / span) * 100 + '%';
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
  try {
    const lanes = await api(`sessions/${encodeURIComponent(id)}/lanes`, { buckets: Math.max(50, Math.floor(canvas.clientWidth / 3)) });
    if (app.session.id !== id) return;
    app.lanes = lanes;
    drawLanes();
    window.studio.lanesReady = true;
  } catch (error) {
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

async function select(sequence, { scroll = false, following = false, pinned = false } = {}) {
  if (!app.session || !Number.isFinite(sequence)) return;
  sequence = Math.max(app.start, Math.min(app.last, Math.round(sequence)));
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
  line.append(Object.assign(document.createElement('span'), { className: 'meta', textContent: isoTime(action.time) }), ' ', skipLabel);
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
  renderActionDetail(action);
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
  $('search-count').textContent = !query ? '' : found ? `${found.count}${found.complete ? '' : '+'} found` : `${count} found`;
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
  app.filtered = null;
  $('actions-spacer').replaceChildren();
  $('actions').scrollTop = 0;
  // The keys move between actions, not between the select's options.
  $('actions').focus();
  if (app.filter) await loadFiltered(); else layoutRows();
  scrollToSelection();
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
  try {
    const result = await api(`sessions/${encodeURIComponent(app.session.id)}/search`, { at: state.seq, q: query, limit: 1000 }, 'search');
    if (app.lastState !== state || $('search').value.trim() !== query) return;
    app.found = { seq: state.seq, query, count: result.count, complete: result.complete };
    await tree.reveal(result.paths);
    if (app.lastState !== state) return;
    renderState(state, app.lastDiff);
    window.studio.searched = { seq: state.seq, query, count: result.count };
  } catch (error) {
    fail(error);
  }
}
$('search').addEventListener('keydown', (event) => { if (event.key === 'Enter') tree.nextMatch(); });
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
      const result = await api(`sessions/${encodeURIComponent(app.session.id)}/actions`, { type: filter, from: app.filteredNext, limit: 10000 });
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
    if (bisect.firstViolation === null) {
      result.replaceChildren(Object.assign(document.createElement('span'), { className: 'ok', textContent: `holds after all ${bisect.actions.toLocaleString('en')} actions` }));
    } else {
      // Every stretch where it fails gets its marks; the first is spelled out with links.
      for (const stretch of bisect.violations) {
        app.marks.push({ invariant: name, fail: stretch.fails, heal: stretch.healedAt });
      }
      const parts = [Object.assign(document.createElement('span'), { className: 'bad', textContent: 'fails after ' }),
        jumpButton(`action ${bisect.firstViolation}`, bisect.firstViolation, 'first-failure')];
      if (bisect.healedAt !== null) parts.push(' · holds again after ', jumpButton(`action ${bisect.healedAt}`, bisect.healedAt, 'healed'));
      else parts.push(' · stays broken to the end');
      if (bisect.violations.length > 1) {
        const more = document.createElement('div');
        more.className = 'stretches';
        more.append(`${bisect.violations.length} stretches where it fails:`);
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
    $('bench-summary').textContent = `${report.actions.toLocaleString('en')} actions: reduce ${report.reduceNanosecondsPerAction.toFixed(1)} ns/action, ` +
      `${Math.round(report.actionsPerSecond).toLocaleString('en')} actions/s (median of ${report.repetitions}; p50 and p99 per case below)`;
    drawBench($('bench-chart'), report);
  } catch (error) {
    $('bench-summary').textContent = error.message;
  }
});

$('export-button').addEventListener('click', async () => {
  if (!needSession()) return;
  const from = $('export-from').value, to = $('export-to').value;
  try {
    const text = await api(`sessions/${encodeURIComponent(app.session.id)}/export`, { from, to });
    download(`${app.session.id}-${from}-${to}.jsonl`, text, 'application/x-ndjson');
  } catch (error) {
    fail(error);
  }
});

let shrunk = null;
$('shrink-button').addEventListener('click', async () => {
  if (!needSession($('shrink-summary'))) return;
  const invariant = $('shrink-invariant').value;
  $('shrink-summary').textContent = 'shrinking…';
  $('shrink-downloads').hidden = true;
  try {
    shrunk = await api(`sessions/${encodeURIComponent(app.session.id)}/shrink`, { invariant });
    if (!shrunk.fails) {
      $('shrink-summary').textContent = `${invariant} holds after every action: nothing to shrink`;
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
    app.sessions = (await api('sessions')).filter((s) => !app.removed.has(s.id));
    renderSessions();
    await openSession(answer.id);
    status(`opened ${answer.file}`);
  },
  report: status,
});
