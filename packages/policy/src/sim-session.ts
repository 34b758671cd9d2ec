import {
  type Action,
  type AssistantMessage,
  ConfigError,
  type Decision,
  deriveSeed,
  type EpisodeContext,
  type Harness,
  type Message,
  type PolicyRequest,
  type PolicyResponse,
  type PolicySession,
} from '@harness-s/core';
import { estimateTokens } from './plan-walker.js';
import { actionFormatSkill, fixReaches, localityShift, type SimulatedPolicyConfig, sigmoid } from './sim-config.js';
import { actionKey, type ContextReading, readContext, SimulatedPlanWalker } from './sim-context.js';
import { afterFirstPiece, type FollowOptions, policyTurns, remainderAfter, sameTurn } from './sim-transcript.js';

/** What a session needs of its policy: its settings and its logits. */
export interface SimulatedParameters {
  readonly config: SimulatedPolicyConfig;
  logit(skill: string, hardness?: number): number;
}

/** How a decision point is resolved: by a random draw, or as an observed turn shows it was. */
type Resolver = (skill: string, probability: number, occurrence: number, secondChance: boolean) => boolean[];

/** Longest run of decision points walked before one action: bounds the search of `follow`. */
const maxChoicesPerTurn = 12;
/** Walks a `follow` may try in all before it gives a transcript up as one the plan cannot produce. */
const followBudget = 20_000;

/**
 * One episode of the simulated policy. `respond` samples the next turn; `follow` takes a turn the
 * transcript already holds (teacher forcing) and returns the decisions that lead to it, so a
 * transcript written by this policy can be resumed or scored again from its messages alone.
 */
export class SimulatedSession implements PolicySession {
  private walker: SimulatedPlanWalker;
  private readonly occurrences = new Map<string, number>();
  private readonly shifts = new Map<string, number>();
  private readonly toolSkills: Set<string>;
  /** Walks tried by the current `follow`. */
  private trials = 0;

  constructor(
    private readonly parameters: SimulatedParameters,
    private readonly context: EpisodeContext,
  ) {
    if (!context.plan) throw new ConfigError('the simulated policy needs the oracle plan', { code: 'missing-plan' });
    this.walker = new SimulatedPlanWalker(context.plan);
    this.toolSkills = new Set(context.harness.spec.tools.flatMap((tool) => (tool.skill ? [tool.skill] : [])));
  }

  async respond(request: PolicyRequest): Promise<PolicyResponse> {
    const draw: Resolver = (skill, probability, occurrence, secondChance) => {
      const outcomes: boolean[] = [];
      for (let attempt = 0; attempt < (secondChance ? 2 : 1); attempt += 1) {
        const uniform = deriveSeed(this.context.seed, skill, occurrence, attempt) / 4294967296;
        outcomes.push(uniform < probability);
        if (uniform < probability) break;
      }
      return outcomes;
    };
    const reading = this.read(request.messages);
    const decisions: Decision[] = [];
    let message: AssistantMessage;
    if (!this.decide(reading, actionFormatSkill, 0, draw, decisions)) {
      // A turn of thinking aloud with no action in it: the codec reports a format error.
      message = { role: 'assistant', content: 'Let me think about how to approach this before acting.' };
    } else {
      const next = this.walker.next(
        (skill, hardness) => this.decide(reading, skill, hardness, draw, decisions),
        (skill, hardness) => decisions.push(byHarness(skill, hardness)),
        (skill, hardness) => this.performedByHarness(skill, hardness),
        reading.executed,
      );
      message = next
        ? this.context.harness.codec.encode([next.action], next.thought)
        : { role: 'assistant', content: 'I have nothing more to do.' };
    }
    const promptTokens = request.messages.reduce((sum, item) => sum + estimateTokens(item.content), 0);
    return {
      message,
      usage: {
        promptTokens,
        completionTokens: estimateTokens(message.content + JSON.stringify(message.toolCalls ?? '')),
      },
      decisions,
    };
  }

  /**
   * Takes each `observed` message as the answer to its `context` (the rendered messages before it),
   * in order, and returns the decisions that produce them: the branches that lead the plan to each
   * turn's action, with the probabilities this policy gives them now. The session walks on from
   * there. Where several runs of branches lead to the same next action, the one the later turns
   * agree with is taken (the fewest decisions first, right before wrong). A turn the codec cannot
   * read is a wrong `action-format` decision. After the harness's retry message a wrong choice
   * counts both of its draws; a right one counts one, as the first draw cannot be told from the
   * transcript. Throws (`unfollowable-turn`) when no branches of the plan lead to the observed
   * turns, or none are found within a bounded search.
   */
  follow(
    turns: ReadonlyArray<{ context: readonly Message[]; observed: AssistantMessage }>,
    options: FollowOptions = {},
  ): Decision[][] {
    // One step per action of the policy's in a turn, or one for a turn without an action. Under a
    // harness whose tools expand or rewrite a call, what the codec reads is partly the harness's:
    // the turn is matched by what the policy writes for an action. A turn re-rendered from such a
    // harness shows the harness's actions as the policy's, and they are walked where the plan has
    // them and skipped where it has not (under a protocol of one action per reply they come as
    // turns of their own, so there, in a transcript `rerenderedFrom` a variant, a turn the plan does
    // not have is passed over).
    const expands = this.toolSkills.size > 0;
    const steps: FollowStep[] = turns.flatMap(({ context, observed }, turn): FollowStep[] => {
      const decoded = this.context.harness.codec.decode(observed, this.context.envTools);
      const reading = this.read(context);
      const actions = decoded.ok
        ? decoded.actions.filter((item) => !item.harnessResult).map((item) => item.action)
        : [];
      if (actions.length === 0) return [{ turn, reading, targets: [], first: true, optional: false }];
      if (expands) return [{ turn, reading, targets: actions, written: observed, first: true, optional: false }];
      // Only a re-rendered turn shows a variant's actions as the policy's: several in one turn, or,
      // under a protocol of one action per reply, one turn per action.
      const optional =
        options.rerenderedFrom !== undefined &&
        (actions.length > 1 || this.context.harness.codec.oneActionPerTurn === true);
      return actions.map((action, index) => ({ turn, reading, targets: [action], first: index === 0, optional }));
    });
    const decisions: Decision[][] = turns.map(() => []);
    let deepest = 0;
    /** `rest`: what is left of an action that holds several of the plan's in a row. */
    const walk = (index: number, walker: SimulatedPlanWalker, rest?: Action): SimulatedPlanWalker | null => {
      deepest = Math.max(deepest, index);
      const step = steps[index];
      if (!step) return walker;
      const targets = rest ? [rest] : step.targets;
      const first = step.first && !rest;
      const turn = decisions[step.turn] as Decision[];
      const saved = { occurrences: new Map(this.occurrences), decisions: turn.length };
      const restore = () => {
        this.occurrences.clear();
        for (const [skill, count] of saved.occurrences) this.occurrences.set(skill, count);
        turn.length = saved.decisions;
      };
      if (targets.length === 0) {
        // No action: a format error, or the words that end a walk with nothing left to do.
        this.decide(step.reading, actionFormatSkill, 0, forced(walker.exhausted), turn);
        const end = walk(index + 1, walker);
        if (end) return end;
      } else {
        const begin = () => {
          restore();
          if (first) this.decide(step.reading, actionFormatSkill, 0, forced(true), turn);
        };
        for (const { choices, left } of this.choicesLeadingTo(
          walker,
          step.reading,
          rest ? targets : (step.written ?? targets),
          options.rerenderedFrom,
        )) {
          begin();
          const next = walker.clone();
          let choice = 0;
          next.next(
            (skill, hardness) => this.decide(step.reading, skill, hardness, forced(choices[choice++] ?? true), turn),
            (skill, hardness) => turn.push(byHarness(skill, hardness)),
            (skill, hardness) => this.performedByHarness(skill, hardness),
            step.reading.executed,
          );
          const end = left ? walk(index, next, left) : walk(index + 1, next);
          if (end) return end;
        }
        // A piece the plan does not have (a transform's lookup, re-rendered as the policy's) is passed over.
        const after =
          options.rerenderedFrom && targets.length === 1 ? afterFirstPiece(targets[0] as Action) : undefined;
        if (after) {
          begin();
          const end = walk(index, walker, after);
          if (end) return end;
        }
        if (step.optional && !rest) {
          begin();
          const end = walk(index + 1, walker);
          if (end) return end;
        }
      }
      restore();
      return null;
    };
    this.trials = 0;
    const end = walk(0, this.walker);
    if (!end) {
      const step = steps[deepest];
      throw new ConfigError(
        `task ${this.context.task.id} under ${this.context.harness.spec.id}: no branches of the oracle plan lead to turn ${(step?.turn ?? 0) + 1}${step?.targets.length ? ` (${step.targets.map(actionKey).join(', ')})` : ''}`,
        { code: 'unfollowable-turn' },
      );
    }
    this.walker = end;
    return decisions;
  }

  /**
   * Every run of branch choices (the fewest first, right before wrong) that makes the walk's next
   * action one of `targets`, or the start of one (`left`: the rest of it).
   */
  private *choicesLeadingTo(
    walker: SimulatedPlanWalker,
    reading: ContextReading,
    targets: readonly Action[] | AssistantMessage,
    rerenderedFrom?: Harness,
  ): Generator<{ choices: boolean[]; left?: Action }> {
    const queue: boolean[][] = [[]];
    for (let prefix = queue.shift(); prefix; prefix = queue.shift()) {
      this.trials += 1;
      if (this.trials > followBudget)
        throw new ConfigError(
          `task ${this.context.task.id} under ${this.context.harness.spec.id}: no branches of the oracle plan found for the transcript within ${followBudget} walks`,
          { code: 'unfollowable-turn' },
        );
      const trial = walker.clone();
      let index = 0;
      let short = false;
      const next = trial.next(
        () => {
          if (index < prefix.length) return prefix[index++] as boolean;
          short = true;
          return true;
        },
        () => {},
        (skill, hardness) => this.performedByHarness(skill, hardness),
        reading.executed,
      );
      if (short) {
        if (prefix.length < maxChoicesPerTurn) queue.push([...prefix, true], [...prefix, false]);
        continue;
      }
      if (!next) continue;
      if (!Array.isArray(targets)) {
        if (sameTurn(this.context.harness.codec.encode([next.action], next.thought), targets as AssistantMessage))
          yield { choices: prefix };
        continue;
      }
      // What the variant of a re-rendered attempt ran for the action, where a transform rewrote it.
      const rewritten = rerenderedFrom && this.rewrittenBy(rerenderedFrom, next.action);
      const written = actionKey(next.action);
      // How the codec reads the action back, worked out once and only where the action itself differs.
      let readBack: string | undefined;
      const readsAs = (key: string) => {
        readBack ??= this.readAs(next.action) ?? '';
        return readBack === key;
      };
      for (const target of targets as readonly Action[]) {
        const key = actionKey(target);
        if (written === key || readsAs(key)) yield { choices: prefix };
        else if (rewritten && actionKey(rewritten) === key) yield { choices: prefix };
        else {
          const left = remainderAfter(target, next.action) ?? (rewritten && remainderAfter(target, rewritten));
          if (left) yield { choices: prefix, left };
        }
      }
    }
  }

  /**
   * The key of an action as the codec reads it back once written: a text protocol may join a
   * query's lines or keep an answer as raw text (AgentBench's `Final Answer:` line).
   */
  private readAs(action: Action): string | undefined {
    const decoded = this.context.harness.codec.decode(
      this.context.harness.codec.encode([action]),
      this.context.envTools,
    );
    const [read] = decoded.ok ? decoded.actions.filter((item) => !item.harnessResult) : [];
    return read && actionKey(read.action);
  }

  /** The one action `variant` runs for `action` when a tool transform rewrites it; undefined otherwise. */
  private rewrittenBy(variant: Harness, action: Action): Action | undefined {
    const decoded = variant.codec.decode(variant.codec.encode([action]), this.context.envTools);
    const ran = decoded.ok ? decoded.actions.filter((item) => !item.harnessResult) : [];
    const [only] = ran;
    return ran.length === 1 && only && actionKey(only.action) !== actionKey(action) ? only.action : undefined;
  }

  private read(messages: readonly Message[]): ContextReading {
    return readContext(this.context, messages, this.parameters.config, (skill, hardness) =>
      this.reaches(skill, hardness),
    );
  }

  private reaches(skill: string, hardness: number): boolean {
    const { config } = this.parameters;
    return hardness <= 0 || fixReaches(this.context.task.id, this.context.harness.spec.id, skill, config.hardFixReach);
  }

  private performedByHarness(skill: string, hardness: number): boolean {
    return this.toolSkills.has(skill) && this.reaches(skill, hardness);
  }

  private locality(skill: string): number {
    const { spec } = this.context.harness;
    if (spec.parent === null || skill === actionFormatSkill) return 0;
    let shift = this.shifts.get(skill);
    if (shift === undefined) {
      shift = localityShift(this.context.task.id, spec.id, skill, this.parameters.config.localitySpread);
      this.shifts.set(skill, shift);
    }
    return shift;
  }

  /** Resolves one decision point, records its draws, and says whether the right branch was taken. */
  private decide(
    reading: ContextReading,
    skill: string,
    hardness: number,
    resolve: Resolver,
    decisions: Decision[],
  ): boolean {
    const cue = reading.cue(skill, hardness) + this.locality(skill);
    const probability = sigmoid(this.parameters.logit(skill, hardness) + cue);
    const occurrence = this.occurrences.get(skill) ?? 0;
    this.occurrences.set(skill, occurrence + 1);
    const outcomes = resolve(skill, probability, occurrence, reading.secondChance && skill !== actionFormatSkill);
    for (const right of outcomes)
      decisions.push({ skill, right, probability, cue, ...(hardness > 0 ? { hardness } : {}) });
    return outcomes.at(-1) ?? false;
  }
}

/** One action of a followed turn (none for a turn without one). */
interface FollowStep {
  turn: number;
  reading: ContextReading;
  /** The actions the policy may have written here: one, or any of a turn a harness expanded; none for a turn without one. */
  targets: readonly Action[];
  /** Under a harness that expands or rewrites calls: the message as written, to match by encoding. */
  written?: AssistantMessage;
  /** The turn's first step: its format decision goes with it. */
  first: boolean;
  /** One of several actions a re-rendered turn shows: it may be one the plan does not have. */
  optional: boolean;
}

/** Resolves a decision point as the transcript shows it was. */
const forced =
  (outcome: boolean): Resolver =>
  (_skill, _probability, _occurrence, secondChance) =>
    outcome || !secondChance ? [outcome] : [false, false];

const byHarness = (skill: string, hardness: number): Decision => ({
  skill,
  right: true,
  probability: 1,
  cue: 0,
  byHarness: true,
  ...(hardness > 0 ? { hardness } : {}),
});

/**
 * The decisions behind each of the policy's turns in a transcript (the full conversation, as a
 * trajectory or a training example holds it), each turn read against its context rendered by the
 * harness. Turns the policy did not write from this plan are refused (see `SimulatedSession.follow`).
 */
export function followTranscript(
  session: SimulatedSession,
  context: EpisodeContext,
  transcript: readonly Message[],
  options: FollowOptions = {},
): Decision[][] {
  return session.follow(policyTurns(context, transcript, true), options);
}
