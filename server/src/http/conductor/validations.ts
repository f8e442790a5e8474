import type { ValidationLibrary } from '../../domain/conductor/validation-libraries.js';
import type { HandlerContext } from '../context.js';
import type { Req, Res, Schemas } from './types.js';
import { archiveOf } from './presenters.js';

const libraryBody = (library: ValidationLibrary): Schemas['ValidationLibrary'] => ({
  name: library.name,
  created_at: library.createdAt,
  size: library.size,
  sha256: library.sha256,
  rule_count: library.ruleCount,
});

/** The raw archive the body parser kept (a Buffer); anything else is an empty archive, refused by the domain. */

export async function listValidations(req: Req<'listValidations'>, { services }: HandlerContext): Res<'listValidations'> {
  const libraries = await services.validations.list(req.query.prefix);
  return { status: 200, body: { count: libraries.length, items: libraries.map(libraryBody) } };
}

export async function addValidation(req: Req<'addValidation'>, { services }: HandlerContext): Res<'addValidation'> {
  const library = await services.validations.add(req.query.name, archiveOf(req.body));
  return { status: 201, body: libraryBody(library), headers: { Location: `/api/v0/validations/${encodeURIComponent(library.name)}` } };
}

export async function getValidation(req: Req<'getValidation'>, { services }: HandlerContext): Res<'getValidation'> {
  return { status: 200, body: libraryBody(await services.validations.get(req.path.name)) };
}

export async function deleteValidation(req: Req<'deleteValidation'>, { services }: HandlerContext): Res<'deleteValidation'> {
  await services.validations.delete(req.path.name);
  return { status: 200, body: { name: req.path.name, status: 'Deleted' } };
}

export async function getValidationArchive(req: Req<'getValidationArchive'>, { services }: HandlerContext): Res<'getValidationArchive'> {
  // The dispatcher sends a non-JSON body as is: the exact bytes uploaded, as application/x-tar.
  const archive = await services.validations.archive(req.path.name);
  return { status: 200, body: archive as unknown as string };
}
