// swagger2openapi ships no type declarations; this is the part of its API the pipeline uses.
declare module 'swagger2openapi' {
  interface ConvertOptions {
    patch?: boolean;
    warnOnly?: boolean;
    resolve?: boolean;
  }
  const converter: {
    convertObj(swagger: object, options: ConvertOptions): Promise<{ openapi: unknown }>;
  };
  export default converter;
}
