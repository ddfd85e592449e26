import type * as z from 'zod';

/** What a validation issue shows in place of a map key: the key is the caller's data, not a field name. */
export const REDACTED_KEY = '{key}';

type Segment = PropertyKey;

/**
 * The path of a validation issue as it may be shown to the caller: field names the schema declares and
 * array indices are kept; every other segment (a record's key, a field of an unknown shape) is replaced
 * by `{key}`, because zod puts a record's keys into the path and those keys are input that an error must
 * never echo.
 */
export const shownIssuePath = (schema: z.ZodType, path: readonly Segment[]): string[] => {
  const shown: string[] = [];
  let current: z.ZodType | undefined = schema;
  for (const segment of path) {
    const step = stepInto(current, segment);
    shown.push(step.declared ? String(segment) : REDACTED_KEY);
    current = step.next;
  }
  return shown;
};

interface Step {
  declared: boolean;
  next: z.ZodType | undefined;
}

const UNKNOWN: Step = { declared: false, next: undefined };

/** One segment down: whether the schema names it, and the schema beneath it. */
const stepInto = (schema: z.ZodType | undefined, segment: Segment): Step => {
  const inner = unwrapped(schema);
  if (inner === undefined) return UNKNOWN;
  const def = inner._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      return typeof segment === 'string' && Object.hasOwn(shape, segment)
        ? { declared: true, next: shape[segment] }
        : UNKNOWN;
    }
    case 'array':
      return typeof segment === 'number' ? { declared: true, next: def.element as z.ZodType } : UNKNOWN;
    case 'tuple':
      return typeof segment === 'number'
        ? { declared: true, next: (def.items as z.ZodType[])[segment] ?? (def.rest as z.ZodType | undefined) }
        : UNKNOWN;
    case 'record':
    case 'map':
      return { declared: false, next: def.valueType as z.ZodType };
    case 'union': {
      // A field any member declares is a field name; the first such member leads further down.
      for (const option of def.options as z.ZodType[]) {
        const step = stepInto(option, segment);
        if (step.declared) return step;
      }
      return UNKNOWN;
    }
    case 'intersection': {
      const left = stepInto(def.left as z.ZodType, segment);
      return left.declared ? left : stepInto(def.right as z.ZodType, segment);
    }
    default:
      return UNKNOWN;
  }
};

/** Sees through wrappers that do not change the shape: optional, nullable, default, pipe, lazy, … */
const unwrapped = (schema: z.ZodType | undefined): z.ZodType | undefined => {
  let current = schema;
  for (let depth = 0; current !== undefined && depth < 32; depth++) {
    const def = current._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
      case 'success':
        current = def.innerType as z.ZodType;
        break;
      case 'pipe':
        current = def.in as z.ZodType;
        break;
      case 'lazy':
        current = (def.getter as () => z.ZodType)();
        break;
      default:
        return current;
    }
  }
  return current;
};
