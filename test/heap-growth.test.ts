import v8 from 'node:v8';
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from '../src/heap-growth';

describe('the server limits V8 heap growth unless the operator chose it (docs/operating.md, Memory)', () => {
  let setFlags: jest.SpyInstance;
  beforeEach(() => {
    setFlags = jest.spyOn(v8, 'setFlagsFromString').mockImplementation(() => undefined);
  });
  afterEach(() => setFlags.mockRestore());

  it('sets --heap-growing-percent when nothing chose it', () => {
    limitHeapGrowth([], undefined);
    expect(setFlags).toHaveBeenCalledWith(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });

  it.each([
    [['--heap-growing-percent=300'], undefined],
    [['--heap_growing_percent=50'], undefined],
    [[], '--max-semi-space-size=4 --heap-growing-percent=200'],
  ])('leaves V8 alone when the operator set it (execArgv %j, NODE_OPTIONS %j)', (execArgv, nodeOptions) => {
    limitHeapGrowth(execArgv, nodeOptions);
    expect(setFlags).not.toHaveBeenCalled();
  });

  it('keeps unrelated flags from counting as a choice', () => {
    limitHeapGrowth(['--enable-source-maps'], '--max-old-space-size=512');
    expect(setFlags).toHaveBeenCalledTimes(1);
  });
});
