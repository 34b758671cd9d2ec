import { describe, expect, it } from 'vitest';
import { invokedFrom } from './invoked-from.js';

describe('npm run harness-s', () => {
  it('reads paths from the folder npm was run from, and only for its own script', () => {
    expect(invokedFrom({ npm_lifecycle_event: 'harness-s', INIT_CWD: '/home/me/bench' })).toBe('/home/me/bench');
    // npm start, npm test and a plain node or npx run keep their working folder.
    expect(invokedFrom({ npm_lifecycle_event: 'start', INIT_CWD: '/home/me/bench' })).toBeUndefined();
    expect(invokedFrom({ npm_lifecycle_event: 'test', INIT_CWD: '/home/me/bench' })).toBeUndefined();
    expect(invokedFrom({ INIT_CWD: '/home/me/bench' })).toBeUndefined();
    expect(invokedFrom({ npm_lifecycle_event: 'harness-s', INIT_CWD: '' })).toBeUndefined();
  });
});
