// Docs page loader: fetches the OpenAPI document (asking for a credential when it is protected) and renders it.
(() => {
  const openapiPath = document.body.dataset.openapiPath || '';
  const form = document.getElementById('docs-auth');
  const input = document.getElementById('docs-credential');
  const statusBox = document.getElementById('docs-status');
  const errorBox = document.getElementById('docs-error');
  const uiNode = document.getElementById('swagger-ui');

  // The credential lives only in this closure: never in the URL, cookies or web storage.
  let credential = '';

  function showError(message) {
    statusBox.hidden = true;
    errorBox.textContent = message;
    errorBox.hidden = false;
  }

  function clearMessages() {
    statusBox.hidden = true;
    errorBox.textContent = '';
    errorBox.hidden = true;
  }

  // Prefer the problem title (RFC 9457) so the reader sees e.g. "Invalid credential" rather than a status code.
  async function problemTitle(response) {
    try {
      const body = await response.json();
      if (body && typeof body.title === 'string' && body.title !== '') return body.title;
    } catch {
      // Not JSON: fall back to the status line.
    }
    return `The API description could not be loaded (HTTP ${response.status}).`;
  }

  function askForCredential() {
    form.hidden = false;
    input.focus();
  }

  function sameOrigin(url) {
    try {
      return new URL(url, window.location.href).origin === window.location.origin;
    } catch {
      return false;
    }
  }

  // A credential the reader chose in the Authorize dialog, in either header, is the only one sent: a second one
  // would override it (relay) or be refused as two credentials (verifier).
  function hasCredential(headers) {
    return Object.keys(headers || {}).some((name) => {
      const lower = name.toLowerCase();
      return lower === 'authorization' || lower === 'x-api-key';
    });
  }

  // "Try it out" can reach this page's own origin only (CSP connect-src 'self'), where the same service answers. A
  // document naming its public address on another origin (catalog.base_url or evidence.api_base_url seen through
  // another host name, a 0.0.0.0 bind, a proxy's address) is shown with this origin as its server, so the calls
  // still work; the named address stays in the server's description.
  function reachableServers(servers) {
    if (!Array.isArray(servers) || servers.length === 0) return servers;
    if (servers.some((server) => server && typeof server.url === 'string' && sameOrigin(server.url)))
      return servers;
    const named = servers.map((server) => String(server?.url)).join(', ');
    return [
      { url: window.location.origin, description: `This page's server (the API is published at ${named})` },
    ];
  }

  function render(spec) {
    uiNode.replaceChildren();
    window.SwaggerUIBundle({
      spec: { ...spec, servers: reachableServers(spec.servers) },
      domNode: uiNode,
      presets: [window.SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
      // Offline: no online validator, no remote config, nothing persisted in storage.
      validatorUrl: null,
      queryConfigEnabled: false,
      persistAuthorization: false,
      deepLinking: false,
      // The curl command and request URL shown are the call as the reader built it, without the key added below:
      // the pasted key is not written back into the page.
      showMutatedRequest: false,
      // "Try it out" calls to this server reuse the credential unless the reader authorised explicitly.
      requestInterceptor: (request) => {
        if (credential !== '' && sameOrigin(request.url) && !hasCredential(request.headers)) {
          request.headers = { ...request.headers, Authorization: `Bearer ${credential}` };
        }
        return request;
      },
    });
  }

  async function load() {
    const headers = { accept: 'application/json' };
    if (credential !== '') headers.authorization = `Bearer ${credential}`;
    let response;
    try {
      response = await fetch(openapiPath, { headers, cache: 'no-store', credentials: 'same-origin' });
    } catch {
      showError('The API description could not be loaded (network error).');
      return;
    }
    if (!response.ok) {
      if (response.status === 401 && credential === '') {
        statusBox.hidden = true;
        askForCredential();
        return;
      }
      showError(await problemTitle(response));
      // A rejected or under-scoped credential can be replaced with another one.
      if (response.status === 401 || response.status === 403) askForCredential();
      return;
    }
    let spec;
    try {
      spec = await response.json();
    } catch {
      showError('The API description is not valid JSON.');
      return;
    }
    form.hidden = true;
    clearMessages();
    render(spec);
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    credential = input.value.trim();
    // Clear the field so the secret does not linger in the DOM once it has been read.
    input.value = '';
    if (credential === '') {
      showError('Enter an API key or token.');
      return;
    }
    statusBox.textContent = 'Loading the API description…';
    statusBox.hidden = false;
    errorBox.hidden = true;
    void load();
  });

  void load();
})();
