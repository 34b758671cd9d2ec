import { musicScenarios } from './music.js';
import type { Scenario } from './types.js';

/** Every scenario of the embedded world, by app family. */
export const allScenarios: readonly Scenario[] = [...musicScenarios];
