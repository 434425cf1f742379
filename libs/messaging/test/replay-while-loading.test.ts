/**
 * A change applied while a snapshot loads is applied again on top of the snapshot, once per
 * load in progress; changes after the load, or when the load fails, are applied once.
 */
import { ReplayWhileLoading } from '../src/replay-while-loading';

/** A read model whose memory a load replaces wholesale. */
class Model {
  memory = new Set<string>();
  readonly loads = new ReplayWhileLoading();
  add(id: string): void {
    this.loads.apply(() => this.memory.add(id));
  }
}

it('re-applies what arrived during the load onto the installed snapshot', async () => {
  const model = new Model();
  let finishRead!: () => void;
  const read = new Promise<void>((resolve) => (finishRead = resolve));
  const loading = model.loads.load(async () => {
    await read;
    model.memory = new Set(['from-snapshot']); // read before 'during' was written
  });
  model.add('during');
  finishRead();
  await loading;
  expect([...model.memory].sort()).toEqual(['during', 'from-snapshot']);
  model.add('after');
  expect(model.memory.has('after')).toBe(true);
});

it('replays nothing when the load fails, and the current memory keeps the change', async () => {
  const model = new Model();
  const loading = model.loads.load(() => Promise.reject(new Error('database gone')));
  model.add('during');
  await expect(loading).rejects.toThrow('database gone');
  expect([...model.memory]).toEqual(['during']);
});
