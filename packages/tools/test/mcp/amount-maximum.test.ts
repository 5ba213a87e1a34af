/** The MCP server's top-up tool and policy fee caps are bounded by the SDK's `MAX_KWD_AMOUNT`. */
import { ConfigurationError } from 'delivery-task-sdk';
import { describe, expect, it } from 'vitest';
import { useMockService } from '../../../../test/support/mock-service.js';
import { createMcpServer } from '../../src/mcp.js';
import { call, connectInMemory, refusalOf } from './support.js';

describe('the maximum KWD amount in the MCP server', () => {
  const { client } = useMockService({ account: { type: 'wallet', balance: '20' } });

  it('bounds the MCP top-up tool and the policy fee caps', async () => {
    const mcp = await connectInMemory(createMcpServer(client(), { allow: ['read', 'topUp'] }));
    try {
      expect(refusalOf(await call(mcp, 'create_top_up_link', { amount: 1e21 })).rule).toBe('input');
    } finally {
      await mcp.close();
    }
    for (const field of ['maxFeeKwd', 'dailyCapKwd'] as const) {
      expect(() => createMcpServer(client(), { [field]: '9007199254741' })).toThrow(ConfigurationError);
      expect(() => createMcpServer(client(), { [field]: 1e21 })).toThrow(
        new RegExp(
          `^Invalid policy\\.${field}: expected a KWD amount from 0 to 9007199254740\\.991 .*, got 1e\\+21$`,
        ),
      );
    }
  });
});
