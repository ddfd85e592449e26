import * as z from 'zod';

/** A validated configuration document: sections by name, and `agents` with per-agent overrides. */
export type ConfigDocument = { readonly [section: string]: unknown };

/** The fields a section contributes, each with its default. */
export type ConfigFields = Readonly<Record<string, z.ZodDefault<z.ZodType>>>;

export type ValuesOf<Fields extends ConfigFields> = { -readonly [Name in keyof Fields]: z.output<Fields[Name]> };

/**
 * One owner's part of a section of the configuration document: the kernel's, or a capability module's.
 * Several owners may contribute fields to one section (`retention` holds the kernel's idempotency horizon and
 * the notes' horizon); each field has exactly one owner, who reads it with `of`.
 */
export interface ConfigSection<
  Name extends string = string,
  Fields extends ConfigFields = ConfigFields,
  PerAgent extends boolean = boolean,
> {
  readonly name: Name;
  readonly fields: Fields;
  /** Overridable for one agent under `agents.{agent}.{section}`. */
  readonly perAgent: PerAgent;
  /** Checks across this contribution's fields, on the base values and on every agent's merged values. */
  check?(values: ValuesOf<Fields>, context: z.RefinementCtx): void;
  /** This contribution's values in `config`; with `agent`, that agent's overrides merged over the base. */
  of(config: ConfigDocument, agent?: string): Readonly<ValuesOf<Fields>>;
}

export type AnyConfigSection = ConfigSection<string, ConfigFields, boolean>;

/** The same names the `?agent=` narrowing accepts. */
export const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const objectOr = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * Declares a section contribution. Reading (`of`) parses the contribution's fields out of the document with
 * their defaults, merged with the agent's overrides, and validates what it returns; results are kept per
 * document object and agent, so reading on every request costs a map lookup.
 */
export const defineConfigSection = <
  const Name extends string,
  const Fields extends ConfigFields,
  const PerAgent extends boolean = false,
>(definition: {
  readonly name: Name;
  readonly fields: Fields;
  readonly perAgent?: PerAgent;
  readonly check?: (values: ValuesOf<Fields>, context: z.RefinementCtx) => void;
}): ConfigSection<Name, Fields, PerAgent> => {
  const schema = z.object(definition.fields).superRefine((values, context) => {
    definition.check?.(values as ValuesOf<Fields>, context);
  });
  const read = new WeakMap<object, Map<string, Readonly<ValuesOf<Fields>>>>();
  const fieldNames = Object.keys(definition.fields);
  const pick = (section: Record<string, unknown>) =>
    Object.fromEntries(fieldNames.filter((name) => Object.hasOwn(section, name)).map((name) => [name, section[name]]));
  return Object.freeze({
    name: definition.name,
    fields: definition.fields,
    perAgent: (definition.perAgent ?? false) as PerAgent,
    check: definition.check,
    of(config: ConfigDocument, agent?: string): Readonly<ValuesOf<Fields>> {
      const agents = objectOr(config.agents);
      // `hasOwn`: an agent called `constructor` must not find Object.prototype's.
      const overrides =
        definition.perAgent && agent !== undefined && Object.hasOwn(agents, agent)
          ? objectOr(objectOr(agents[agent])[definition.name])
          : {};
      const cacheKey = Object.keys(overrides).length > 0 ? `agent:${agent}` : '';
      let byAgent = read.get(config);
      if (!byAgent) {
        byAgent = new Map();
        read.set(config, byAgent);
      }
      let values = byAgent.get(cacheKey);
      if (!values) {
        values = Object.freeze(
          schema.parse({ ...pick(objectOr(config[definition.name])), ...pick(overrides) }) as ValuesOf<Fields>,
        );
        byAgent.set(cacheKey, values);
      }
      return values;
    },
  });
};
