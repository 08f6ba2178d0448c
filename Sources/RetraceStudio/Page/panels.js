// The navigation graph (allowed and observed) and the benchmark's bar chart, drawn as SVG.
const SVG = 'http://www.w3.org/2000/svg';

function el(name, attributes = {}, text = null) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== null) element.textContent = text;
  return element;
}

// The navigation graph, laid out in layers (docs/STUDIO.md, "Navigation"): cycles are
// broken by a depth-first search from the roots (the edges back to a screen on the search's
// path are back edges), every other edge goes one or more layers right (longest-path
// layering, with a waypoint in each layer it crosses), the layers are ordered by barycenter
// sweeps to reduce crossings, back edges run below the graph each in a lane of its own, and
// each count label is put where it overlaps no screen and no other label.
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
  const layout = layoutFlows(nodes, [...edges.values()], roots);
  const svg = el('svg', { width: layout.width, height: layout.height, role: 'img', 'aria-label': 'navigation flow graph' });
  const defs = el('defs');
  for (const [id, color] of [['arrow', '#b7bec6'], ['arrow-observed', '#2f6fde'], ['arrow-refused', '#d33b2f']]) {
    const marker = el('marker', { id, viewBox: '0 0 10 10', refX: 10, refY: 5, markerUnits: 'userSpaceOnUse', markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }));
    defs.append(marker);
  }
  svg.append(defs);
  const onPath = new Set(screens?.screens || []);
  for (const { edge, d, back } of layout.paths) {
    const kind = edge.refused ? 'refused' : edge.observed ? 'observed' : '';
    const path = el('path', { d, class: `flow-edge ${kind}${back ? ' back' : ''}`, 'marker-end': `url(#arrow${kind ? '-' + kind : ''})`,
      'stroke-width': edge.observed ? Math.min(4, 1 + Math.log10(edge.count + 1)) : 1 });
    path.append(el('title', {}, edgeTitle(edge)));
    svg.append(path);
  }
  for (const node of nodes) {
    const { x, y, w, h } = layout.boxes.get(node);
    const group = el('g', { class: `flow-node${onPath.has(node) ? ' on-path' : ''}${screens?.visible === node ? ' visible' : ''}`, transform: `translate(${x},${y})` });
    group.append(el('rect', { width: w, height: h }), el('text', { x: 6, y: 16 }, node));
    svg.append(group);
  }
  for (const { edge, x, y, w, h } of layout.labels) {
    const group = el('g', { class: 'flow-label' });
    group.append(el('rect', { x, y, width: w, height: h, class: 'flow-count-box' }),
      el('text', { x: x + w / 2, y: y + h - 3, class: 'flow-count', 'text-anchor': 'middle' }, String(edge.count)));
    group.append(el('title', {}, edgeTitle(edge)));
    svg.append(group);
  }
  container.replaceChildren(svg);
}

function edgeTitle(edge) {
  return `${edge.from} → ${edge.to} (${edge.kind})${edge.observed ? `, seen ${edge.count}×` : ', allowed, not seen'}${edge.refused ? ', refused' : ''}`;
}

const BOX_H = 24, ROW_H = 46, GAP = 84, LANE = 9, MARGIN = 20, LABEL_H = 13;
// Forward edges leave and arrive around a little above a screen's middle (spread over 12
// px), back edges below it, each at a height of its own.
const FORWARD_PORT = -3, BACK_PORT = 5;

// Positions for the graph: `boxes` (node → {x, y, w, h}), `paths` ({edge, d, back}),
// `labels` ({edge, x, y, w, h}) and the drawing's `width` and `height`.
export function layoutFlows(nodes, edges, roots) {
  const boxWidth = (name) => Math.max(60, Math.ceil(name.length * 6.6) + 14);
  // Depth-first from the roots (then from any screen not reached): an edge to a screen still
  // on the search's path closes a cycle and is a back edge. Pushes and presents are tried
  // before pops and dismisses, so that the edges that go back are the ones drawn back.
  const out = new Map(nodes.map((n) => [n, []]));
  for (const edge of edges) if (edge.from !== edge.to && out.has(edge.from) && out.has(edge.to)) out.get(edge.from).push(edge);
  const returning = (edge) => edge.kind === 'pop' || edge.kind === 'dismiss';
  for (const list of out.values()) list.sort((a, b) => returning(a) - returning(b));
  const back = new Set(), seen = new Set(), onStack = new Set(), discovery = [];
  for (const start of [...roots.filter((r) => out.has(r)), ...nodes]) {
    if (seen.has(start)) continue;
    const stack = [[start, 0]];
    seen.add(start); onStack.add(start); discovery.push(start);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const list = out.get(top[0]);
      if (top[1] === list.length) { onStack.delete(top[0]); stack.pop(); continue; }
      const edge = list[top[1]++];
      if (onStack.has(edge.to)) back.add(edge);
      else if (!seen.has(edge.to)) { seen.add(edge.to); onStack.add(edge.to); discovery.push(edge.to); stack.push([edge.to, 0]); }
    }
  }
  const forward = edges.filter((e) => e.from !== e.to && out.has(e.from) && out.has(e.to) && !back.has(e));
  // Longest-path layering over the forward edges, in topological order.
  const layer = new Map(nodes.map((n) => [n, 0]));
  const indegree = new Map(nodes.map((n) => [n, 0]));
  for (const e of forward) indegree.set(e.to, indegree.get(e.to) + 1);
  const ready = nodes.filter((n) => indegree.get(n) === 0);
  while (ready.length) {
    const node = ready.shift();
    for (const e of forward) {
      if (e.from !== node) continue;
      layer.set(e.to, Math.max(layer.get(e.to), layer.get(node) + 1));
      indegree.set(e.to, indegree.get(e.to) - 1);
      if (indegree.get(e.to) === 0) ready.push(e.to);
    }
  }
  const layerCount = Math.max(0, ...layer.values()) + 1;
  // Each layer's items: screens, and a waypoint for every forward edge that crosses it.
  const order = Array.from({ length: layerCount }, () => []);
  const rank = new Map(discovery.map((n, i) => [n, i]));
  for (const node of [...nodes].sort((a, b) => rank.get(a) - rank.get(b))) order[layer.get(node)].push({ node });
  const chains = new Map();
  const links = [];
  for (const e of forward) {
    let previous = { node: e.from };
    const item = (n) => order[layer.get(n)].find((i) => i.node === n);
    previous = item(e.from);
    const chain = [previous];
    for (let l = layer.get(e.from) + 1; l < layer.get(e.to); l++) {
      const waypoint = { edge: e };
      order[l].push(waypoint);
      links.push([previous, waypoint]);
      chain.push(waypoint);
      previous = waypoint;
    }
    const target = item(e.to);
    links.push([previous, target]);
    chain.push(target);
    chains.set(e, chain);
  }
  // Barycenter sweeps, down then up, keeping the order with the fewest crossings.
  const position = new Map();
  const place = () => order.forEach((items) => items.forEach((item, i) => position.set(item, i)));
  const up = new Map(), down = new Map();
  for (const [a, b] of links) {
    (down.get(a) || down.set(a, []).get(a)).push(b);
    (up.get(b) || up.set(b, []).get(b)).push(a);
  }
  // Links between the same two layers cross when their ends are in opposite orders.
  const itemLayer = new Map();
  order.forEach((items, l) => items.forEach((item) => itemLayer.set(item, l)));
  const linksByLayer = order.map(() => []);
  for (const link of links) linksByLayer[itemLayer.get(link[0])].push(link);
  const crossings = () => {
    let count = 0;
    for (const group of linksByLayer) {
      for (let i = 0; i < group.length; i++) {
        for (let j = i + 1; j < group.length; j++) {
          const [a, b] = group[i], [c, d] = group[j];
          if (a === c || b === d) continue;
          if ((position.get(a) - position.get(c)) * (position.get(b) - position.get(d)) < 0) count++;
        }
      }
    }
    return count;
  };
  place();
  let best = order.map((items) => [...items]), fewest = crossings();
  for (let sweep = 0; sweep < 12 && fewest > 0; sweep++) {
    const downward = sweep % 2 === 0;
    const layers = downward ? order.slice(1) : order.slice(0, -1).reverse();
    for (const items of layers) {
      const neighbours = downward ? up : down;
      const center = new Map(items.map((item) => {
        const others = neighbours.get(item) || [];
        return [item, others.length ? others.reduce((sum, o) => sum + position.get(o), 0) / others.length : position.get(item)];
      }));
      items.sort((a, b) => center.get(a) - center.get(b));
      items.forEach((item, i) => position.set(item, i));
    }
    const count = crossings();
    if (count < fewest) { fewest = count; best = order.map((items) => [...items]); }
  }
  order.splice(0, order.length, ...best);
  place();
  // Columns: as wide as their widest screen, with gaps wide enough for the back edges' lanes.
  const backList = [...back].sort((a, b) => (layer.get(a.from) - layer.get(a.to)) - (layer.get(b.from) - layer.get(b.to)));
  const laneOut = new Array(layerCount).fill(0), laneIn = new Array(layerCount).fill(0);
  for (const e of backList) { laneOut[layer.get(e.from)]++; laneIn[layer.get(e.to)]++; }
  const columnWidth = order.map((items) => Math.max(60, ...items.filter((i) => i.node).map((i) => boxWidth(i.node))));
  const columnX = [];
  let x = MARGIN + (laneIn[0] ? laneIn[0] * LANE + 10 : 0);
  for (let l = 0; l < layerCount; l++) {
    columnX.push(x);
    x += columnWidth[l] + Math.max(GAP, 24 + LANE * (laneOut[l] + (laneIn[l + 1] || 0)));
  }
  const tallest = Math.max(1, ...order.map((items) => items.length));
  const boxes = new Map();
  const point = new Map();
  order.forEach((items, l) => {
    const top = MARGIN + ((tallest - items.length) * ROW_H) / 2;
    items.forEach((item, i) => {
      const y = top + i * ROW_H;
      if (item.node) boxes.set(item.node, { x: columnX[l], y, w: boxWidth(item.node), h: BOX_H });
      point.set(item, { x: columnX[l], y: y + BOX_H / 2, right: columnX[l] + (item.node ? boxWidth(item.node) : columnWidth[l]) });
    });
  });
  // Ports: a screen's edges leave and arrive spread over its side, in the order of the other
  // ends, so that they do not start or end on one another.
  const ports = (items, key) => {
    const groups = new Map();
    for (const item of items) (groups.get(item[key]) || groups.set(item[key], []).get(item[key])).push(item);
    for (const group of groups.values()) {
      group.sort((a, b) => a.other - b.other);
      group.forEach((item, i) => { item.offset = group.length > 1 ? (i - (group.length - 1) / 2) * Math.min(6, 12 / (group.length - 1)) : 0; });
    }
  };
  const ends = forward.map((e) => {
    const chain = chains.get(e);
    return { e, from: e.from, to: e.to, out: { from: e.from, other: point.get(chain[1]).y }, in: { to: e.to, other: point.get(chain[chain.length - 2]).y } };
  });
  ports(ends.map((x) => x.out), 'from');
  ports(ends.map((x) => x.in), 'to');
  const paths = [];
  const segments = new Map();
  // Points along every edge, every few pixels: a label is put where none falls.
  const samples = [];
  const sampleLine = (x1, y1, x2, y2) => {
    const n = Math.max(1, Math.ceil(Math.hypot(x2 - x1, y2 - y1) / 4));
    for (let i = 0; i <= n; i++) samples.push([x1 + ((x2 - x1) * i) / n, y1 + ((y2 - y1) * i) / n]);
  };
  for (const { e, out: o, in: i } of ends) {
    const chain = chains.get(e);
    const points = [];
    chain.forEach((item, k) => {
      const p = point.get(item);
      if (k === 0) points.push([p.right, p.y + FORWARD_PORT + o.offset]);
      else if (k === chain.length - 1) points.push([p.x, p.y + FORWARD_PORT + i.offset]);
      else points.push([p.x, p.y], [p.right, p.y]);
    });
    let d = `M${points[0][0]},${points[0][1]}`;
    for (let k = 1; k < points.length; k++) {
      const [x1, y1] = points[k - 1], [x2, y2] = points[k];
      if (y1 === y2) { d += ` L${x2},${y2}`; sampleLine(x1, y1, x2, y2); continue; }
      const dx = (x2 - x1) / 2;
      d += ` C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
      for (let t = 0; t <= 1; t += 1 / 32) {
        const u = 1 - t;
        samples.push([u * u * u * x1 + 3 * u * u * t * (x1 + dx) + 3 * u * t * t * (x2 - dx) + t * t * t * x2,
          u * u * u * y1 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y2]);
      }
    }
    paths.push({ edge: e, d, back: false });
    segments.set(e, { x1: points[0][0], y1: points[0][1], x2: points[1][0], y2: points[1][1] });
  }
  // Back edges: out of the source's right side into the gap after its column, down to a lane
  // of their own below the graph, left to the gap before the target's column, up, and into
  // the target's left side. Each has its own vertical lane in each gap and its own
  // horizontal lane below.
  const bottom = MARGIN + tallest * ROW_H;
  const usedOut = new Array(layerCount).fill(0), usedIn = new Array(layerCount).fill(0);
  const backLanes = [];
  const backPorts = (key) => {
    const groups = new Map();
    backList.forEach((e, k) => (groups.get(e[key]) || groups.set(e[key], []).get(e[key])).push(k));
    const offset = new Map();
    for (const lanes of groups.values()) lanes.forEach((k, i) => offset.set(k, lanes.length > 1 ? i * Math.min(3, 6 / (lanes.length - 1)) : 0));
    return offset;
  };
  const leaving = backPorts('from'), arriving = backPorts('to');
  backList.forEach((e, k) => {
    const from = boxes.get(e.from), to = boxes.get(e.to);
    const lf = layer.get(e.from), lt = layer.get(e.to);
    const outX = columnX[lf] + columnWidth[lf] + 12 + LANE * usedOut[lf]++;
    const inX = columnX[lt] - 12 - LANE * usedIn[lt]++;
    const laneY = bottom + 8 + k * (LABEL_H + 6);
    const y1 = from.y + BOX_H / 2 + BACK_PORT + leaving.get(k), y2 = to.y + BOX_H / 2 + BACK_PORT + arriving.get(k);
    const r = 4;
    const d = `M${from.x + from.w},${y1} H${outX - r} Q${outX},${y1} ${outX},${y1 + r} V${laneY - r} Q${outX},${laneY} ${outX - r},${laneY}` +
      ` H${inX + r} Q${inX},${laneY} ${inX},${laneY - r} V${y2 + r} Q${inX},${y2} ${inX + r},${y2} H${to.x}`;
    paths.push({ edge: e, d, back: true });
    sampleLine(from.x + from.w, y1, outX, y1); sampleLine(outX, y1, outX, laneY); sampleLine(outX, laneY, inX, laneY);
    sampleLine(inX, laneY, inX, y2); sampleLine(inX, y2, to.x, y2);
    segments.set(e, { x1: inX, y1: laneY, x2: outX, y2: laneY, lane: true });
    backLanes.push(laneY);
  });
  // Self-loops: an arc over the screen's right end.
  for (const e of edges.filter((e) => e.from === e.to && boxes.has(e.from))) {
    const b = boxes.get(e.from);
    const x1 = b.x + b.w - 24, x2 = b.x + b.w - 8;
    paths.push({ edge: e, d: `M${x1},${b.y} C${x1},${b.y - 16} ${x2},${b.y - 16} ${x2},${b.y}`, back: false });
    segments.set(e, { x1, y1: b.y - 12, x2, y2: b.y - 12 });
    sampleLine(x1, b.y, x1, b.y - 12); sampleLine(x1, b.y - 12, x2, b.y - 12); sampleLine(x2, b.y - 12, x2, b.y);
  }
  // Count labels: the first place along the edge (its middle first) that overlaps no screen
  // and no label placed before; failing that, below the graph, clear of everything.
  const taken = [...boxes.values()].map((b) => ({ x: b.x - 2, y: b.y - 2, w: b.w + 4, h: b.h + 4 }));
  const overlaps = (a) => taken.some((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h);
  // The samples by 16-pixel cell, so that a box looks only at the cells it covers.
  const CELL = 16, cells = new Map();
  for (const sample of samples) {
    const key = `${Math.floor(sample[0] / CELL)},${Math.floor(sample[1] / CELL)}`;
    (cells.get(key) || cells.set(key, []).get(key)).push(sample);
  }
  const crossed = (a) => {
    for (let cx = Math.floor((a.x - 1) / CELL); cx <= Math.floor((a.x + a.w + 1) / CELL); cx++) {
      for (let cy = Math.floor((a.y - 1) / CELL); cy <= Math.floor((a.y + a.h + 1) / CELL); cy++) {
        if ((cells.get(`${cx},${cy}`) || []).some(([px, py]) => px > a.x - 1 && px < a.x + a.w + 1 && py > a.y - 1 && py < a.y + a.h + 1)) return true;
      }
    }
    return false;
  };
  const labels = [];
  for (const e of edges) {
    if (!e.observed || !segments.has(e)) continue;
    const s = segments.get(e);
    const w = String(e.count).length * 6.5 + 6, h = LABEL_H;
    let spot = null;
    // Clear of every edge first; then clear of screens and labels only, on its own edge.
    for (const clear of [(box) => !overlaps(box) && !crossed(box), (box) => !overlaps(box)]) {
      for (const t of [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9]) {
        const cx = s.x1 + (s.x2 - s.x1) * t, cy = s.y1 + (s.y2 - s.y1) * t;
        for (const dy of [-h - 2, 2, -2 * h - 4, h + 4, -3 * h - 6, 2 * h + 6]) {
          const box = { x: cx - w / 2, y: cy + dy, w, h };
          if (clear(box)) { spot = box; break; }
        }
        if (spot) break;
      }
      if (spot) break;
    }
    if (!spot) {
      spot = { x: s.x1, y: bottom + 8 + backLanes.length * (LABEL_H + 6), w, h };
      while (overlaps(spot)) spot.y += h + 2;
    }
    taken.push(spot);
    labels.push({ edge: e, ...spot });
  }
  const width = Math.max(MARGIN * 2, ...taken.map((b) => b.x + b.w + MARGIN), ...columnX.map((cx, l) => cx + columnWidth[l] + GAP));
  const height = Math.max(MARGIN * 2 + BOX_H, ...taken.map((b) => b.y + b.h + MARGIN), ...backLanes.map((y) => y + MARGIN));
  return { boxes, paths, labels, width, height };
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
