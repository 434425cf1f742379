/**
 * The webhook service's own rule on top of the contract map's body check: IP literals of private
 * addresses are refused unless private targets are allowed.
 */
import { targetProblem } from '../src/domain/endpoint-rules';

describe('webhook endpoint targets', () => {
  it('refuse private IP literals unless private targets are allowed', () => {
    for (const url of [
      'http://127.0.0.1:9000/',
      'http://[::1]/',
      'http://169.254.169.254/',
      'http://10.0.0.1/',
    ]) {
      expect(targetProblem(url, false)).toBe(
        'Url must not point to a private, loopback or link-local address',
      );
      expect(targetProblem(url, true)).toBeNull();
    }
  });

  it('leave public literals and host names alone (names are checked at each delivery)', () => {
    expect(targetProblem('https://93.184.216.34/hook', false)).toBeNull();
    expect(targetProblem('https://localhost.example.com/hook', false)).toBeNull();
  });
});
