import { describe, expect, it } from 'vitest';
import { configSnippets } from './IntegrationsPage';

describe('the Integrations page configuration snippets', () => {
  it('are JSON each client reads, carrying the server URL and the bearer token', () => {
    const s = configSnippets('https://content.example.com/mcp', 'cps_pat_abc');
    const claude = JSON.parse(s.claude).mcpServers['content-production'];
    expect(claude.args).toEqual(['-y', 'mcp-remote', 'https://content.example.com/mcp', '--header', 'Authorization:${AUTH_HEADER}']);
    expect(claude.env.AUTH_HEADER).toBe('Bearer cps_pat_abc');
    expect(JSON.parse(s.cursor).mcpServers['content-production']).toEqual({ url: 'https://content.example.com/mcp', headers: { Authorization: 'Bearer cps_pat_abc' } });
    expect(JSON.parse(s.dify)['content-production']).toMatchObject({ transport: 'streamable_http', url: 'https://content.example.com/mcp', headers: { Authorization: 'Bearer cps_pat_abc' } });
  });
});
