// The authenticated caller: an id, the auth mode that recognised it, and its exact scope strings.
export interface Principal {
  readonly id: string;
  readonly authMode: 'api_key' | 'oidc' | 'static';
  readonly scopes: ReadonlySet<string>;
  /** A stable hash of the credential, used to bind cursors to the caller without storing the secret. */
  readonly credentialTag: string;
}

export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.has(scope);
}
