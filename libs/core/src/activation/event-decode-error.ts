import { TerminalError } from '../errors/runtime-error.js';

/**
 * The agent asked for the event as JSON and it is not JSON. Terminal by type: the same bytes
 * fail the same way on every redelivery, so the activation fails closed (`activation_error`).
 */
export class EventDecodeError extends TerminalError {
  override readonly name = 'EventDecodeError';
}
