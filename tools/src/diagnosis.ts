import { type ProfileSet, type Ranker, SimilarFailureRanker } from '@harness-s/router';
import { InvalidArgumentError, Option } from 'commander';

export { builtInDiagnosis } from '@harness-s/harness-dsh';

/**
 * The similar-failure ranker's weight when `--failure-ranker` is given bare: as much as the two
 * default rankers together, which know the task's wording and features but not how it failed.
 */
export const defaultFailureRankerWeight = 2;

/** `--failure-ranker [weight]`, shared by train, reproduce and rescue-study. */
export function failureRankerOption(): Option {
  return new Option(
    '--failure-ranker [weight]',
    `adaptive router: rank rescue candidates also by what rescued the validation tasks H0 failed the same way, read by the built-in failure analysis (weight in the vote; bare: ${defaultFailureRankerWeight})`,
  ).argParser((value: string) => {
    const parsed = Number(value);
    if (!(Number.isFinite(parsed) && parsed > 0))
      throw new InvalidArgumentError(
        `--failure-ranker must be a positive number, got '${value}' (given bare, it goes after the command's arguments)`,
      );
    return parsed;
  });
}

/** The weight `--failure-ranker` asks for: undefined when absent. */
export function failureRankerWeight(flag: number | boolean | undefined): number | undefined {
  if (flag === undefined || flag === false) return undefined;
  return flag === true ? defaultFailureRankerWeight : flag;
}

/**
 * Says so when profiles to start from recorded no H0 failures (written without a diagnosis): the
 * similar-failure ranker has nothing to go on with them, until a re-anchoring records some.
 */
export function warnWithoutFailures(profiles: ProfileSet, source: string, log: (line: string) => void): void {
  if (profiles.tasks.some((task) => task.h0Failures !== undefined)) return;
  log(
    `note: ${source} records no H0 failures (profiles written before they were recorded): --failure-ranker has nothing to go on with them until the router re-anchors; profile them again to use it from the start`,
  );
}

/** The rankers with the similar-failure ranker at `weight` added, when there is one. */
export const withFailureRanker = (rankers: Ranker[], weight: number | undefined): Ranker[] =>
  weight === undefined ? rankers : [...rankers, new SimilarFailureRanker(weight)];
