// Sending an action to a live session's app (docs/STUDIO.md, "Dispatching an action"): the
// JSON typed in the dispatcher is posted to /api/sessions/{id}/dispatch, which decodes it as
// the domain's action and sends it to the app, whose store reduces and records it. As in
// Redux DevTools' dispatcher, the actions sent last are offered again (per domain, in the
// browser's storage).
import { api } from './api.js';

const $ = (id) => document.getElementById(id);
const KEEP = 10;

function historyKey(domain) { return `retrace.dispatch.${domain}`; }

export function recentActions(domain) {
  try {
    const list = JSON.parse(localStorage.getItem(historyKey(domain)) || '[]');
    return Array.isArray(list) ? list.filter((item) => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function remember(domain, text) {
  const list = [text, ...recentActions(domain).filter((item) => item !== text)].slice(0, KEEP);
  try { localStorage.setItem(historyKey(domain), JSON.stringify(list)); } catch { /* storage full or off */ }
}

// `session()` is the open session, `selectedAction()` the selected action's JSON value (or
// undefined), `report(text, error)` the status line.
export function setUpDispatch({ session, selectedAction, report }) {
  const text = $('dispatch-text');
  const send = async () => {
    const open = session();
    const json = text.value.trim();
    if (!open?.live || !json) return;
    // A line the page can name before the server does.
    try { JSON.parse(json); } catch (error) {
      showError(`not JSON: ${error.message}`);
      return;
    }
    try {
      const answer = await api(`sessions/${encodeURIComponent(open.id)}/dispatch`, {}, null, 'POST', json);
      showError('');
      remember(open.domain, json);
      renderRecent(open);
      report(`sent ${answer.case} to the app`);
    } catch (error) {
      showError(error.message);
    }
  };
  $('dispatch-send').addEventListener('click', send);
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); send(); }
  });
  $('dispatch-selected').addEventListener('click', () => {
    const action = selectedAction();
    if (action !== undefined) text.value = JSON.stringify(action);
    text.focus();
  });
  $('dispatch-recent').addEventListener('change', (event) => {
    if (event.target.value) text.value = event.target.value;
    event.target.value = '';
    text.focus();
  });
}

function showError(message) {
  $('dispatch-error').textContent = message;
  $('dispatch-error').hidden = !message;
}

function renderRecent(open) {
  const recent = recentActions(open.domain);
  const select = $('dispatch-recent');
  select.replaceChildren(new Option(recent.length ? `recent (${recent.length})` : 'recent: none yet', ''),
    ...recent.map((item) => new Option(item.length > 80 ? item.slice(0, 79) + '…' : item, item)));
  select.disabled = !recent.length;
}

// Shown for a live session whose app is connected and takes `dispatch`.
export function renderDispatch(open) {
  const bar = $('dispatch-bar');
  const usable = !!open?.live && open.connected && (open.commands || []).includes('dispatch');
  bar.hidden = !open?.live;
  if (!open?.live) return;
  for (const id of ['dispatch-text', 'dispatch-send', 'dispatch-selected']) $(id).disabled = !usable;
  $('dispatch-text').placeholder = usable ? 'an action as JSON, as the rows show it: {"case":{…}} — Ctrl+Enter sends'
    : open.connected ? 'this app\'s link is older and takes no actions' : 'the app has disconnected';
  if (bar.dataset.domain !== open.domain) { bar.dataset.domain = open.domain; renderRecent(open); showError(''); }
}
