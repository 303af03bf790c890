/** The Worker (server/worker.ts) made with the endpoint table plus the throwaway endpoint (throwaway-endpoint.ts). */
import { workerFor } from '../../server/worker.ts';
import { throwawayTable } from './throwaway-endpoint.ts';

export default workerFor(throwawayTable().endpoints);
