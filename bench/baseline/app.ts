/**
 * The bench's baseline: plain express 5 + a pg Pool doing the services' hot-path SQL, with
 * no auth, validation, logs or views. It runs as its own process beside the measured
 * service, so the ratio of the two is what the service's own layers cost.
 *
 * Env: DATABASE_URL, PORT (0: any free port). Prints `listening <url>` once ready.
 */
import express from 'express';
import { Pool } from 'pg';
import { baselines } from './routes';
import type { BaselineRoute } from './route';

// The same pool size as the services' (createCryptoDb's default): equal round-trip capacity.
const POOL_SIZE = 10;

async function main() {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: POOL_SIZE });
  const app = express();
  app.use(express.json());
  for (const [name, route] of Object.entries(baselines) as [string, BaselineRoute][]) {
    await route.init?.(pool);
    app[route.method](`/${name}${route.path}`, async (req, res) => {
      const { status, body } = await route.handle(pool, req);
      res.status(status).json(body);
    });
  }
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') console.log(`listening http://127.0.0.1:${address.port}`);
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void pool.end().then(() => process.exit(0)));
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
