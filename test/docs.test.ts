import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The docs a newcomer reads stay a front door and stay true to the code: the README small, every
// relative link landing on a file and heading that exist, every setting the service reads in
// docs/configuration.md, one file per decision with its status and date, and comments in src/ that
// name decisions (D17) rather than issue numbers. Reads files only: no database, no server.

const ROOT = path.join(__dirname, '..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => path.join(dir, name));
}

const markdown = ['README.md', ...filesUnder('docs', '.md')];

/** What GitHub makes of a heading as its anchor. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function withoutCodeBlocks(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutCodeBlocks(read(file)).matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(match[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('the docs', () => {
  it('README.md stays under 15 kB', () => {
    expect(statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(15_000);
  });

  it('every relative link of README.md and docs/ reaches a file, and its heading when it names one', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      for (const [, link] of withoutCodeBlocks(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(link)) continue;
        const [target, anchor] = link.split('#');
        const resolved = target === '' ? file : path.join(path.dirname(file), target);
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/configuration.md names every environment variable the service reads', () => {
    const names = new Set<string>();
    for (const file of filesUnder('src', '.ts')) {
      for (const line of read(file).split('\n')) {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
        for (const [, name] of line.matchAll(/\b(?:integer|optional|flag|duration|dashboardWhole)\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add(name);
        for (const [, name] of line.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(name);
      }
    }
    expect(names.size).toBeGreaterThan(40);
    const configuration = read('docs/configuration.md');
    expect([...names].filter((name) => !configuration.includes(name))).toEqual([]);
  });

  it('docs/decisions/ holds D1 … D31, one file each, with its status and date, listed in its index', () => {
    const files = readdirSync(path.join(ROOT, 'docs/decisions')).filter((name) => /^D\d+-.+\.md$/.test(name));
    const numbers = files.map((name) => Number(/^D(\d+)-/.exec(name)![1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 31 }, (_, index) => index + 1));
    const index = read('docs/decisions/README.md');
    for (const name of files) {
      const lines = read(`docs/decisions/${name}`).split('\n');
      expect(lines[0]).toMatch(new RegExp(`^# ${name.split('-')[0]} `));
      expect(lines[2]).toMatch(/^- Status: (Accepted|Superseded|Rejected)/);
      expect(lines[3]).toMatch(/^- Date: \d{4}-\d{2}-\d{2}/);
      expect(index).toContain(`(${name})`);
    }
    expect(existsSync(path.join(ROOT, 'docs/decisions.md'))).toBe(false);
  });

  it('comments in src/ name decisions, not issue numbers', () => {
    const found: string[] = [];
    for (const file of filesUnder('src', '.ts')) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          if (/\bissues? (#?\d|#)/i.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
