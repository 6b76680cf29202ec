import { connectRoutes } from './connect.ts';
import { couponRoutes } from './coupons.ts';
import { deliveryRoutes } from './deliveries.ts';
import { settingsRoutes } from './settings.ts';

/** The plugin's routes (secret key), one file per resource. */
export const commerceResources = [connectRoutes, settingsRoutes, couponRoutes];

/** WooCommerce's signed deliveries. */
export const deliveryResources = [deliveryRoutes];
