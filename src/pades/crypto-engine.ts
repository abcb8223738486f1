/**
 * Configures pkijs once, at import time, to use Node's WebCrypto. Every module that uses pkijs imports this
 * module first, so the engine is set before any certificate or CMS structure is built or checked.
 */
import { webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

type EngineCrypto = ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'];

const engine = new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as EngineCrypto });
pkijs.setEngine('node-webcrypto', engine);

