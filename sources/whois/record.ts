/** The facts whois reports about a domain, whichever protocol they came from. */

export interface Registrant {
  name: string | null;
  organization: string | null;
  email: string | null;
  country: string | null;
}

export interface WhoisFacts {
  /** EPP status codes such as `clientTransferProhibited`. */
  status: string[];
  registrar: string | null;
  registrar_iana_id: string | null;
  registrar_url: string | null;
  registrant: Registrant;
  /** Lower-case host names. */
  nameservers: string[];
  /** Whether the delegation is signed; null when the registry does not say. */
  dnssec: boolean | null;
  created_at: number | null;
  /** Last change of the registration (the registries' "updated date"). */
  changed_at: number | null;
  expires_at: number | null;
}

export function emptyFacts(): WhoisFacts {
  return {
    status: [],
    registrar: null,
    registrar_iana_id: null,
    registrar_url: null,
    registrant: { name: null, organization: null, email: null, country: null },
    nameservers: [],
    dnssec: null,
    created_at: null,
    changed_at: null,
    expires_at: null,
  };
}

/** `primary`, with every missing fact taken from `secondary`. */
export function mergeFacts(primary: WhoisFacts, secondary: WhoisFacts): WhoisFacts {
  return {
    status: primary.status.length ? primary.status : secondary.status,
    registrar: primary.registrar ?? secondary.registrar,
    registrar_iana_id: primary.registrar_iana_id ?? secondary.registrar_iana_id,
    registrar_url: primary.registrar_url ?? secondary.registrar_url,
    registrant: {
      name: primary.registrant.name ?? secondary.registrant.name,
      organization: primary.registrant.organization ?? secondary.registrant.organization,
      email: primary.registrant.email ?? secondary.registrant.email,
      country: primary.registrant.country ?? secondary.registrant.country,
    },
    nameservers: primary.nameservers.length ? primary.nameservers : secondary.nameservers,
    dnssec: primary.dnssec ?? secondary.dnssec,
    created_at: primary.created_at ?? secondary.created_at,
    changed_at: primary.changed_at ?? secondary.changed_at,
    expires_at: primary.expires_at ?? secondary.expires_at,
  };
}

/** Whether the facts miss something a second protocol could add. */
export function incomplete(f: WhoisFacts): boolean {
  return !f.registrar || f.created_at === null || f.expires_at === null || f.nameservers.length === 0;
}

/** Trimmed non-empty text, else null. */
export function clean(v: string | undefined | null): string | null {
  const t = v?.trim();
  return t ? t : null;
}

const WITHHELD = /redacted|not disclosed|withheld|data protected|privacy|not available|non-public|please query/i;

/** A registrant value, or null when the registry withholds it (GDPR redaction texts). */
export function published(v: string | undefined | null): string | null {
  const t = clean(v);
  return t && !WITHHELD.test(t) ? t : null;
}

/** An e-mail address, or null for redaction texts and contact-form notes. */
export function emailOf(v: string | undefined | null): string | null {
  const t = published(v);
  return t && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t) ? t : null;
}
