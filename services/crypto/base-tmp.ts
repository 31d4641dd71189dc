import express from 'express';
import pg from 'pg';
import autocannon from 'autocannon';
const pool = new pg.Pool({ connectionString: 'postgresql://root@127.0.0.1:5432/payments_prof', max: 10 });
const app = express();
app.get('/inv/:id', async (req, res) => {
  const { rows } = await pool.query('SELECT * FROM crypto.invoices WHERE id = $1', [req.params.id]);
  res.json(rows[0]);
});
app.post('/inv', express.json(), async (req, res) => {
  const { rows } = await pool.query(`INSERT INTO crypto.invoices (id, merchant_id, is_test, amount, currency, network, address, expires_at) VALUES (gen_random_uuid(), gen_random_uuid(), true, 10, 'USDT_TRC20', 'Tron', md5(random()::text), now()) RETURNING *`);
  res.status(201).json(rows[0]);
});
const server = app.listen(0, async () => {
  const port = (server.address() as any).port;
  const { rows } = await pool.query('SELECT id FROM crypto.invoices LIMIT 1');
  const r = await autocannon({ url: `http://127.0.0.1:${port}`, connections: 100, duration: 10, requests: [{ method: 'GET', path: `/inv/${rows[0].id}` }] });
  console.log('baseline get rps', r.requests.average, 'p99', r.latency.p99);
  server.close(); await pool.end();
});
