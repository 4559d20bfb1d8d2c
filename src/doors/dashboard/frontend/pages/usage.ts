import { request } from '../api';
import { h, scrollingTable } from '../dom';
import { UsageDocument, type UsageQuery } from '../generated/operations';
import type { Page } from '../page';

const SVG = 'http://www.w3.org/2000/svg';
// Colour-blind-safe palette (Okabe–Ito), dark enough for contrast on white.
const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#8A6D00', '#56B4E9', '#000000'];

function svg(tag: string, attributes: Record<string, string | number>, ...children: Node[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.appendChild(child);
  return element;
}

/** Stacked bars, one a day; the table below it carries the same numbers for screen readers. */
function barChart(title: string, days: string[], series: Array<{ name: string; values: number[] }>, legend: boolean): HTMLElement {
  const width = 700;
  const height = 220;
  const left = 48;
  const bottom = 28;
  const max = Math.max(1, ...days.map((_, day) => series.reduce((sum, one) => sum + one.values[day], 0)));
  const slot = (width - left) / days.length;
  const scale = (value: number) => (value / max) * (height - bottom - 10);
  const bars: Node[] = [];
  days.forEach((day, index) => {
    let y = height - bottom;
    series.forEach((one, position) => {
      const size = scale(one.values[index]);
      if (size <= 0) return;
      y -= size;
      bars.push(svg('rect', { x: left + index * slot + 3, y, width: Math.max(1, slot - 6), height: size, fill: COLORS[position % COLORS.length] }, svg('title', {}, document.createTextNode(`${day} ${one.name}: ${one.values[index]}`))));
    });
    if (index % 2 === 0) bars.push(svg('text', { x: left + index * slot + slot / 2, y: height - 8, 'text-anchor': 'middle', 'font-size': 11 }, document.createTextNode(day.slice(5))));
  });
  const axis = [
    svg('line', { x1: left, x2: width, y1: height - bottom, y2: height - bottom, stroke: '#444' }),
    svg('text', { x: left - 6, y: 16, 'text-anchor': 'end', 'font-size': 11 }, document.createTextNode(String(max))),
    svg('text', { x: left - 6, y: height - bottom, 'text-anchor': 'end', 'font-size': 11 }, document.createTextNode('0')),
  ];
  const total = series.reduce((sum, one) => sum + one.values.reduce((a, b) => a + b, 0), 0);
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}: ${total} in ${days.length} days, at most ${max} a day` }, ...axis, ...bars);
  const legendList = h('ul', { class: 'legend' }, ...series.map((one, position) => h('li', {}, h('span', { class: `swatch swatch-${position % COLORS.length}` }), one.name)));
  return h('figure', { class: 'chart' }, h('figcaption', {}, title), chart, legend ? legendList : null);
}

export const usagePage: Page = {
  path: 'usage',
  title: 'Usage',
  async render(context) {
    const { main } = context;
    const { usage } = await request<UsageQuery, Record<string, never>>(UsageDocument);
    main.append(h('p', { class: 'hint' }, `The last ${usage.days.length} days (UTC), counted per key; updated every few seconds.`));
    const series = usage.keys.map((key) => ({ name: `${key.name} (${key.prefix}…)`, values: key.requests }));
    main.append(
      barChart('Requests a day per key', usage.days, series.length > 0 ? series : [{ name: 'requests', values: usage.days.map(() => 0) }], series.length > 0),
      barChart('Rate-limited requests a day', usage.days, [{ name: 'rate limited', values: usage.rateLimited }], false),
    );
    const rows = usage.days.map((day, index) =>
      h('tr', {}, h('th', { scope: 'row' }, day), ...usage.keys.map((key) => h('td', {}, key.requests[index])), h('td', {}, usage.rateLimited[index])),
    );
    const table = scrollingTable('Usage by day', ['Day', ...usage.keys.map((key) => key.name), 'Rate limited'], rows);
    main.append(h('details', {}, h('summary', {}, 'Numbers as a table'), table));
  },
};
