// Operations Dredd cannot exercise against the real server, each with the reason and the test that covers it
// instead. Operations the spec still declares 501 are skipped too, but need no entry: the spec is their list.
module.exports = {
  // The YAML documents are compared byte for byte with generated/<api>/swagger.yaml in
  // server/test/platform.test.ts; Dredd would compare it with the short example text instead.
  getSwagger: 'YAML body compared with the example text',
  getConductorSwagger: 'YAML body compared with the example text',
};
