import BetterSqlite3, { type Database } from 'better-sqlite3';
import { changedTables, changeLogTable, installChangeLog } from '../evaluation/change-log.js';
import { type StateSnapshot, snapshotState } from '../evaluation/state-diff.js';
import { allScenarios } from '../tasks/index.js';
import type { AppWorldTask, EmbeddedTask, Supervisor } from '../tasks/types.js';
import { person } from '../tasks/world-facts.js';
import { generateWorld } from './generate.js';
import { hexId, worldNow } from './random-helpers.js';

/** A task's initial state: the serialized database and its record hashes. */
export interface InitialState {
  buffer: Buffer;
  snapshot: StateSnapshot;
}

/** The seed of the shipped world (AppWorld's random seed is 100 too). */
export const defaultWorldSeed = 100;

/** How many tasks' initial states are kept in memory (each is about 1 MB). */
const cachedStates = 16;

/** The instruction with the supervisor line in front (AppWorld's prompt shows the same facts). */
export function withSupervisor(supervisor: Supervisor, instruction: string): string {
  const { first_name, last_name, email, phone_number } = supervisor;
  return `My name is ${first_name} ${last_name}. My email is ${email} and my phone number is ${phone_number}.\nTask: ${instruction}`;
}

/**
 * The embedded world: the base state generated from a seed, the tasks built on it, and each
 * task's initial state (base plus the task's own changes), serialized once so an episode starts
 * with `new Database(buffer)` in well under a millisecond.
 */
export class EmbeddedWorld {
  private static readonly worlds = new Map<number, EmbeddedWorld>();
  readonly tasks: EmbeddedTask[];
  private readonly byId: Map<string, EmbeddedTask>;
  private readonly states = new Map<string, InitialState>();
  private readonly baseBuffer: Buffer;
  private base: StateSnapshot | undefined;

  private constructor(readonly seed: number) {
    const base = generateWorld(seed);
    try {
      this.baseBuffer = base.serialize();
      this.tasks = allScenarios.flatMap((scenario) => {
        const scenarioId = hexId(scenario.name);
        return scenario.variants(base).map((spec, index): EmbeddedTask => {
          const supervisor = person(base, spec.supervisorId);
          const task: AppWorldTask = {
            id: `${scenarioId}_${index + 1}`,
            env: 'appworld',
            split: scenario.split,
            instruction: '',
            category: scenario.family,
            tags: [scenario.name, ...scenario.tags],
            difficulty: scenario.difficulty,
            scenarioId,
            variant: index + 1,
            supervisor: {
              first_name: supervisor.first_name,
              last_name: supervisor.last_name,
              email: supervisor.email,
              phone_number: supervisor.phone_number,
            },
            datetime: worldNow,
            codeLanguage: 'javascript',
          };
          task.instruction = withSupervisor(task.supervisor, spec.instruction);
          return { task, spec };
        });
      });
    } finally {
      base.close();
    }
    this.byId = new Map(this.tasks.map((item) => [item.task.id, item]));
  }

  /** The world of a seed, generated once per process. */
  static forSeed(seed = defaultWorldSeed): EmbeddedWorld {
    let world = EmbeddedWorld.worlds.get(seed);
    if (!world) {
      world = new EmbeddedWorld(seed);
      EmbeddedWorld.worlds.set(seed, world);
    }
    return world;
  }

  task(id: string): EmbeddedTask | undefined {
    return this.byId.get(id);
  }

  /** The task's initial state, built on first use and kept in a small cache. */
  initialState(taskId: string): InitialState {
    const cached = this.states.get(taskId);
    if (cached) {
      // Most recently used last, so the oldest entry is evicted first.
      this.states.delete(taskId);
      this.states.set(taskId, cached);
      return cached;
    }
    const { db, touched } = this.buildState(taskId);
    try {
      // The base world's record hashes, but for the tables the task's setup wrote: hashing a whole
      // world costs tens of milliseconds, a task's few tables one or two.
      const snapshot: StateSnapshot = new Map(this.baseSnapshot());
      for (const [name, table] of snapshotState(db, touched)) snapshot.set(name, table);
      const state = { buffer: db.serialize(), snapshot };
      this.states.set(taskId, state);
      if (this.states.size > cachedStates) {
        const oldest = this.states.keys().next().value;
        if (oldest !== undefined) this.states.delete(oldest);
      }
      return state;
    } finally {
      db.close();
    }
  }

  /** The base world's record hashes, computed once. */
  private baseSnapshot(): StateSnapshot {
    if (!this.base) {
      const db = new BetterSqlite3(this.baseBuffer);
      try {
        this.base = snapshotState(db);
      } finally {
        db.close();
      }
    }
    return this.base;
  }

  /** The task's initial state built from the base world: its changes replayed, the change log installed. */
  rebuildState(taskId: string): Database {
    return this.buildState(taskId).db;
  }

  /**
   * The task's initial state, and the tables its setup wrote: the change log is installed first,
   * so it records them, then emptied, so an episode's log starts empty.
   */
  private buildState(taskId: string): { db: Database; touched: string[] } {
    const embedded = this.byId.get(taskId);
    if (!embedded) throw new RangeError(`no embedded task ${taskId}`);
    const db = new BetterSqlite3(this.baseBuffer);
    try {
      installChangeLog(db);
      if (embedded.spec.setup) db.transaction(() => embedded.spec.setup?.(db))();
      const touched = changedTables(db);
      db.exec(`DELETE FROM ${changeLogTable}`);
      return { db, touched };
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** A fresh, private copy of the task's initial state. */
  openState(taskId: string): Database {
    return new BetterSqlite3(this.initialState(taskId).buffer);
  }
}
