import { chainsOf, type DigitChain, type DigitRun, scanDigitRuns } from './digit-runs.ts';

/** One normalized string under screening; the digit runs are scanned once, on first use, and shared by
 * every detector that reads numbers. */
export class ScreenedText {
  readonly text: string;
  #runs: readonly DigitRun[] | undefined;
  #chains: readonly DigitChain[] | undefined;

  constructor(text: string) {
    this.text = text;
  }

  get digitRuns(): readonly DigitRun[] {
    this.#runs ??= scanDigitRuns(this.text);
    return this.#runs;
  }

  get digitChains(): readonly DigitChain[] {
    this.#chains ??= this.digitRuns.flatMap(chainsOf);
    return this.#chains;
  }
}
