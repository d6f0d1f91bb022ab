// What the admin status shows of the shared state (GET /admin/v1/status → store): the type is the admin API's.
export type { StoreStatus } from '../../shared/admin.ts';
