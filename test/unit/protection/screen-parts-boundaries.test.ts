import { describe, expect, it } from 'vitest';
import {
  luhnCheckDigit,
  mod97,
  passesIbanChecksum,
  passesLuhn,
  passesVerhoeff,
} from '../../../lambdas/kernel/protection/checksums.ts';
import { chainsOf, scanDigitRuns } from '../../../lambdas/kernel/protection/digit-runs.ts';
import { walkJsonText } from '../../../lambdas/kernel/protection/json-text-walk.ts';
import {
  InstructionInjectionReason,
  SensitiveContentReason,
} from '../../../lambdas/kernel/protection/protection.schema.ts';
import { screenRule } from '../../../lambdas/kernel/protection/rule-screen.ts';
import { screenSensitiveContent } from '../../../lambdas/kernel/protection/sensitive-content-screen.ts';
import { normalizeForScreening } from '../../../lambdas/kernel/protection/text-normalization.ts';

/* The edges of the pieces the screens are built from: checksums, digit runs, the JSON walk, normalisation. */

describe('Function: passesLuhn', () => {
  it('doubles every second digit from the right, folding results above 9, and adds them up', () => {
    // 5 doubled is 10, folded to 1; 9 doubled is 18, folded to 9
    expect(passesLuhn('59')).toBe(true);
    expect(passesLuhn('0')).toBe(true);
    expect(passesLuhn('18')).toBe(true);
    expect(passesLuhn('19')).toBe(false);
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
  });

  it('refuses anything that is not all ASCII digits', () => {
    expect(passesLuhn('41111111111111:1')).toBe(false);
    expect(passesLuhn('4111 1111 1111 1111')).toBe(false);
    expect(passesLuhn('/')).toBe(false);
    // A colon would read as the digit 10 and pass
    expect(passesLuhn('0:')).toBe(false);
    // A slash would read as the digit -1 and pass
    expect(passesLuhn('5/')).toBe(false);
  });
});

describe('Function: mod97 and passesIbanChecksum', () => {
  it('reads digits and capital letters only', () => {
    expect(mod97('A')).toBe(10);
    expect(mod97('Z')).toBe(35);
    expect(mod97('[')).toBeNaN();
    expect(mod97('@')).toBeNaN();
    expect(mod97(':')).toBeNaN();
  });

  it('refuses check digits outside 02-98 even when the remainder would pass', () => {
    // 01 and 99 leave the same remainders as 98 and 02 (mod 97), so these pass the remainder; they are never issued.
    expect(passesIbanChecksum('NO9810000000070')).toBe(true);
    expect(passesIbanChecksum('NO0110000000070')).toBe(false);
    expect(passesIbanChecksum('NO0210000000052')).toBe(true);
    expect(passesIbanChecksum('NO9910000000052')).toBe(false);
  });
});

describe('Function: luhnCheckDigit', () => {
  it('computes the digit to append, and refuses a payload that is not digits', () => {
    expect(luhnCheckDigit('411111111111111')).toBe('1');
    expect(() => luhnCheckDigit('41x')).toThrow(new RangeError('The payload is not a string of digits'));
  });
});

describe('Function: passesVerhoeff', () => {
  it('refuses a string with a character that is not a digit', () => {
    expect(passesVerhoeff('236/')).toBe(false);
    expect(passesVerhoeff('23:3')).toBe(false);
    // Read as digits (a colon as 10), these would pass
    for (const text of ['08:', '07;', '00=']) expect(passesVerhoeff(text), text).toBe(false);
  });
});

describe('Function: scanDigitRuns', () => {
  it('reads A-Z, a-z and the underscore as glue, and nothing next to them', () => {
    for (const letter of ['A', 'Z', 'a', 'z', '_'])
      expect(scanDigitRuns(`${letter}4111111111111111${letter}`)[0], letter).toMatchObject({
        gluedStart: true,
        gluedEnd: true,
      });
    for (const other of ['@', '[', '`', '{', ' '])
      expect(scanDigitRuns(`${other}4111111111111111${other}`)[0], other).toMatchObject({
        gluedStart: false,
        gluedEnd: false,
        attachedStart: false,
        attachedEnd: false,
      });
  });

  it.each(['-', '.', '/', ':', ',', '+'])(
    'reads %j between the run and a letter or digit as attaching it',
    (joiner) => {
      const [run] = scanDigitRuns(`a${joiner}4111111111111111${joiner}b`);
      const [underscored] = scanDigitRuns(`__${joiner}4111111111111111${joiner}_`);

      expect(run).toMatchObject({ gluedStart: false, gluedEnd: false, attachedStart: true, attachedEnd: true });
      expect(underscored).toMatchObject({ attachedStart: true, attachedEnd: true });
    },
  );

  it('does not attach a run to a joiner with nothing beyond it', () => {
    expect(scanDigitRuns('-4111111111111111-')[0]).toMatchObject({ attachedStart: false, attachedEnd: false });
    expect(scanDigitRuns(' -4111111111111111- ')[0]).toMatchObject({ attachedStart: false, attachedEnd: false });
  });

  it('reads a run that ends the text, with a separator left dangling', () => {
    expect(scanDigitRuns('415-555-2671-').map((run) => run.groups.map((group) => group.digits))).toEqual([
      ['415', '555', '2671'],
    ]);
    expect(scanDigitRuns('x 1234567890123')[0]?.groups).toEqual([{ digits: '1234567890123', separatorBefore: '' }]);
  });
});

describe('Function: chainsOf', () => {
  const chainsIn = (text: string) => {
    const [run] = scanDigitRuns(text);
    if (run === undefined) throw new Error('no run');
    return chainsOf(run).map(({ lengths, separator, attachedStart, attachedEnd }) => ({
      lengths,
      separator,
      attachedStart,
      attachedEnd,
    }));
  };

  it('counts a chain attached inside its run only where a dot joins it', () => {
    expect(chainsIn('12.415-555-2671 12')).toEqual([
      { lengths: [2, 3], separator: '.', attachedStart: false, attachedEnd: false },
      { lengths: [3, 3, 4], separator: '-', attachedStart: true, attachedEnd: false },
      { lengths: [4, 2], separator: ' ', attachedStart: false, attachedEnd: false },
    ]);
  });

  it('counts a chain that ends at a dot inside its run as attached there', () => {
    expect(chainsIn('415-555-2671.12')).toEqual([
      { lengths: [3, 3, 4], separator: '-', attachedStart: false, attachedEnd: true },
      { lengths: [4, 2], separator: '.', attachedStart: false, attachedEnd: false },
    ]);
  });

  it('takes the run’s own attachment at its two ends', () => {
    expect(chainsIn('x-415-555-2671.txt')).toEqual([
      { lengths: [3, 3, 4], separator: '-', attachedStart: true, attachedEnd: true },
    ]);
  });
});

describe('Function: walkJsonText', () => {
  const texts = (value: unknown, limits?: Parameters<typeof walkJsonText>[2]) => {
    const seen: [string, string | undefined][] = [];
    const outcome = walkJsonText(value, (text, key) => seen.push([text, key]), limits);
    return { outcome, seen };
  };
  const limits = { maxDepth: 2, maxNodes: 4, maxTextLength: 10 };

  it('reads an object with no prototype like a plain one', () => {
    const bare = Object.assign(Object.create(null), { note: 'x' });

    expect(texts(bare)).toEqual({
      outcome: 'complete',
      seen: [
        ['note', undefined],
        ['x', 'note'],
      ],
    });
  });

  it('reads numbers in their decimal form and bigints too, under the key they sit under', () => {
    expect(texts({ n: 4111, big: 10n, inf: Number.POSITIVE_INFINITY, no: Number.NaN, yes: true })).toEqual({
      outcome: 'complete',
      seen: [
        ['n', undefined],
        ['4111', 'n'],
        ['big', undefined],
        ['10', 'big'],
        ['inf', undefined],
        ['no', undefined],
        ['yes', undefined],
      ],
    });
  });

  it('answers complete for what carries no text, and unsupported for what it cannot read', () => {
    for (const value of [null, undefined, true, new Date(0), [], {}]) expect(texts(value).outcome).toBe('complete');
    for (const value of [Symbol('s'), () => 1, new Map(), new Uint8Array(1)])
      expect(texts(value).outcome).toBe('unsupported_value');
  });

  it('reads exactly up to each limit, and stops one past it', () => {
    expect(texts('x'.repeat(10), limits).outcome).toBe('complete');
    expect(texts('x'.repeat(11), limits).outcome).toBe('limit_exceeded');
    expect(texts([1, 2, 3], limits).outcome).toBe('complete');
    expect(texts([1, 2, 3, 4], limits).outcome).toBe('limit_exceeded');
    expect(texts([[1]], limits).outcome).toBe('complete');
    expect(texts([[[1]]], limits).outcome).toBe('limit_exceeded');
    // An object's keys count as nodes: { a, b } is five nodes, and the key that passes the limit is not read.
    expect(texts({ a: 1 }, limits).outcome).toBe('complete');
    expect(texts({ a: 1, b: 2 }, limits).seen).toEqual([
      ['a', undefined],
      ['1', 'a'],
      ['b', undefined],
    ]);
    expect(texts({ a: 1, b: 2 }, { ...limits, maxNodes: 3 })).toEqual({
      outcome: 'limit_exceeded',
      seen: [
        ['a', undefined],
        ['1', 'a'],
      ],
    });
    expect(texts({ ab: 'x'.repeat(9) }, limits).outcome).toBe('limit_exceeded');
  });

  it('stops at the first part it cannot read, in arrays and in objects', () => {
    expect(texts(['a', () => 1, 'b']).seen).toEqual([['a', undefined]]);
    expect(texts({ a: 'x', f: () => 1, b: 'y' }).seen).toEqual([
      ['a', undefined],
      ['x', 'a'],
      ['f', undefined],
    ]);
  });
});

describe('Function: normalizeForScreening', () => {
  it('returns printable ASCII, tabs and line breaks as they are', () => {
    const text = 'call 415-555-2671\tnow\r\n~';

    expect(normalizeForScreening(text)).toBe(text);
  });

  it('folds look-alikes: full-width digits, invisible characters, Unicode spaces and dashes', () => {
    expect(normalizeForScreening('４１５\u00a0555\u2011\u200b2671')).toBe('415 555-2671');
    expect(normalizeForScreening('a\u2060b\u3000c\u2212d')).toBe('ab c-d');
    // Spaces NFKC leaves alone, and text with no ASCII at all
    expect(normalizeForScreening('a\u1680b\u2028c')).toBe('a b c');
    expect(normalizeForScreening('４１５')).toBe('415');
  });
});

describe('Function: screenSensitiveContent', () => {
  it('finds numbers in text without a digit run of their own only when the text holds a digit', () => {
    // Full-width digits are digits once folded.
    expect(screenSensitiveContent('card ４１１１ １１１１ １１１１ １１１１')).toEqual({
      verdict: 'refused',
      reasons: ['pii.payment_card'],
    });
  });

  it('reports each kind once, sorted, across every string of a value', () => {
    expect(
      screenSensitiveContent({ b: 'SSN 219-09-9998', a: ['+44 20 7946 0958', 'x@example.com', '+44 20 7946 0958'] }),
    ).toEqual({ verdict: 'refused', reasons: ['pii.email', 'pii.national_id', 'pii.phone'] });
  });

  it('finds an email address even in text with no digit', () => {
    expect(screenSensitiveContent('mail maria@example.com')).toEqual({ verdict: 'refused', reasons: ['pii.email'] });
  });
});

describe('Function: screenRule', () => {
  it('adds a glued card number to the reasons the free-text screen already found, sorted', () => {
    expect(screenRule({ key: 'contact', value: 'x@example.com build4111111111111111' })).toEqual({
      verdict: 'refused',
      reasons: ['pii.email', 'pii.payment_card'],
    });
    expect(screenRule({ key: 'z', value: 'build4111111111111111x' })).toEqual({
      verdict: 'refused',
      reasons: ['pii.payment_card'],
    });
  });

  it('sorts the card number in among secrets the free-text screen found', () => {
    expect(screenRule({ key: 'k', value: `ghp_${'A'.repeat(36)} build4111111111111111` })).toEqual({
      verdict: 'refused',
      reasons: ['pii.payment_card', 'secret.api_key'],
    });
  });

  it('reads glued runs of 13 to 19 digits only', () => {
    expect(screenRule({ key: 'build', value: 'v41111111111111111111' }).verdict).toBe('clean');
  });
});

describe('Schemas: protection reasons', () => {
  it('name every reason the screens give, and nothing else', () => {
    expect(SensitiveContentReason.options).toContain('screen.limit_exceeded');
    expect(SensitiveContentReason.options).toContain('screen.unsupported_value');
    expect(InstructionInjectionReason.options).toEqual([
      'injection.override_instructions',
      'injection.permission_change',
      'injection.role_prompt',
      'injection.tool_call',
      'screen.limit_exceeded',
      'screen.unsupported_value',
    ]);
  });
});
