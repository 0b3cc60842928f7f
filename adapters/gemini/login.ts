/** Whether Gemini CLI has credentials, and which, read offline. Only names are kept, never a value. */
import { type AuthMethod, type LoginState, noLogin, unverified } from '../../src/kit/login.js';
import { geminiAuthType, geminiLoginStored, geminiVariableSet } from './config.js';

const GEMINI_LOGIN_FIX =
  'set GEMINI_API_KEY, or run `gemini` once and choose Login with Google (Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)';

/**
 * Gemini CLI's credentials, read offline the way its headless mode picks them: the auth
 * method from the user's settings (else from the environment), then what that method
 * needs (GEMINI_API_KEY, GOOGLE_API_KEY or a Google Cloud project for Vertex AI, a stored
 * Google login). A key or login the CLI keeps in the system keychain cannot be seen: a warning.
 */
export function geminiLogin(env: NodeJS.ProcessEnv): Promise<LoginState> {
  const { type } = geminiAuthType(env);
  const ok = (auth: AuthMethod, source: string | null): LoginState => ({ loggedIn: true, auth, source, findings: [] });
  const state = ((): LoginState => {
    switch (type) {
      case null:
        return noLogin('Gemini CLI has no auth method (no security.auth.selectedType in its settings, no GEMINI_API_KEY)', GEMINI_LOGIN_FIX);
      case 'gemini-api-key':
      case 'gateway':
        if (geminiVariableSet('GEMINI_API_KEY', env)) return ok('api_key', 'GEMINI_API_KEY');
        return type === 'gateway'
          ? ok('unknown', 'GOOGLE_GEMINI_BASE_URL')
          : unverified('GEMINI_API_KEY is not set: a key Gemini CLI stored itself cannot be verified offline', GEMINI_LOGIN_FIX);
      case 'vertex-ai':
        if (geminiVariableSet('GOOGLE_API_KEY', env)) return ok('api_key', 'GOOGLE_API_KEY');
        if (geminiVariableSet('GOOGLE_CLOUD_PROJECT', env) && geminiVariableSet('GOOGLE_CLOUD_LOCATION', env)) return ok('cloud', 'GOOGLE_CLOUD_PROJECT');
        return noLogin(
          'Gemini CLI is set to Vertex AI but neither GOOGLE_API_KEY nor GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are set',
          GEMINI_LOGIN_FIX,
        );
      case 'oauth-personal':
        if (geminiLoginStored(env)) return ok('subscription', 'gemini login');
        return unverified(
          'Gemini CLI is set to Login with Google but no stored login was found (one in the system keychain cannot be seen offline)',
          GEMINI_LOGIN_FIX,
        );
      case 'compute-default-credentials':
      case 'cloud-shell':
        return ok('cloud', type);
      default:
        return unverified(`Gemini CLI's auth method ${String(type)} cannot be verified offline`, GEMINI_LOGIN_FIX);
    }
  })();
  return Promise.resolve(state);
}
