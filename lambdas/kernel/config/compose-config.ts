import * as z from 'zod';
import { type ConfigProblem, InvalidConfigError } from './config.errors.ts';
import {
  AGENT_NAME,
  type AnyConfigSection,
  type ConfigDocument,
  type ConfigFields,
  type ConfigSection,
  type ValuesOf,
} from './config-section.ts';

/**
 * The shape of a deployment's configuration document as data: which sections there are, which may be
 * overridden per agent, and their field names. Generated into the deployment document, so that a function
 * running some of the modules can still refuse a setting that no module of the deployment knows.
 */
export const ConfigLayout = z
  .object({
    sections: z
      .array(
        z
          .object({ name: z.string(), perAgent: z.boolean(), fields: z.array(z.string()).readonly() })
          .strict()
          .readonly(),
      )
      .readonly(),
  })
  .strict()
  .readonly();
export type ConfigLayout = z.infer<typeof ConfigLayout>;

type UnionToIntersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never;
type Simplify<T> = { [Key in keyof T]: T[Key] } & {};
type ValuesNamed<S, Name> =
  S extends ConfigSection<infer N, infer Fields, boolean> ? (N extends Name ? ValuesOf<Fields> : never) : never;
type SectionValues<S, Name> = Simplify<UnionToIntersection<ValuesNamed<S, Name>>>;
type PerAgentName<S> = S extends ConfigSection<infer Name, ConfigFields, true> ? Name : never;

/** The document type composed from a union of section contributions: one object per section name. */
export type ComposedDocument<S extends AnyConfigSection> = {
  -readonly [Name in S['name']]: SectionValues<S, Name>;
} & {
  agents: Record<string, { [Name in PerAgentName<S>]?: Partial<SectionValues<S, Name>> }>;
};

/** The sections that may vary per agent, as one agent sees them. */
export type ComposedAgentSettings<S extends AnyConfigSection> = {
  -readonly [Name in PerAgentName<S>]: SectionValues<S, Name>;
};

/** A configuration composed from its owners' sections: the schema every document is checked with. */
export interface Configuration<Document extends ConfigDocument, AgentSettings = Readonly<Record<string, unknown>>> {
  /** The document schema: unknown sections and settings are refused, absent ones take their defaults. */
  readonly schema: z.ZodType<Document> & { readonly shape: Readonly<Record<string, z.ZodType>> };
  /** Every default, as the document an operator would write. */
  readonly defaults: Document;
  readonly layout: ConfigLayout;
  /** Validates an already parsed document, naming every wrong field; the result is frozen all the way down. */
  parse(document: unknown, source: string): Document;
  /** Parses a document's text (JSON) from `source`, naming every field that is wrong. */
  parseDocument(text: string, source: string): Document;
  /** The per-agent sections in force for `agent`: its overrides merged over the base, validated. */
  settingsForAgent(config: Document, agent?: string): AgentSettings;
}

const agentName = z.string().regex(AGENT_NAME, 'an agent name is 1-64 characters of A-Z, a-z, 0-9, _ or -');

/**
 * Composes the configuration document from every contribution a process knows. `foreign` describes the
 * deployment's sections and settings that no local contribution owns (the modules this process does not
 * run): they are accepted as they are and never read here; anything neither local nor foreign is refused.
 */
export const composeConfiguration = <S extends AnyConfigSection>(
  contributions: readonly S[],
  options: { readonly foreign?: ConfigLayout } = {},
): Configuration<ComposedDocument<S>, ComposedAgentSettings<S>> => {
  const sections = new Map<string, { perAgent: boolean; owners: AnyConfigSection[]; foreign: Set<string> }>();
  for (const contribution of contributions) {
    const section = sections.get(contribution.name) ?? {
      perAgent: contribution.perAgent,
      owners: [],
      foreign: new Set(),
    };
    if (section.perAgent !== contribution.perAgent)
      throw new TypeError(`Every contribution to the ${contribution.name} section must agree on perAgent`);
    for (const field of Object.keys(contribution.fields))
      if (section.owners.some((owner) => Object.hasOwn(owner.fields, field)))
        throw new TypeError(`The setting ${contribution.name}.${field} is declared twice`);
    section.owners.push(contribution);
    sections.set(contribution.name, section);
  }
  for (const described of options.foreign?.sections ?? []) {
    const section = sections.get(described.name) ?? { perAgent: described.perAgent, owners: [], foreign: new Set() };
    for (const field of described.fields)
      if (!section.owners.some((owner) => Object.hasOwn(owner.fields, field))) section.foreign.add(field);
    sections.set(described.name, section);
  }

  const fieldsOf = (name: string): Record<string, z.ZodType> => {
    const section = sections.get(name);
    return Object.assign(
      {},
      ...(section?.owners.map((owner) => owner.fields) ?? []),
      Object.fromEntries([...(section?.foreign ?? [])].map((field) => [field, z.unknown().optional()])),
    );
  };
  // Built once: the document schema holds them, and every agent's merged values are checked with them again.
  const sectionSchemas = new Map(
    [...sections].map(([name, section]) => [
      name,
      z
        .object(fieldsOf(name))
        .strict()
        .superRefine((values, context) => {
          for (const owner of section.owners) owner.check?.(values as never, context);
        }),
    ]),
  );
  const sectionSchema = (name: string) =>
    sectionSchemas.get(name) as NonNullable<ReturnType<typeof sectionSchemas.get>>;
  const perAgentSections = [...sections].filter(([, section]) => section.perAgent).map(([name]) => name);
  const overridesOf = (name: string) =>
    z
      .object(
        Object.fromEntries(
          Object.entries(fieldsOf(name)).map(([field, schema]) => [
            field,
            (schema instanceof z.ZodDefault ? (schema.removeDefault() as z.ZodType) : schema).optional(),
          ]),
        ),
      )
      .strict()
      .optional();
  const AgentOverrides = z
    .object(Object.fromEntries(perAgentSections.map((name) => [name, overridesOf(name)])))
    .strict();

  const shape: Record<string, z.ZodType> = Object.fromEntries(
    [...sections.keys()].map((name) => [name, sectionSchema(name).prefault({})]),
  );
  shape.agents = z.record(agentName, AgentOverrides).default({});
  const schema = z
    .object(shape)
    .strict()
    .superRefine((config, context) => {
      // Overrides are checked merged over the base, so a base change can make one invalid.
      const agents = config.agents as Record<string, Record<string, object | undefined>>;
      for (const [agent, overrides] of Object.entries(agents))
        for (const name of perAgentSections) {
          const merged = sectionSchema(name).safeParse({ ...(config[name] as object), ...overrides[name] });
          if (merged.success) continue;
          for (const issue of merged.error.issues)
            context.addIssue({ code: 'custom', path: ['agents', agent, name, ...issue.path], message: issue.message });
        }
    });

  const parse = (document: unknown, source: string): ComposedDocument<S> => {
    const parsed = schema.safeParse(document);
    if (parsed.success) return frozen(parsed.data) as ComposedDocument<S>;
    throw new InvalidConfigError(source, parsed.error.issues.flatMap(problemsOf));
  };
  const configuration: Configuration<ComposedDocument<S>, ComposedAgentSettings<S>> = {
    // The composed shape is the union of the contributions' shapes, which is what ComposedDocument spells out.
    schema: schema as unknown as Configuration<ComposedDocument<S>>['schema'],
    defaults: parse({}, 'the defaults'),
    layout: {
      sections: [...sections].map(([name, section]) => ({
        name,
        perAgent: section.perAgent,
        fields: [...section.owners.flatMap((owner) => Object.keys(owner.fields)), ...section.foreign],
      })),
    },
    parse,
    parseDocument: (text, source) => {
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch (error) {
        throw new InvalidConfigError(source, [
          { path: '(root)', message: `not valid JSON (${(error as Error).message})` },
        ]);
      }
      return parse(document, source);
    },
    settingsForAgent: (config, agent) =>
      Object.fromEntries(
        perAgentSections.map((name) => [
          name,
          Object.assign({}, ...(sections.get(name)?.owners.map((owner) => owner.of(config, agent)) ?? [])),
        ]),
      ) as never,
  };
  return configuration;
};

/**
 * Freezes a parsed configuration all the way down. Providers hand out one object to every request and the
 * sections' readers cache by object, so nothing may change one in place.
 */
const frozen = <T extends object>(value: T): T => {
  for (const child of Object.values(value)) if (typeof child === 'object' && child !== null) frozen(child);
  return Object.freeze(value);
};

const pathOf = (path: readonly PropertyKey[]): string => path.map(String).join('.') || '(root)';

const problemsOf = (issue: z.core.$ZodIssue): ConfigProblem[] => {
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: 'unknown setting' }));
  if (issue.code === 'invalid_key')
    return [{ path: pathOf(issue.path), message: issue.issues[0]?.message ?? issue.message }];
  return [{ path: pathOf(issue.path), message: issue.message }];
};
