/**
 * `asn1.js` for an Encryption SDK that never signs. The SDK imports it for its ECDSA signature suites only (the
 * DER signature in `@aws-crypto/serialize`, the PEM keys in `@aws-crypto/material-management`), and defines its
 * schemas when imported; Memory Hub writes every message with a committing suite without a signature and requires
 * commitment on decrypt. `lib/lambda-bundling.ts` puts this module in place of the package (≈ 69 KB of every
 * bundle): the schemas are defined, and using one — a message claiming a signature suite — throws, which the
 * cipher refuses like any message it cannot open. Local mode and the tests keep the package.
 */
const unused = (): never => {
  throw new TypeError('asn1.js is not bundled: signature suites are neither written nor read');
};

class UnusedBigNumber {
  constructor() {
    unused();
  }
}

export default {
  define: (_name: string, _body: unknown) => ({ encode: unused, decode: unused }),
  bignum: { BN: UnusedBigNumber },
};
