import { filesScenarios } from './files.js';
import { mailScenarios } from './mail.js';
import { musicScenarios } from './music.js';
import { notesScenarios } from './notes.js';
import { phoneScenarios } from './phone.js';
import { recoveryScenarios } from './recovery.js';
import { shopScenarios } from './shop.js';
import type { Scenario } from './types.js';
import { walletScenarios } from './wallet.js';

/** Every scenario of the embedded world, by app family. */
export const allScenarios: readonly Scenario[] = [
  ...musicScenarios,
  ...walletScenarios,
  ...mailScenarios,
  ...notesScenarios,
  ...shopScenarios,
  ...phoneScenarios,
  ...filesScenarios,
  ...recoveryScenarios,
];
