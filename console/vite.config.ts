import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console uses the typed client's source, so it builds without a prior `npm run build -w client`
// (only type imports come from the client's generated declarations, and the bundler erases them).
const clientSource = fileURLToPath(new URL('../client/src/index.ts', import.meta.url));

export default defineConfig({
  // The server mounts the built console at /console (server/src/http/console-app.ts).
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: { '@compliance-conductor/client': clientSource },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  server: {
    // `npm run dev -w console` talks to a server started with `make run`; the session cookie's Path=/console fits both.
    proxy: { '/console/api': process.env.CONSOLE_API_TARGET ?? 'http://127.0.0.1:3000' },
  },
});
