/**
 * The layer rules of server/src (see ../shared/design/style.md and README "How the pieces fit"), checked by
 * dependency-cruiser in `make lint` on every import, type-only ones included: http and storage depend on the domain,
 * never the reverse; the domain declares the repositories it needs and knows no Express; the services are composed
 * without the HTTP layer; only the HTTP layer (with client/ and contract-tests/) reads the generated types.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-knows-no-storage-or-http',
      comment: 'The domain declares the repository interfaces it needs (domain/repositories.ts); storage implements them.',
      severity: 'error',
      from: { path: '^server/src/domain/' },
      to: { path: '^server/src/(storage|http)/' },
    },
    {
      name: 'domain-knows-no-express',
      comment: 'Use cases take and return domain types; HTTP is translated in server/src/http.',
      severity: 'error',
      from: { path: '^server/src/domain/' },
      to: { path: 'node_modules/(express|express-openapi-validator)/' },
    },
    {
      name: 'storage-knows-no-http',
      severity: 'error',
      from: { path: '^server/src/storage/' },
      to: { path: '^server/src/http/' },
    },
    {
      name: 'services-composed-without-http',
      comment: 'The composition root wires storage into the domain; the HTTP layer is built on top of it.',
      severity: 'error',
      from: { path: '^server/src/(services|conductor-services)\\.ts$' },
      to: { path: '^server/src/http/' },
    },
    {
      name: 'generated-types-only-at-the-edge',
      comment: 'The domain and storage own their types; only the HTTP layer, the client and the contract tests import generated/.',
      severity: 'error',
      from: { path: '^server/src/(domain|storage)/' },
      to: { path: '^generated/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
