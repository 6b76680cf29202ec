// `npm run admin:size`: the built admin's JavaScript against its budget (gzipped); fails when over it.
import { ADMIN_BUDGET_BYTES, adminSizes, describeAdminSize, readAdminFiles } from './files.ts';

const files = readAdminFiles();
if (!files) throw new Error('the admin is not built: run `npm run build` (npm ci does it)');
console.log(describeAdminSize(files));
const sizes = adminSizes(files);
if (sizes.total > ADMIN_BUDGET_BYTES.total || sizes.firstPage > ADMIN_BUDGET_BYTES.firstPage) {
  console.error('\nOver budget.');
  process.exitCode = 1;
}
