import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The folders of src/ form a ladder (README, "Architecture"; .dependency-cruiser.cjs states it).
// These tests read dependency-cruiser's own output: the real tree has no folder cycle, and an import up
// the ladder fails `npm run lint:imports` with a message that names the rung.

const ROOT = path.resolve(__dirname, '..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
/** Bottom to top; the server rung is the files directly in src/. */
const RUNGS = ['foundation', 'platform', 'modules', 'schema', 'doors', 'http'] as const;

interface Cruise {
  modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
}

function depcruise(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(DEPCRUISE, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The top-level part of src/ a file belongs to: its folder, or "(server)" for the files directly in src/. */
function partOf(file: string): string | undefined {
  if (!file.startsWith('src/')) return undefined;
  const segments = file.slice('src/'.length).split('/');
  return segments.length === 1 ? '(server)' : segments[0];
}

/** Folder-to-folder edges that lie on a cycle (b reaches a back), with the imports that make them. */
function folderCycles(cruise: Cruise): string[] {
  const edges = new Map<string, Set<string>>();
  for (const module of cruise.modules) {
    const from = partOf(module.source);
    if (from === undefined) continue;
    for (const dependency of module.dependencies) {
      const to = partOf(dependency.resolved);
      if (to === undefined || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (next === goal) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(edges.get(next) ?? []));
    }
    return false;
  };
  const cycles: string[] = [];
  for (const [from, targets] of edges) for (const to of targets) if (reaches(to, from)) cycles.push(`${from} -> ${to}`);
  return cycles;
}

test('no folder of src/ reaches a folder that reaches it back (type-only imports included)', async () => {
  const { code, stdout, stderr } = await depcruise(ROOT, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json']);
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  const cruise = JSON.parse(stdout) as Cruise;
  const parts = new Set(cruise.modules.map((module) => partOf(module.source)).filter((part) => part !== undefined));
  // Every part of src/ is a rung: a new top-level folder has to be placed on the ladder first.
  expect([...parts].sort()).toEqual(['(server)', ...RUNGS].sort());
  expect(folderCycles(cruise)).toEqual([]);
});

test('the cycle check finds a folder cycle when there is one', () => {
  const cruise: Cruise = {
    modules: [
      { source: 'src/platform/a.ts', dependencies: [{ resolved: 'src/modules/b.ts' }] },
      { source: 'src/modules/b.ts', dependencies: [{ resolved: 'src/platform/c.ts' }] },
      { source: 'src/server.ts', dependencies: [{ resolved: 'src/http/d.ts' }] },
    ],
  };
  expect(folderCycles(cruise).sort()).toEqual(['modules -> platform', 'platform -> modules']);
});

describe('an import up the ladder fails lint:imports, naming the rung', () => {
  let directory: string;

  beforeAll(() => {
    // A small tree with the project's rules: each rung imports the rung above it (and the server file).
    directory = mkdtempSync(path.join(os.tmpdir(), 'ladder-'));
    copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(directory, '.dependency-cruiser.cjs'));
    writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true }, include: ['src'] }));
    writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ name: 'ladder', private: true }));
    RUNGS.forEach((rung, index) => {
      mkdirSync(path.join(directory, 'src', rung), { recursive: true });
      const above = RUNGS[index + 1];
      const target = above === undefined ? '../server' : `../${above}/upper`;
      writeFileSync(path.join(directory, 'src', rung, 'upper.ts'), 'export const upper = 1;\n');
      writeFileSync(path.join(directory, 'src', rung, 'upward.ts'), `import { upper } from '${target}';\nexport const upward = upper;\n`);
    });
    writeFileSync(path.join(directory, 'src', 'server.ts'), 'export const upper = 1;\n');
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  test('every rung that imports the rung above it is an error of its own rule', async () => {
    const { code, stdout } = await depcruise(directory, ['src', '--config', '.dependency-cruiser.cjs']);
    expect(code).not.toBe(0);
    for (const [index, rung] of RUNGS.entries()) {
      const above = RUNGS[index + 1];
      const target = above === undefined ? 'src/server.ts' : `src/${above}/upper.ts`;
      expect(stdout).toContain(`error ladder-${rung}: src/${rung}/upward.ts → ${target}`);
    }
    // Nothing else: the downward files (upper.ts) are fine.
    expect(stdout).toMatch(new RegExp(`${RUNGS.length} dependency violations \\(${RUNGS.length} errors`));
  });
});

test('a file-level cycle fails lint:imports with its explanation, even one closed by a type-only import', async () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'cycle-'));
  try {
    copyFileSync(path.join(ROOT, '.dependency-cruiser.cjs'), path.join(directory, '.dependency-cruiser.cjs'));
    writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true }, include: ['src'] }));
    writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ name: 'cycle', private: true }));
    mkdirSync(path.join(directory, 'src', 'modules'), { recursive: true });
    writeFileSync(path.join(directory, 'src', 'modules', 'a.ts'), "import type { B } from './b';\nexport interface A { b?: B }\n");
    writeFileSync(path.join(directory, 'src', 'modules', 'b.ts'), "import type { A } from './a';\nexport interface B { a?: A }\n");
    // The arguments of `npm run lint:imports`, on this tree.
    const { code, stdout } = await depcruise(directory, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err-long']);
    expect(code).not.toBe(0);
    expect(stdout).toContain('error no-circular: src/modules/a.ts');
    expect(stdout).toMatch(/No file reaches itself through its imports/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
