// The navigation graph (allowed and observed) and the benchmark's bar chart, drawn as SVG.
const SVG = 'http://www.w3.org/2000/svg';

function el(name, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== null) element.textContent = text;
  return element;
}

// Layers by breadth-first distance from the roots over the allowed and observed edges.
export function drawFlows(container, flows, screens) {
  const { allowed, observed } = flows;
  const nodes = [...new Set([...allowed.nodes, ...observed.nodes])];
  const edges = new Map();
  for (const edge of allowed.edges) edges.set(`${edge.from}>${edge.to}>${edge.kind}`, { ...edge, allowed: true, count: 0 });
  for (const edge of observed.edges) {
    const key = `${edge.from}>${edge.to}>${edge.kind}`;
    const known = edges.get(key);
    edges.set(key, { ...(known || edge), allowed: !!known, observed: true, refused: edge.refused, count: edge.count });
  }
  const roots = allowed.roots.length ? allowed.roots : nodes.slice(0, 1);
  const depth = new Map(roots.map((root) => [root, 0]));
  const queue = [...roots];
  while (queue.length) {
    const node = queue.shift();
    for (const edge of edges.values()) {
      if (edge.from === node && !depth.has(edge.to) && edge.kind !== 'pop' && edge.kind !== 'dismiss') {
        depth.set(edge.to, depth.get(node) + 1);
        queue.push(edge.to);
      }
    }
  }
  for (const node of nodes) if (!depth.has(node)) depth.set(node, 0);
  const layers = [];
  for (const node of nodes) (layers[depth.get(node)] ||= []).push(node);
  const width = 150, height = 44, boxW = 110, boxH = 24;
  const position = new Map();
  layers.forEach((layer, x) => layer.forEach((node, y) => position.set(node, { x: 20 + x * width, y: 20 + y * height })));
  const svg = el('svg', {
    width: 40 + layers.length * width,
    height: 40 + Math.max(...layers.map((l) => l.length)) * height,
    role: 'img', 'aria-label': 'navigation flow graph',
  });
  const defs = el('defs');
  for (const [id, color] of [['arrow', '#b7bec6'], ['arrow-observed', '#2f6fde'], ['arrow-refused', '#d33b2f']]) {
    const marker = el('marker', { id, viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }));
    defs.append(marker);
  }
  svg.append(defs);
  const onPath = new Set(screens?.screens || []);
  for (const edge of edges.values()) {
    const from = position.get(edge.from), to = position.get(edge.to);
    if (!from || !to) continue;
    const x1 = from.x + boxW, y1 = from.y + boxH / 2;
    const x2 = to.x, y2 = to.y + boxH / 2;
    const back = x2 <= x1;
    const d = back
      ? `M${from.x + boxW / 2},${from.y + boxH} C${from.x + boxW / 2},${from.y + boxH + 30} ${to.x + boxW / 2},${to.y + boxH + 30} ${to.x + boxW / 2},${to.y + boxH}`
      : `M${x1},${y1} C${x1 + 30},${y1} ${x2 - 30},${y2} ${x2},${y2}`;
    const kind = edge.refused ? 'refused' : edge.observed ? 'observed' : '';
    const path = el('path', { d, class: `flow-edge ${kind}`, 'marker-end': `url(#arrow${kind ? '-' + kind : ''})`,
      'stroke-width': edge.observed ? Math.min(4, 1 + Math.log10(edge.count + 1)) : 1 });
    path.append(el('title', {}, `${edge.from} → ${edge.to} (${edge.kind})${edge.observed ? `, seen ${edge.count}×` : ', allowed, not seen'}${edge.refused ? ', refused' : ''}`));
    svg.append(path);
    if (edge.observed && !back) svg.append(el('text', { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, class: 'flow-count' }, String(edge.count)));
  }
  for (const node of nodes) {
    const { x, y } = position.get(node);
    const group = el('g', { class: `flow-node${onPath.has(node) ? ' on-path' : ''}${screens?.visible === node ? ' visible' : ''}`, transform: `translate(${x},${y})` });
    group.append(el('rect', { width: boxW, height: boxH }), el('text', { x: 6, y: 16 }, node));
    svg.append(group);
  }
  container.replaceChildren(svg);
}

// One bar per action case: median nanoseconds per action, with the 99th percentile behind.
export function drawBench(container, report) {
  const cases = report.cases;
  const max = Math.max(1, ...cases.map((c) => c.p99Nanoseconds));
  const rowH = 22, labelW = 160, barW = 420;
  const svg = el('svg', { width: labelW + barW + 120, height: cases.length * rowH + 10, role: 'img', 'aria-label': 'reducer cost per action case' });
  cases.forEach((c, i) => {
    const y = i * rowH + 4;
    svg.append(el('text', { x: 0, y: y + 14, 'font-size': 12 }, c.name));
    svg.append(el('rect', { x: labelW, y, width: Math.max(1, (c.p99Nanoseconds / max) * barW), height: 16, class: 'bar99' }));
    svg.append(el('rect', { x: labelW, y, width: Math.max(1, (c.p50Nanoseconds / max) * barW), height: 16, class: 'bar' }));
    svg.append(el('text', { x: labelW + barW + 6, y: y + 14, 'font-size': 11 },
      `${c.p50Nanoseconds.toFixed(0)} / ${c.p99Nanoseconds.toFixed(0)} ns × ${c.count}`));
  });
  container.replaceChildren(svg);
}
