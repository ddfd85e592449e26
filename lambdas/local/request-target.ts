/*
 * How the local server reads a request target, to route exactly as API Gateway's HTTP API does:
 *
 * - The path is percent-decoded once, before routing, and handed over decoded: "API Gateway decodes URL-encoded
 *   request parameters before passing them to your backend integration"
 *   (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-routes.html), and a captured
 *   payload-2.0 event for `GET /a%2Fb` carries `rawPath: "/a/b"` (fastify/aws-lambda-fastify#169). So an encoded
 *   slash separates segments. Other captures (hotsock/voker's ingress paths) suggest API Gateway decodes
 *   `%252F` twice and cuts the path at `%3F`; local mode decodes once. No route depends on the difference:
 *   every path parameter (record ids, names, sessions, keys) is refused unless it is made of `A-Z a-z 0-9 _ - .`, so a
 *   path holding `%`, `/`, `?` or `#` once decoded names nothing in either mode (404).
 * - Routes match the path's segments literally (`{name}` takes one whole segment, at least one character); the
 *   same page documents no normalisation, and dot segments are not resolved: `..` or `%2e%2e` is a segment like
 *   any other, never a step up. (Clients resolve dot segments before sending, RFC 3986 §5.2.4; a request that
 *   still carries them is routed as sent.)
 *
 * A target that is not a valid origin-form or absolute-form target (RFC 9112 §3.2) — a character no URI path
 * holds, a bad percent-encoding, bytes that are not UTF-8 once decoded, an invalid authority — is refused (400).
 */

export interface RequestTarget {
  /** The path, percent-decoded once: what routes are matched against and the event's `rawPath`. */
  readonly path: string;
  /** The query as sent, without its `?`. */
  readonly rawQuery: string;
}

/** RFC 3986 §3.3: a path of `/`-led segments of pchar (unreserved, sub-delims, `:`, `@`, or percent-encoded). */
const ABSOLUTE_PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)+$/;
/** RFC 3986 §3: scheme `://` authority, then the path and query (no fragment in a request target). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/;

/** The target's path and query, or undefined when it is not a target this server can route. */
export const parseRequestTarget = (target: string): RequestTarget | undefined => {
  let path: string;
  let rawQuery: string;
  if (target.startsWith('/')) {
    const query = target.indexOf('?');
    path = query < 0 ? target : target.slice(0, query);
    rawQuery = query < 0 ? '' : target.slice(query + 1);
    if (rawQuery.includes('#')) return undefined;
  } else {
    const absolute = ABSOLUTE_FORM.exec(target);
    if (!absolute || !URL.canParse(`http://${absolute[1]}/`)) return undefined;
    path = absolute[2] || '/';
    rawQuery = absolute[3] ?? '';
  }
  if (!ABSOLUTE_PATH.test(path)) return undefined;
  try {
    return { path: decodeURIComponent(path), rawQuery };
  } catch {
    // A percent-encoding of bytes that are not UTF-8.
    return undefined;
  }
};
