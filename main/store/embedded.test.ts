// The shared-state contract against the embedded store: several views of one process's state.
import { EmbeddedBacking, EmbeddedState } from './embedded.ts';
import { storeContract } from './contract.case.ts';

storeContract('embedded', {
  async make(n) {
    const backing = new EmbeddedBacking();
    return Array.from({ length: n }, () => new EmbeddedState(backing));
  },
});
