import { describe, expect, it } from 'vitest';
import { serviceLogger, serviceLogsAt } from './service-logger.js';

// Its own file: the process logger is a module singleton, created once per test file.
describe('serviceLogsAt', () => {
  it('counts every level as written until the process logger exists, then follows its level', () => {
    expect(serviceLogsAt('debug')).toBe(true);
    serviceLogger('activator', { LOG_LEVEL: 'info' });
    expect(serviceLogsAt('debug')).toBe(false);
    expect(serviceLogsAt('trace')).toBe(false);
    expect(serviceLogsAt('info')).toBe(true);
    expect(serviceLogsAt('warn')).toBe(true);
  });
});
