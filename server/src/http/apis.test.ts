import { describe, expect, it } from '@jest/globals';
import { loadApiDocument, withNullInNullableEnums } from './apis.js';

describe('the documents the validator reads', () => {
  it('list null in the enum of a nullable schema, as OpenAPI 3.0.3 requires for null to be valid', () => {
    const document = { components: { schemas: { A: { type: 'string', nullable: true, enum: ['X', 'Y'] }, B: { type: 'string', enum: ['X'] } } } };
    withNullInNullableEnums(document);
    expect(document.components.schemas.A.enum).toEqual(['X', 'Y', null]);
    expect(document.components.schemas.B.enum).toEqual(['X']);
  });

  it("give an environment's scan_status its statuses and null", () => {
    const { openapi } = loadApiDocument('compliance');
    const environment = (openapi as { components: { schemas: Record<string, { properties: Record<string, { enum?: unknown[] }> }> } }).components.schemas.Environment!;
    expect(environment.properties.scan_status!.enum).toEqual(['IN_PROGRESS', 'SUCCESS', 'ERROR', null]);
  });
});
