/**
 * The lines of a Codex config.toml that point the real Codex CLI at the scripted model
 * server: one custom provider whose key is read from BOUNCE_TEST_CODEX_KEY.
 */
export function scriptedProviderToml(serverUrl: string): string[] {
  return [
    'model_provider = "bounce-test"',
    'model = "mock-model"',
    '',
    '[model_providers.bounce-test]',
    'name = "Bounce test"',
    `base_url = "${serverUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "BOUNCE_TEST_CODEX_KEY"',
    '',
  ];
}
