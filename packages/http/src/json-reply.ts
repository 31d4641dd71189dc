import type { Response } from 'express';

/**
 * Every JSON answer ends with a newline, so answers printed one after another in a terminal
 * (curl in the README's sessions) stay on lines of their own. JSON parsers ignore it.
 */
export function sendJsonText(res: Response, status: number, text: string): void {
  res.status(status).type('application/json').send(`${text}\n`);
}

export function sendJson(res: Response, status: number, value: unknown): void {
  sendJsonText(res, status, JSON.stringify(value));
}
