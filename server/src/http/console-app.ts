import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { PROJECT_ROOT } from '../paths.js';

/** Where `npm run build -w console` writes the console (Vite's outDir in console/vite.config.ts). */
export const CONSOLE_DIST = join(PROJECT_ROOT, 'console', 'dist');

export const CONSOLE_NOT_BUILT = 'the console is not built; run `npm run build -w console`';

// The console runs no third-party or inline code, so everything may come from this origin only; a script injected
// into the page could not send the CSRF token anywhere else. Inline styles are set through the DOM, not markup.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  });
  next();
}

/** `/api` and everything under it belongs to the console API, mounted separately at /console/api. */
const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

/**
 * Serves the built console at `/console`: its files from `distDir`, and index.html for every other page path, so
 * the browser's address can name any view (the app reads it). Never answers under `/console/api`, whatever the
 * mounting order, so the API always gets its requests.
 */
export function mountConsole(app: Express, distDir: string = CONSOLE_DIST): void {
  const indexFile = join(distDir, 'index.html');
  const files = express.static(distDir, {
    index: false,
    redirect: false,
    // Vite names assets by content hash, so a name never changes meaning and may be cached for good.
    setHeaders(res, path) {
      res.setHeader('Cache-Control', path.startsWith(join(distDir, 'assets')) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  const router = express.Router();
  router.use((req, res, next) => {
    if (isApiPath(req.path)) return next('router');
    if (req.method !== 'GET' && req.method !== 'HEAD') return next('router');
    // Checked per request, so building the console while the server runs needs no restart.
    if (!existsSync(indexFile)) return void res.status(503).type('text/plain').send(CONSOLE_NOT_BUILT);
    securityHeaders(req, res, next);
  });
  router.use(files);
  router.use((req, res) => {
    // A missing asset is a 404, never the page: a browser loading index.html as a script only hides the real error.
    if (req.path.startsWith('/assets/')) return void res.status(404).type('text/plain').send('not found');
    res.set('Cache-Control', 'no-cache');
    res.sendFile(indexFile);
  });
  app.use('/console', router);
}
