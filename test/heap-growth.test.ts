import v8 from 'node:v8';
import { disablePretenuring, HEAP_GROWING_PERCENT, heapGrowingPercent, limitHeapGrowth } from '../src/foundation/heap-growth';

// V8's flags are process-wide: every case only records what would be set.
let setFlags: jest.SpyInstance;
beforeEach(() => {
  setFlags = jest.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
});
afterEach(() => setFlags.mockRestore());

describe('the server limits V8 heap growth (docs/operating.md, Memory)', () => {
  it('sets --heap-growing-percent to its default when nothing chose it', () => {
    limitHeapGrowth([], {});
    expect(setFlags).toHaveBeenCalledWith(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });

  it('takes HEAP_GROWING_PERCENT from the environment', () => {
    limitHeapGrowth([], { HEAP_GROWING_PERCENT: '250' });
    expect(setFlags).toHaveBeenCalledWith('--heap-growing-percent=250');
  });

  it.each([
    ['HEAP_GROWING_PERCENT=0 (V8 decides)', [], { HEAP_GROWING_PERCENT: '0' }],
    ['a node flag', ['--heap-growing-percent=300'], {}],
    ['a node flag with underscores', ['--heap_growing_percent=50'], {}],
  ])('leaves V8 alone for %s', (_name, execArgv, env) => {
    limitHeapGrowth(execArgv, env);
    expect(setFlags).not.toHaveBeenCalled();
  });

  it('keeps unrelated node flags from counting as a choice', () => {
    limitHeapGrowth(['--enable-source-maps', '--max-old-space-size=512'], {});
    expect(setFlags).toHaveBeenCalledTimes(1);
  });

  it.each(['-5', '1.5', 'lots', '1001'])('refuses HEAP_GROWING_PERCENT=%s with a clear message', (value) => {
    expect(() => heapGrowingPercent({ HEAP_GROWING_PERCENT: value })).toThrow(/HEAP_GROWING_PERCENT must be an integer from 0 to 1000/);
  });
});

describe('the server turns off V8 allocation-site pretenuring (docs/operating.md, Memory)', () => {
  it('sets --no-allocation-site-pretenuring when no node flag chose', () => {
    disablePretenuring([]);
    expect(setFlags).toHaveBeenCalledWith('--no-allocation-site-pretenuring');
  });

  it.each(['--allocation-site-pretenuring', '--no-allocation-site-pretenuring', '--allocation_site_pretenuring'])('leaves it to the node flag %s', (flag) => {
    disablePretenuring([flag]);
    expect(setFlags).not.toHaveBeenCalled();
  });
});
