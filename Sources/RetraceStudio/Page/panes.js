// The dividers between the sidebar, the timeline and the state panel: dragged (or moved with
// the arrow keys when focused), they set the panels' widths, which stay within the window and
// are remembered in localStorage. A double click goes back to the default widths.
const KEY = 'retrace-studio.panes';
// The narrowest each panel may be, and the dividers' width (index.html, studio.css).
const MIN = { sidebar: 160, timeline: 300, state: 340 };
const DIVIDERS = 12;

const main = document.querySelector('main');

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) || '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

let widths = stored();

// The widths clamped to the window: the state panel keeps its minimum, then the timeline.
function clamp({ sidebar, timeline }) {
  // The window's width, not main's: a grid as wide as its columns would never shrink them.
  const room = document.documentElement.clientWidth - DIVIDERS;
  const result = {};
  if (Number.isFinite(sidebar)) {
    result.sidebar = Math.round(Math.max(MIN.sidebar, Math.min(sidebar, room - MIN.timeline - MIN.state)));
  }
  const left = result.sidebar ?? document.getElementById('sidebar').getBoundingClientRect().width;
  if (Number.isFinite(timeline)) {
    result.timeline = Math.round(Math.max(MIN.timeline, Math.min(timeline, room - left - MIN.state)));
  }
  return result;
}

function apply(save = false) {
  const fitted = clamp(widths);
  for (const [name, width] of [['sidebar', fitted.sidebar], ['timeline', fitted.timeline]]) {
    if (width === undefined) main.style.removeProperty(`--${name}-width`);
    else main.style.setProperty(`--${name}-width`, width + 'px');
  }
  if (save) {
    widths = fitted;
    localStorage.setItem(KEY, JSON.stringify(widths));
  }
  // The timeline redraws its rows and swimlanes for its new width.
  window.dispatchEvent(new CustomEvent('panes'));
}

function widthOf(name) {
  return document.getElementById(name === 'sidebar' ? 'sidebar' : 'timeline-panel').getBoundingClientRect().width;
}

function setUp(divider, name) {
  divider.addEventListener('pointerdown', (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    divider.setPointerCapture(event.pointerId);
    divider.classList.add('dragging');
    const startX = event.clientX, startWidth = widthOf(name);
    const move = (moved) => {
      widths = { ...widths, [name]: startWidth + moved.clientX - startX };
      apply();
    };
    const end = () => {
      divider.classList.remove('dragging');
      divider.removeEventListener('pointermove', move);
      divider.removeEventListener('pointerup', end);
      divider.removeEventListener('pointercancel', end);
      apply(true);
    };
    divider.addEventListener('pointermove', move);
    divider.addEventListener('pointerup', end);
    divider.addEventListener('pointercancel', end);
  });
  divider.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: -20, ArrowRight: 20 }[event.key];
    if (!step) return;
    // The arrows resize here; they do not also move the selection.
    event.preventDefault();
    event.stopPropagation();
    widths = { ...widths, [name]: widthOf(name) + step };
    apply(true);
  });
  divider.addEventListener('dblclick', () => {
    const { [name]: _, ...rest } = widths;
    widths = rest;
    apply(true);
  });
}

setUp(document.getElementById('sidebar-divider'), 'sidebar');
setUp(document.getElementById('timeline-divider'), 'timeline');
window.addEventListener('resize', () => apply());
apply();
