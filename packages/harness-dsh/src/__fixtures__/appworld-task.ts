import type { Task } from '@harness-s/core';

/** An AppWorld task as the harness sees it: an id, the supervisor's name and the instruction. */
export const appworldTask: Task = {
  id: 'abcdef0_1',
  env: 'appworld',
  split: 'dev',
  instruction: 'My name is A B.\nTask: Count my songs.',
  tags: [],
};
