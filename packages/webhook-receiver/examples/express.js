// A merchant's webhook endpoint: WEBHOOK_SECRET=whsec_... node express.js
const express = require('express');
const { verifyWebhook, WebhookVerificationError } = require('@pay/webhook-receiver');

// Your console webhook's secret (whsec_...), or your HMAC secret (hs_...) for the crypto
// webhookUrl and v1 KYC sessions.
const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET');
// Test-mode events (livemode: false, from a test key or the sandbox) are refused unless this
// server is meant for them: ACCEPT_TEST_EVENTS=true on a test or staging server only.
const acceptTestEvents = process.env.ACCEPT_TEST_EVENTS === 'true';

// Delivery ids already acted on. Keep them in your database, written in the same
// transaction as the change the event makes.
const processed = new Set();

const app = express();

// express.raw, not express.json, on this route: the signature covers the bytes as sent,
// and a re-serialised object is not those bytes.
app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
  let verified;
  try {
    verified = verifyWebhook(req.body, req.headers, secret, { acceptTestEvents });
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      console.warn(`webhook refused: ${err.code}`);
      return res.status(400).json({ error: err.code });
    }
    throw err;
  }
  const { event, deliveryId } = verified;
  // Delivered at least once: a retry carries the same deliveryId. Act on it once.
  if (processed.has(deliveryId)) return res.sendStatus(200);
  switch (event.event) {
    case 'invoice.paid':
      console.log(`invoice ${event.invoice.id} paid: ${event.invoice.amount}`);
      break;
    case 'withdrawal.failed':
      console.log(`withdrawal ${event.withdrawal.id} failed: ${event.withdrawal.failureReason}`);
      break;
    default:
      console.log(`${event.event} received`);
  }
  processed.add(deliveryId);
  // Any 2xx within 10 s. Anything else, or no answer, is retried after 1 min, 5 min,
  // 15 min, 1 h and 4 h: queue slow work and answer at once.
  res.sendStatus(200);
});

app.use(express.json()); // the rest of your app may parse JSON as usual

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST, () => {
  const { address, port } = server.address();
  console.log(`listening on ${address} port ${port}, POST /webhooks`);
});
