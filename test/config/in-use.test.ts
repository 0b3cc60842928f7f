import { describe, expect, it } from 'vitest';
import { configInUse, configNamed, setConfigInUse, withOwnConfigInUse } from '../../src/config/in-use.js';

describe('the config in use', () => {
  it('is the last one looked for, in a command', () => {
    setConfigInUse('conf/team.yaml', true);
    expect([configInUse(), configNamed()]).toEqual(['conf/team.yaml', 'conf/team.yaml']);
    setConfigInUse('bounce.config.yaml');
    expect([configInUse(), configNamed()]).toEqual(['bounce.config.yaml', undefined]);
  });

  it("is a request's own in a server: two requests at once each keep theirs, and the command's is untouched", async () => {
    setConfigInUse('server.yaml', true);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = withOwnConfigInUse(async () => {
      expect(configInUse()).toBe('bounce.config.yaml');
      setConfigInUse('a.yaml', true);
      await gate; // the second request looks its config up meanwhile
      return [configInUse(), configNamed()];
    });
    const second = withOwnConfigInUse(async () => {
      setConfigInUse('b/bounce.config.yaml');
      release();
      await Promise.resolve();
      return [configInUse(), configNamed()];
    });
    expect(await first).toEqual(['a.yaml', 'a.yaml']);
    expect(await second).toEqual(['b/bounce.config.yaml', undefined]);
    expect([configInUse(), configNamed()]).toEqual(['server.yaml', 'server.yaml']);
  });
});
