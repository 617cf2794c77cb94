// The three-part scoresheet drawn as players draw it on paper (the "bullet", пуля): a sheet
// divided from its centre into one sector per player, the player at the bottom being the one
// who holds the sheet. Each sector has three bands: gora (the mountain) next to the centre,
// the pool outside it, the whists on the outer edge, split into one part per opponent (the
// whists this player wrote on that one). The centre circle holds the pool target. Numbers are
// written as players write them, as running totals ("2.6.10"), the last one being the total.
//
// DOM contract: `scoresheet` holds, per seat (`data-seat`), one `pool`, one `gora` and one
// `whists` element; `pool`/`gora` hold the total as text and in `data-value`; `whists` holds
// `whists-on` elements (`data-on` the seat written on, the number as text and `data-value`) and
// the sum in `data-value`.
import { h, svg } from './dom';
import { whistsText } from './cards';

export interface SheetRow {
  pool: number;
  gora: number;
  whists: number[]; // by seat written on (0 on oneself)
}

export interface SheetData {
  seats: number;
  bottom: number; // the seat drawn at the bottom (the viewer's, else 0)
  names: string[]; // by seat
  poolTarget: number;
  totals: SheetRow[]; // by seat
  deals: SheetRow[][]; // each scored deal's entries, by seat (for the running totals)
  settlement: string[]; // by account, once the game is over
  accounts: string[]; // the player of each account (Scoresheet.accounts), for the settlement
}

const W = 180; // half width of the sheet
const H = 150; // half height
const M = 20; // margin for the names
const BANDS = { gora: [0.2, 0.46], pool: [0.46, 0.72], whists: [0.72, 1] } as const;
const CHAR = 7.6; // approximate width of a character at the sheet's font size

type Point = [number, number];

function hit(angle: number, scale: number): { p: Point; edge: 'top' | 'bottom' | 'left' | 'right' } {
  const dx = Math.cos(angle);
  const dy = Math.sin(angle);
  const tx = Math.abs(dx) < 1e-9 ? Infinity : (W * scale) / Math.abs(dx);
  const ty = Math.abs(dy) < 1e-9 ? Infinity : (H * scale) / Math.abs(dy);
  const t = Math.min(tx, ty);
  const edge = tx < ty ? (dx < 0 ? 'left' : 'right') : dy < 0 ? 'top' : 'bottom';
  return { p: [t * dx, t * dy], edge };
}

// The boundaries of each sector, clockwise (screen angles grow clockwise since y grows
// downwards): sector k (k places clockwise of the bottom player) spans [b[k], b[k + 1]].
// Three players: the classic sheet, lines from the centre to the two bottom corners and up.
function boundaries(n: number): number[] {
  if (n === 3) {
    const corner = Math.atan2(H, W);
    return [corner, Math.PI - corner, 1.5 * Math.PI, corner + 2 * Math.PI];
  }
  const out: number[] = [];
  for (let k = 0; k <= n; k++) out.push(Math.PI / 2 + (2 * Math.PI * k) / n - Math.PI / n);
  return out;
}

function rotationOf(edge: string): number {
  return edge === 'left' ? -90 : edge === 'right' ? 90 : 0;
}

// Running totals of one column: the values after each deal that wrote something.
export function running(values: number[]): number[] {
  const out: number[] = [];
  let sum = 0;
  for (const v of values) {
    if (v === 0) continue;
    sum += v;
    out.push(sum);
  }
  return out;
}

// The history before the total ("2.6." for 2, 6, 10), cut from the left to `room` characters.
export function historyText(history: number[], total: number, room: number): string {
  const earlier = history.length && history[history.length - 1] === total ? history.slice(0, -1) : history;
  let text = earlier.map((v) => `${v}.`).join('');
  const limit = Math.max(0, room - String(total).length);
  if (text.length > limit) text = `…${text.slice(text.length - limit + 1)}`;
  return limit > 1 ? text : '';
}

function numberText(
  x: number,
  y: number,
  rotate: number,
  history: string,
  total: number,
  cell: Record<string, string | number>,
): SVGElement {
  return svg(
    'text',
    {
      x: x.toFixed(1),
      y: y.toFixed(1),
      transform: rotate ? `rotate(${rotate} ${x.toFixed(1)} ${y.toFixed(1)})` : null,
      'text-anchor': 'middle',
      'dominant-baseline': 'middle',
      class: 'sheet-number',
    },
    history ? svg('tspan', { class: 'hist' }, history) : null,
    svg('tspan', { class: total === 0 ? 'total zero' : 'total', 'data-value': total, ...cell }, String(total)),
  );
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

export function scoresheetEl(data: SheetData): HTMLElement {
  const n = data.seats;
  const b = boundaries(n);
  const root = svg('svg', {
    viewBox: `${-W - M} ${-H - M} ${2 * (W + M)} ${2 * (H + M)}`,
    class: 'bullet',
    role: 'img',
    'aria-label': 'scoresheet: pool, gora and whists of each player',
  });
  const lines = svg('g', { class: 'sheet-lines' });
  root.appendChild(lines);
  // The concentric frames of the bands and the centre circle.
  for (const s of [BANDS.gora[1], BANDS.pool[1], 1]) {
    lines.appendChild(svg('rect', { x: -W * s, y: -H * s, width: 2 * W * s, height: 2 * H * s }));
  }
  const r0 = H * BANDS.gora[0];
  lines.appendChild(svg('circle', { cx: 0, cy: 0, r: r0, class: 'centre' }));
  root.appendChild(
    svg('text', { x: 0, y: 0, 'text-anchor': 'middle', 'dominant-baseline': 'middle', class: 'sheet-target' }, String(data.poolTarget || '')),
  );
  // The sector lines from the circle to the edge.
  for (let k = 0; k < n; k++) {
    const a = b[k];
    const outer = hit(a, 1).p;
    lines.appendChild(svg('line', { x1: (r0 * Math.cos(a)).toFixed(1), y1: (r0 * Math.sin(a)).toFixed(1), x2: outer[0].toFixed(1), y2: outer[1].toFixed(1) }));
  }

  const deals = data.deals;
  for (let k = 0; k < n; k++) {
    const seat = (data.bottom + k) % n;
    const a0 = b[k];
    const a1 = b[k + 1];
    const mid = (a0 + a1) / 2;
    const row = data.totals[seat] ?? { pool: 0, gora: 0, whists: [] };
    const group = svg('g', { class: 'sheet-seat', 'data-seat': seat });
    root.appendChild(group);

    for (const part of ['gora', 'pool'] as const) {
      const [s0, s1] = BANDS[part];
      const at = hit(mid, (s0 + s1) / 2);
      const room = Math.floor((distance(hit(a0, (s0 + s1) / 2).p, hit(a1, (s0 + s1) / 2).p) * 0.8) / CHAR);
      const hist = running(deals.map((d) => d[seat]?.[part] ?? 0));
      group.appendChild(
        numberText(at.p[0], at.p[1], rotationOf(at.edge), historyText(hist, row[part], room), row[part], {
          'data-testid': part,
          'data-seat': seat,
        }),
      );
    }

    // Whists: one part per opponent, counter-clockwise neighbour first.
    const whists = svg('g', {
      'data-testid': 'whists',
      'data-seat': seat,
      'data-value': row.whists.reduce((x, y) => x + y, 0),
    });
    group.appendChild(whists);
    const [s0, s1] = BANDS.whists;
    for (let j = 1; j < n; j++) {
      const on = (seat - j + n * 2) % n;
      const from = a0 + ((a1 - a0) * (j - 1)) / (n - 1);
      const to = a0 + ((a1 - a0) * j) / (n - 1);
      if (j > 1) {
        const p0 = hit(from, s0).p;
        const p1 = hit(from, s1).p;
        lines.appendChild(svg('line', { x1: p0[0].toFixed(1), y1: p0[1].toFixed(1), x2: p1[0].toFixed(1), y2: p1[1].toFixed(1), class: 'split' }));
      }
      const at = hit((from + to) / 2, (s0 + s1) / 2);
      const room = Math.floor((distance(hit(from, (s0 + s1) / 2).p, hit(to, (s0 + s1) / 2).p) * 0.8) / CHAR);
      const total = row.whists[on] ?? 0;
      const hist = running(deals.map((d) => d[seat]?.whists[on] ?? 0));
      whists.appendChild(
        numberText(at.p[0], at.p[1], rotationOf(at.edge), historyText(hist, total, room), total, {
          'data-testid': 'whists-on',
          'data-on': on,
          title: `whists ${data.names[seat] ?? seat} wrote on ${data.names[on] ?? on}`,
        }),
      );
    }

    // The player's name outside the sheet.
    const name = hit(mid, 1);
    const nx = name.p[0] + (name.edge === 'left' ? -12 : name.edge === 'right' ? 12 : 0);
    const ny = name.p[1] + (name.edge === 'top' ? -12 : name.edge === 'bottom' ? 14 : 0);
    group.appendChild(
      svg(
        'text',
        {
          x: nx.toFixed(1),
          y: ny.toFixed(1),
          transform: rotationOf(name.edge) ? `rotate(${rotationOf(name.edge)} ${nx.toFixed(1)} ${ny.toFixed(1)})` : null,
          'text-anchor': 'middle',
          'dominant-baseline': 'middle',
          class: 'sheet-name',
        },
        data.names[seat] || `seat ${seat}`,
      ),
    );
  }

  const legend = h(
    'p',
    { class: 'sheet-legend' },
    'Centre: the pool target. From the centre out: gora (mountain), pool, whists on each opponent.',
  );
  const settlement = data.settlement.length
    ? h(
        'div',
        { class: 'settlement', 'data-testid': 'settlement' },
        h('strong', null, 'Settlement (whists): '),
        data.settlement.map((s, i) => h('span', { class: 'settle', 'data-account': i, 'data-value': s }, `${data.accounts[i] || data.names[i] || `account ${i}`} ${whistsText(s)}`)),
      )
    : null;
  return h('div', { class: 'scoresheet', 'data-testid': 'scoresheet' }, root as unknown as Node, legend, settlement);
}
