/**
 * `json11` for a client that is told never to use it. The OpenSearch client's serializer calls it only with
 * `enableLongNumeralSupport`, which `opensearch-transport.ts` turns off (the index stores no 64-bit numbers);
 * `lib/lambda-bundling.ts` puts this module in place of the package (≈ 28 KB) in every Lambda bundle, so a
 * change that starts to use it fails loudly instead of silently.
 */
const unused = (): never => {
  throw new TypeError('json11 is not bundled: the OpenSearch serializer must run without long numeral support');
};

module.exports = { parse: unused, stringify: unused };
