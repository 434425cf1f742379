export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as Record<string, unknown>).__AFF_STACK__ as
    | {
        infra: { stop(): Promise<void> };
        system: { stop(): Promise<void> };
        smtp?: { stop(): Promise<void> };
      }
    | undefined;
  await stack?.system.stop();
  await stack?.smtp?.stop();
  await stack?.infra.stop();
}
