/**
 * RDAP (RFC 9083) domain answers. rdap.org redirects a query to the registry's own RDAP
 * server (from the IANA bootstrap file), which answers `application/rdap+json`: events for
 * dates, entities with jCard (RFC 7095) contact data, nameservers, secureDNS.
 */
import { SourceError } from '../../src/kernel/errors.ts';
import { need } from '../../src/kernel/json-path.ts';
import { asArray, asRecord, asString } from '../_shared/hot-list.ts';
import { clean, emailOf, emptyFacts, published, type WhoisFacts } from './record.ts';

export const RDAP_BOOTSTRAP = 'https://rdap.org/domain/';

type VcardProps = Map<string, { params: Record<string, unknown>; value: unknown }[]>;

function vcardOf(entity: Record<string, unknown>): VcardProps {
  const props: VcardProps = new Map();
  const list = asArray(asArray(entity.vcardArray)?.[1]) ?? [];
  for (const p of list) {
    const prop = asArray(p);
    const name = asString(prop?.[0])?.toLowerCase();
    if (!prop || !name) continue;
    const entry = { params: asRecord(prop[1]) ?? {}, value: prop[3] };
    props.set(name, [...(props.get(name) ?? []), entry]);
  }
  return props;
}

function vcardText(props: VcardProps, name: string): string | null {
  const v = props.get(name)?.[0]?.value;
  if (Array.isArray(v)) return clean(v.filter((x) => typeof x === 'string' && x).join(' '));
  return clean(asString(v));
}

function country(props: VcardProps): string | null {
  const adr = props.get('adr')?.[0];
  if (!adr) return null;
  const cc = asString(adr.params.cc);
  if (cc) return cc.toUpperCase();
  const parts = asArray(adr.value);
  return clean(asString(parts?.[6]));
}

function roles(entity: Record<string, unknown>): string[] {
  return (asArray(entity.roles) ?? []).map((r) => asString(r)?.toLowerCase() ?? '');
}

/** Every entity, nested ones included (registrars often nest their abuse contact). */
function allEntities(root: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (list: unknown) => {
    for (const e of asArray(list) ?? []) {
      const r = asRecord(e);
      if (!r) continue;
      out.push(r);
      walk(r.entities);
    }
  };
  walk(root.entities);
  return out;
}

function eventTime(root: Record<string, unknown>, action: string): number | null {
  for (const e of asArray(root.events) ?? []) {
    const r = asRecord(e);
    if (asString(r?.eventAction)?.toLowerCase() !== action) continue;
    const t = Date.parse(asString(r?.eventDate) ?? '');
    if (Number.isFinite(t)) return t;
  }
  return null;
}

export interface RdapAnswer extends WhoisFacts {
  /** Host of the RDAP server that answered (from the `self` link). */
  server: string | null;
}

/** Read an RDAP domain object. An RDAP error object with code 404 is `not_found`. */
export function parseRdap(raw: unknown, domain: string): RdapAnswer {
  const root = need(raw, '', asRecord, 'a JSON object');
  const errorCode = root.errorCode;
  if (errorCode !== undefined) {
    if (Number(errorCode) === 404) throw new SourceError('not_found', `no registration was found for ${domain}`);
    throw new SourceError('transient', `RDAP server answered error ${String(errorCode)}: ${asString(root.title) ?? ''}`.trim());
  }
  if (asString(root.objectClassName) !== 'domain' || !asString(root.ldhName)) throw new SourceError('parse', 'RDAP answer is not a domain object (objectClassName/ldhName missing)');

  const facts = emptyFacts();
  facts.status = (asArray(root.status) ?? []).map((s) => asString(s)?.trim() ?? '').filter(Boolean);
  facts.nameservers = [...new Set((asArray(root.nameservers) ?? []).map((n) => asString(asRecord(n)?.ldhName)?.toLowerCase().replace(/\.$/, '') ?? '').filter(Boolean))];
  const signed = asRecord(root.secureDNS)?.delegationSigned;
  facts.dnssec = typeof signed === 'boolean' ? signed : null;
  facts.created_at = eventTime(root, 'registration');
  facts.changed_at = eventTime(root, 'last changed');
  facts.expires_at = eventTime(root, 'expiration');

  for (const entity of allEntities(root)) {
    const r = roles(entity);
    const props = vcardOf(entity);
    if (r.includes('registrar') && !facts.registrar) {
      facts.registrar = vcardText(props, 'fn') ?? vcardText(props, 'org');
      const ianaId = (asArray(entity.publicIds) ?? []).map(asRecord).find((p) => /iana/i.test(asString(p?.type) ?? ''));
      facts.registrar_iana_id = clean(asString(ianaId?.identifier));
      const about = (asArray(entity.links) ?? []).map(asRecord).find((l) => asString(l?.rel) === 'about');
      facts.registrar_url = vcardText(props, 'url') ?? clean(asString(about?.href));
    }
    if (r.includes('registrant')) {
      facts.registrant = {
        name: published(vcardText(props, 'fn')),
        organization: published(vcardText(props, 'org')),
        email: emailOf(vcardText(props, 'email')),
        country: published(country(props)),
      };
    }
  }
  const self = (asArray(root.links) ?? []).map(asRecord).find((l) => asString(l?.rel) === 'self');
  let server: string | null = null;
  try {
    server = self ? new URL(asString(self.href) ?? '').host : null;
  } catch {
    server = null;
  }
  return { ...facts, server };
}
