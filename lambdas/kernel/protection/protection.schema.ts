import * as z from 'zod';

/**
 * Why a long-term write was refused. Each code names a kind of personal identifier or secret, never the
 * value that matched, so a code can be returned to the caller, logged and counted without leaking it.
 * The two `screen.*` codes are the fail-closed answers for content the screen could not read in full.
 */
export const SensitiveContentReason = z.enum([
  'pii.email',
  'pii.iban',
  'pii.national_id',
  'pii.payment_card',
  'pii.phone',
  'screen.limit_exceeded',
  'screen.unsupported_value',
  'secret.api_key',
  'secret.aws_access_key',
  'secret.aws_secret_key',
  'secret.jwt',
  'secret.password',
  'secret.private_key',
]);
export type SensitiveContentReason = z.infer<typeof SensitiveContentReason>;

/** Why text submitted for shared memory was quarantined: it reads as an instruction to the system. */
export const InstructionInjectionReason = z.enum([
  'injection.override_instructions',
  'injection.permission_change',
  'injection.role_prompt',
  'injection.tool_call',
  'screen.limit_exceeded',
  'screen.unsupported_value',
]);
export type InstructionInjectionReason = z.infer<typeof InstructionInjectionReason>;
