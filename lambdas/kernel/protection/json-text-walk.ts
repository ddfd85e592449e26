/** How much of a value the screens read before giving up; past a limit they answer fail-closed. */
export interface TextWalkLimits {
  /** Nesting of arrays and objects. A cyclic structure also ends here. */
  readonly maxDepth: number;
  /** Values, array items and object properties visited. */
  readonly maxNodes: number;
  /** Characters across every string, object key and number read. */
  readonly maxTextLength: number;
}

export const DEFAULT_TEXT_WALK_LIMITS: TextWalkLimits = Object.freeze({
  maxDepth: 64,
  maxNodes: 50_000,
  maxTextLength: 4 * 1024 * 1024,
});

/** `complete` when every piece of text was visited; otherwise why the walk stopped. */
export type TextWalkOutcome = 'complete' | 'limit_exceeded' | 'unsupported_value';

/** Called with each piece of text and, for a property's value, the property's name. */
export type TextVisitor = (text: string, key: string | undefined) => void;

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * Visits every piece of text in a JSON value: strings, object keys, and numbers in their decimal form (a
 * card number can arrive as a number). Arrays and plain objects are walked; a Date carries no free text.
 * Anything else (functions, symbols, class instances, typed arrays) is `unsupported_value`: the walk
 * cannot vouch for what it cannot read.
 */
export const walkJsonText = (
  value: unknown,
  visit: TextVisitor,
  limits: TextWalkLimits = DEFAULT_TEXT_WALK_LIMITS,
): TextWalkOutcome => {
  let nodes = 0;
  let textLength = 0;

  const visitText = (text: string, key: string | undefined): TextWalkOutcome => {
    textLength += text.length;
    if (textLength > limits.maxTextLength) return 'limit_exceeded';
    visit(text, key);
    return 'complete';
  };

  const walk = (node: unknown, key: string | undefined, depth: number): TextWalkOutcome => {
    nodes++;
    if (nodes > limits.maxNodes || depth > limits.maxDepth) return 'limit_exceeded';
    switch (typeof node) {
      case 'string':
        return visitText(node, key);
      case 'number':
        return Number.isFinite(node) ? visitText(String(node), key) : 'complete';
      case 'bigint':
        return visitText(node.toString(), key);
      case 'boolean':
      case 'undefined':
        return 'complete';
      case 'object':
        break;
      default:
        return 'unsupported_value';
    }
    if (node === null || node instanceof Date) return 'complete';
    if (Array.isArray(node)) {
      for (const item of node) {
        const outcome = walk(item, key, depth + 1);
        if (outcome !== 'complete') return outcome;
      }
      return 'complete';
    }
    if (!isPlainObject(node)) return 'unsupported_value';
    const record = node as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      nodes++;
      const keyOutcome = nodes > limits.maxNodes ? 'limit_exceeded' : visitText(name, undefined);
      if (keyOutcome !== 'complete') return keyOutcome;
      const outcome = walk(record[name], name, depth + 1);
      if (outcome !== 'complete') return outcome;
    }
    return 'complete';
  };

  return walk(value, undefined, 0);
};
